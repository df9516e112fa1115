"""Probes: run knowledge-base code on real package versions."""

from auditor.cachefiles import default_cache_dir
from auditor.probe.executor import ProbeSettings, probe_transitions
from auditor.probe.runner import Batch, ProbeResult, run_batch
from auditor.probe.sources import Sources
from auditor.probe.verify import Verdict, Verification, verify
from auditor.progress import SILENT, Reporter, RichReporter

__all__ = [
    "SILENT",
    "Batch",
    "ProbeResult",
    "ProbeSettings",
    "Reporter",
    "RichReporter",
    "Sources",
    "Verdict",
    "Verification",
    "default_cache_dir",
    "probe_transitions",
    "run_batch",
    "verify",
]
