"""Probes: run knowledge-base code on real package versions."""

from auditor.probe.runner import Batch, ProbeResult, run_batch
from auditor.probe.verify import Verdict, Verification, verify

__all__ = ["Batch", "ProbeResult", "Verdict", "Verification", "run_batch", "verify"]
