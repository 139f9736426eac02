"""Finite groups, subgroups up to conjugacy, identification with standard groups, catalog."""

from .finite_group import MAX_ORDER, FiniteGroup
from .subgroups import SubgroupClass, SubgroupLattice

__all__ = ["FiniteGroup", "SubgroupClass", "SubgroupLattice", "MAX_ORDER"]
