"""Knowledge from the released wheels: each release's public surface and deprecation sites, and
the candidate changes between consecutive releases. Wheels are read as zips, never installed."""

from auditor.harvest.candidates import compare
from auditor.harvest.model import Candidate, Evidence, Harvest, Param, Release, Site, Symbol
from auditor.harvest.run import PACKAGES, HarvestSettings, harvest, harvest_wheel

__all__ = [
    "PACKAGES",
    "Candidate",
    "Evidence",
    "Harvest",
    "HarvestSettings",
    "Param",
    "Release",
    "Site",
    "Symbol",
    "compare",
    "harvest",
    "harvest_wheel",
]
