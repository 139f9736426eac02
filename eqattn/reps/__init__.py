"""Real irreps, characters, the representation notation, restriction/induction, Hom dims."""

from .irreps import IrrepSet, irreps, irreps_of, standard_irreps
from .rep import (
    PRESETS,
    Rep,
    block_matrices,
    conjugate_character,
    decompose,
    format_rep,
    induce_character,
    parse_rep,
    zero,
)

__all__ = [
    "IrrepSet", "irreps", "irreps_of", "standard_irreps", "PRESETS", "Rep", "block_matrices",
    "conjugate_character", "decompose", "format_rep", "induce_character", "parse_rep", "zero",
]
