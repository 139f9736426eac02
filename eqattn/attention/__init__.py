"""Attention theory: vanilla layer, clusterings, designs, options, coverage (SPEC §1-§5)."""

from .clusterings import Clustering, clusterings, count_clusterings
from .coverage import ScenarioResult, Verdict, check_clustering, check_coverage, check_scenario, scenarios
from .design import Design, DesignOrbit
from .options import Option, maximal_profiles, option_table
from .problem import Problem
from .symbolic import SymbolicChecker, symbolic_coverage
from .views import check_report, clusterings_report

__all__ = [
    "Clustering", "clusterings", "count_clusterings", "ScenarioResult", "Verdict", "check_clustering",
    "check_coverage", "check_scenario", "scenarios", "Design", "DesignOrbit", "Option",
    "maximal_profiles", "option_table", "Problem", "check_report", "clusterings_report",
    "SymbolicChecker", "symbolic_coverage",
]
