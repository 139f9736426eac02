"""Finite groups, subgroups up to conjugacy, identification with standard groups, catalog."""

from .finite_group import MAX_ORDER, STANDARD, FiniteGroup
from .standard import StandardGroups
from .subgroups import SubgroupClass, SubgroupLattice

__all__ = ["FiniteGroup", "SubgroupClass", "SubgroupLattice", "MAX_ORDER", "STANDARD", "StandardGroups"]

from .catalog import catalog_entries, catalog_help, get_group  # noqa: E402
from .pointgroups import point_group  # noqa: E402

__all__ += ["catalog_entries", "catalog_help", "get_group", "point_group"]
