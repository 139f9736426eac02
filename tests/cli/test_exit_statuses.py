"""The CLI's error conventions (README "Errors and exit statuses"): exit 0 done, 1 the
answer is "no" (`check`: not covered), 2 one line `error: <field>: ...` (bad input, a limit,
a port in use, output that cannot be written), and with `--json` the error also as JSON on
stdout; `--time-limit` bounds the whole command, building the group included."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from eqattn.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
LINE = re.compile(r"^error: (\S+): (.+)\n$")


def one_line(err: str, field: str) -> str:
    m = LINE.match(err)
    assert m and "Traceback" not in err, err
    assert m.group(1) == field, err
    return m.group(2)


JSON_ERRORS = [
    (["group", "Q9", "--json"], "group"),
    (["group", "mat:[[cos(1e999)]]", "--json"], "group"),
    (["clusterings", "--json", "-G", "C4"], "rep"),  # an argparse error, before --json is parsed
    (["clusterings", "-G", "C4", "-V", "E1", "-H", "0", "-d", "1", "--json"], "heads"),
    (["check", "-G", "C4", "-V", "E1", "-H", "2", "-d", "1", "-o", "C2:Q", "--json"], "orbits[0].rep"),
    (["optimize", "-G", "C4", "-V", "E1", "-H", "2", "-d", "1", "--time-limit", "-1", "--json"], "time_limit"),
    (["serve", "--port", "99999", "--json"], "port"),
    (["serve", "--host", "999.999.999.999", "--json"], "host"),
    (["groups", "--json", "extra"], "arguments"),
]


@pytest.mark.parametrize("argv, field", JSON_ERRORS, ids=[" ".join(a)[:50] for a, _ in JSON_ERRORS])
def test_json_errors_are_json_on_stdout(capsys, argv, field):
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 2
    data = json.loads(out)
    assert set(data) == {"field", "message"} and data["field"] == field and data["message"]
    assert one_line(err, field) == data["message"]


def test_without_json_stdout_stays_empty(capsys):
    assert main(["group", "Q9"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and one_line(err, "group").startswith("unknown group")


C2 = ["-G", "C2", "-V", "A + B", "-H", "1", "-d", "1"]


@pytest.mark.parametrize("as_json", [False, True])
def test_check_exits_1_when_not_covered(capsys, as_json):
    flag = ["--json"] if as_json else []
    assert main(["check", *C2, "-o", "C2:A", *flag]) == 1  # B is not covered
    out, _ = capsys.readouterr()
    if as_json:
        data = json.loads(out)
        assert data["covered"] < data["total"]
    else:
        assert "NOT covered" in out
    assert main(["check", *C2, "-o", "C2:A + B", *flag]) == 0
    out, _ = capsys.readouterr()
    assert "NOT covered" not in out


def _listening_port() -> tuple[socket.socket, int]:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(1)
    return s, s.getsockname()[1]


def test_serve_on_a_port_in_use_is_one_line(capsys):
    s, port = _listening_port()
    try:
        assert main(["serve", "--port", str(port)]) == 2
    finally:
        s.close()
    out, err = capsys.readouterr()
    assert out == "" and "already in use" in one_line(err, "port")


@pytest.mark.parametrize("host, words", [("999.999.999.999", "cannot resolve"), ("8.8.8.8", "not an address of this machine")])
def test_serve_on_a_bad_host_is_one_line(capsys, host, words):
    assert main(["serve", "--host", host, "--port", "8000"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and words in one_line(err, "host")


def test_serve_json_prints_the_address_as_json():
    s, port = _listening_port()
    s.close()  # a free port
    proc = subprocess.Popen([sys.executable, "-m", "eqattn.cli", "serve", "--port", str(port), "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=ROOT)
    try:
        assert proc.stdout is not None
        first = json.loads(proc.stdout.readline())
        assert first == {"url": f"http://127.0.0.1:{port}/", "host": "127.0.0.1", "port": port}
        deadline = time.monotonic() + 60
        while True:  # the socket was bound before the line was printed
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "nothing listens"
                time.sleep(0.1)
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _cli(*argv: str, stdout=subprocess.PIPE) -> subprocess.CompletedProcess:  # noqa: ANN001
    return subprocess.run([sys.executable, "-m", "eqattn.cli", *argv], stdout=stdout, stderr=subprocess.PIPE,
                          timeout=300, cwd=ROOT)


@pytest.mark.parametrize("argv", [["group", "D4", "--json"], ["clusterings", *C2]])
def test_a_full_disk_is_one_line(argv):
    """`eqattn group D4 --json > /dev/full`: one line naming the output, exit 2, no traceback."""
    with open("/dev/full", "w") as full:
        res = _cli(*argv, stdout=full)
    err = res.stderr.decode()
    assert res.returncode == 2, err
    assert "No space left on device" in one_line(err, "output")


def test_time_limit_covers_building_the_group():
    """The group of order 500 below takes seconds to analyse (its subgroup lattice); with
    --time-limit 0.2 the command stops at the limit with one line, not after the lattice."""
    t0 = time.monotonic()
    startup = _cli("--version")
    startup_s = time.monotonic() - t0
    assert startup.returncode == 0
    t0 = time.monotonic()
    res = _cli("optimize", "-G", "perm:(1,2,3,4),(5,6,7,8,9),(10,11,12,13,14),(15,16,17,18,19)",
               "-V", "trivial", "-H", "2", "-d", "2", "--time-limit", "0.2")
    took = time.monotonic() - t0
    err = res.stderr.decode()
    assert res.returncode == 2, err
    assert "building the group" in one_line(err, "time_limit")
    assert took - startup_s < 0.2 + 1.5, (took, startup_s)


def test_a_bug_is_exit_70_with_a_last_line(capsys, monkeypatch):
    import eqattn.cli.main as cli

    def broken(args):  # noqa: ANN001, ANN202
        raise RuntimeError("boom")

    monkeypatch.setattr(cli, "cmd_groups", broken)
    assert cli.main(["groups", "--json"]) == 70
    out, err = capsys.readouterr()
    assert json.loads(out)["field"] == "internal"
    assert err.rstrip("\n").splitlines()[-1].startswith("error: internal: RuntimeError: boom")
