"""`auditor probe` and `fix --probe` run the shape proof on real builds: every call shape a
fix claims, the original on torch 1.12.1 (the probe environments' cache) and the rewrite on this
interpreter's 2.13.0. A claimed shape whose rewrite raises where the original ran fails the
check, with each shape reported in text and JSON."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.version import Version

from auditor.fix.apply import fix_project
from auditor.fix.probes import rewrites
from auditor.fix.proof import prove
from auditor.fix.shapes import shape_proof
from auditor.knowledge.base import KnowledgeBase
from auditor.models import AuditResult, FixCheck, Transition
from auditor.pipeline import scan
from auditor.probe import ProbeSettings, probe_transitions
from auditor.report import fix as fix_report
from auditor.report import probe as probe_report
from tests.fix.helpers import entry
from tests.fix.test_shape_proof import OLD

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not OLD.exists(), reason=f"no torch 1.12.1 probe environment at {OLD} (auditor probe --from 1.12.1 makes one)"),
]
TRANSITION = Transition("torch", Version("1.12.1"), Version("2.13.0"))
# the probe's own call (no keyword) is rewritten right: the one-shape proof verifies the fix; the
# shapes it claims with `eigenvectors=` raise on 2.13.0, and only the shape proof shows it
CLAIMS_TOO_MUCH = """
symbols = ["torch.eig"]
[[match]]
call = "torch.eig"
message = "torch.eig is removed"
[probe]
code = '''
import torch
A = torch.tensor([[2.0, 1.0], [1.0, 3.0]])
try:
    print(len(torch.eig(A)[0]))
except RuntimeError:
    print("RuntimeError")
'''
before = "2"
after = "RuntimeError"
[[fix.keep_old]]
on = "call"
action = "template"
template = "(torch.linalg.eigvals({args}), None)"
max_positional = 1
proven_keywords = ["eigenvectors"]
"""
RAISED = "TypeError: linalg_eigvals() got an unexpected keyword argument 'eigenvectors'"


def settings(tmp_path: Path) -> ProbeSettings:
    return ProbeSettings(cache_dir=tmp_path / "cache", env_old=str(OLD), env_new=sys.executable, rewrites=rewrites, shapes=shape_proof)


def test_auditor_probe_fails_a_fix_whose_claimed_shape_raises_and_reports_each_shape(tmp_path: Path) -> None:
    change = entry(CLAIMS_TOO_MUCH, id="torch-eig-test", introduced="2.0.0")
    [outcome] = probe_transitions([TRANSITION], [change], settings(tmp_path))
    assert outcome.status == "confirmed", outcome
    [check] = outcome.fixes
    assert check.status == "failed", check
    assert check.summary().startswith("keep-old failed on 1.12.1 / 2.13.0+cpu: the keep-old rewrite of torch.eig(A, eigenvectors=")
    assert f"raises on 2.13.0+cpu where the original ran on 1.12.1: {RAISED} (and 1 more shape(s))" in check.summary()
    shapes = {s.call: s for s in check.shapes}
    assert (shapes["torch.eig(A)"].status, shapes["torch.eig(A)"].rewritten) == ("ran", "print(len((torch.linalg.eigvals(A), None)[0]))")
    for call in ("torch.eig(A, eigenvectors=False)", "torch.eig(A, eigenvectors=True)"):
        assert (shapes[call].status, shapes[call].old, shapes[call].new) == ("raised", "ok", RAISED)
    assert "torch.eig(input=A, eigenvectors=False)" not in shapes  # a shape the fix does not claim

    result = AuditResult(transitions=(TRANSITION,), changes=(change,), findings=(), probes=(outcome,))
    document = json.loads(probe_report.render(result, "json"))
    shown = document["probes"][0]["fixes"][0]["shapes"]
    assert {"call": "torch.eig(A, eigenvectors=True)", "rewritten": "print(len((torch.linalg.eigvals(A, eigenvectors=True), None)[0]))",
            "old": "ok", "new": RAISED, "status": "raised"} in shown
    text = probe_report.render(result, "text")
    assert "      shapes: 1 ran, 2 raised\n" in text
    assert f"        raised  torch.eig(A, eigenvectors=False) -> print(len((torch.linalg.eigvals(A, eigenvectors=False), None)[0])) (old: ok; new: {RAISED})\n" in text


def test_fix_probe_proves_every_claimed_shape_of_the_fixes_it_applies(tmp_path: Path) -> None:
    change = entry(CLAIMS_TOO_MUCH, id="torch-eig-test", introduced="2.0.0")
    kb = KnowledgeBase(entries=(change,), horizon={"torch": Version("2.15.0")})
    project = tmp_path / "project"
    project.mkdir()
    (project / "spectrum.py").write_text("import torch\n\n\ndef spectrum(m):\n    return torch.eig(m)[0]\n", "utf-8")
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    fixed = fix_project(scan(project, "1.12.1", "2.13.0", kb), project, "keep-old")
    assert len(fixed.applied) == 1
    proofs, _, checks = prove(fixed, project, settings(tmp_path))
    [(change_id, check)] = [(c.change, c.check) for c in checks]
    assert change_id == "torch-eig-test" and isinstance(check, FixCheck)
    assert check.status == "failed" and sorted(s.status for s in check.shapes) == ["raised", "raised", "ran"]
    proven = dataclasses.replace(fixed, proofs=proofs, checks=checks)
    [document] = json.loads(fix_report.render_json(proven))["checks"]
    assert (document["change"], document["mode"], document["status"]) == ("torch-eig-test", "keep-old", "failed")
    assert sorted(s["status"] for s in document["shapes"]) == ["raised", "raised", "ran"]
    shown = fix_report.render_text(proven)
    assert "NOT PROVEN torch-eig-test: keep-old failed on 1.12.1 / 2.13.0+cpu: the keep-old rewrite of torch.eig(A, eigenvectors=" in shown
    assert "  shapes: 1 ran, 2 raised\n" in shown
