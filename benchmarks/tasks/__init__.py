"""Task benchmarks: do eqattn designs pay off in a model? (docs/site/tasks.md)

One script per task, each with a documented command and a ``--quick`` mode:

    PYTHONPATH=. .venv/bin/python benchmarks/tasks/nbody.py        # charged N-body, Oh and D4h
    PYTHONPATH=. .venv/bin/python benchmarks/tasks/digits.py       # sklearn digits, C4 and D4
    PYTHONPATH=. .venv/bin/python benchmarks/tasks/pointcloud.py   # nearest-neighbour vectors, O
    PYTHONPATH=. .venv/bin/python benchmarks/tasks/report.py       # table + plots -> docs/site/tasks.md

Shared pieces: :mod:`symmetry` (the group acting on the task's tokens), :mod:`models`
(vanilla and equivariant transformers at equal depth), :mod:`designs` (the eqattn designs,
cached in designs.json), :mod:`harness` (training, metrics, CSV), :mod:`peer`
(symm-learning's encoder layer, run in its own venv).
"""
