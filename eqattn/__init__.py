"""eqattn: design G-equivariant multi-head self-attention with few parameters.

Layers (imports only go downward; tests/test_layering.py): errors, memo -> groups -> reps ->
attention -> numeric -> optimize -> atlas / torch -> api -> cli.
The mathematics is in SPEC.md (shared with the project); docstrings cite its sections.
"""

__version__ = "0.1.0"
