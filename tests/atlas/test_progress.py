"""The progress line: done / total, the tally by status, the ETA; quiet prints nothing."""

import io

from eqattn.atlas.progress import Progress

PROBLEM = {"group": "C4", "rep": "E1", "heads": 2, "head_dim": 1}


class Tty(io.StringIO):
    def isatty(self):
        return True


def row(status, p_opt=8):
    return {"status": status, "p_opt": p_opt, "p_vanilla": 16, "time_s": 0.5}


def test_terminal_line_counts_and_eta():
    out = Tty()
    p = Progress(total=5, skipped=1, stream=out)
    assert p.eta() is None
    p.update(PROBLEM, row("optimal"))
    p.update(PROBLEM, row("feasible"))
    p.update(PROBLEM, row("refused", None))
    text = out.getvalue()
    assert text.startswith("\r") and "\n" not in text
    last = text.split("\r")[-1]
    assert last.startswith("4/5 done (1 stored before); optimal 1, time-limited 1, refused 1;") and "ETA" in last
    assert p.computed == 3 and p.eta() is not None and p.eta() >= 0
    p.close()
    assert out.getvalue().endswith("\n")


def test_log_lines_and_quiet():
    out = io.StringIO()
    p = Progress(total=2, skipped=0, stream=out)
    p.update(PROBLEM, row("optimal"))
    assert out.getvalue() == "[1/2] C4 E1 H=2 d=1: optimal 8/16 0.50s\n"
    q = io.StringIO()
    p = Progress(total=2, skipped=0, stream=q, quiet=True)
    p.update(PROBLEM, row("error", None))
    p.close()
    assert q.getvalue() == "" and p.counts["error"] == 1
