"""Numerics: reference attention in numpy, weight construction, verification (SPEC §1, §4.5)."""

from .ambient import AmbientRep, ambient_rep
from .convert import Conversion, convert_vanilla
from .construct import ConstructionError, LowRank, VanillaSample, design_attention, design_weights, expand_design, sample_vanilla
from .isotypic import HomBlocks, Isotypic, isotypic_basis, isotypic_of_rep
from .realize import RealizedDesign, RealizedOrbit, realize_design
from .haar import haar_elements
from .reference import attention_from_blocks, reference_attention
from .verify import VerifyReport, equivariance_error, verify_design, verify_scenario
from ..reps.wigner import BandIrrep, band_matrices, wigner_d

__all__ = [
    "AmbientRep", "ambient_rep", "BandIrrep", "band_matrices", "wigner_d", "haar_elements",
    "Conversion", "convert_vanilla",
    "ConstructionError", "LowRank", "VanillaSample", "design_attention", "design_weights", "expand_design", "sample_vanilla",
    "HomBlocks", "Isotypic", "isotypic_basis", "isotypic_of_rep",
    "RealizedDesign", "RealizedOrbit", "realize_design", "attention_from_blocks", "reference_attention",
    "VerifyReport", "equivariance_error", "verify_design", "verify_scenario",
]
