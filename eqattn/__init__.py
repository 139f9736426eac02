"""eqattn: design G-equivariant multi-head self-attention with few parameters.

Layers (imports only go downward): groups -> reps -> attention -> numeric -> torch / api / cli.
The mathematics is in SPEC.md (shared with the project); docstrings cite its sections.
"""

__version__ = "0.1.0"
