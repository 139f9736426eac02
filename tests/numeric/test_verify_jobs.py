"""`verify_design(jobs=...)`: each scenario draws from its own stream, so the report is the
same for any number of worker processes; bad counts are refused by name."""

from __future__ import annotations

import pytest

from eqattn.attention import Design, Problem
from eqattn.cli import main as cli_main
from eqattn.errors import InputError
from eqattn.numeric.verify import MAX_JOBS, verify_design


def test_the_report_does_not_depend_on_the_worker_count():
    p = Problem.create("D4", "2xregular", 3, 2)
    d = Design.regular(p)
    one = verify_design(p, d, seed=5)
    assert one.scenarios == 6 and one.ok
    assert verify_design(p, d, seed=5, jobs=2) == one
    assert verify_design(p, d, seed=5, jobs=7) == one  # more workers than scenarios
    assert verify_design(p, d, seed=6) != one  # the seed does matter


@pytest.mark.parametrize("jobs", [0, -1, MAX_JOBS + 1, 1.5, True])
def test_a_bad_worker_count_is_an_input_error(jobs):
    p = Problem.create("C4", "E1", 2, 1)
    with pytest.raises(InputError) as e:
        verify_design(p, Design.create(p, [("C2", "B")]), jobs=jobs)
    assert e.value.field == "jobs"


def test_the_cli_limit_is_the_library_limit():
    assert cli_main.MAX_JOBS == MAX_JOBS
