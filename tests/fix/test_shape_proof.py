"""The shape proof (auditor/fix/shapes.py) on real builds: every call shape a fix claims is run,
the original on an older torch (1.12.1, from the probe environments' cache) and the rewrite on
this interpreter's (2.13.0), and a claimed shape whose rewrite raises is caught."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from auditor.fix.shapes import shape_cases
from tests.fix.helpers import entry

pytestmark = pytest.mark.slow
OLD = Path.home() / ".cache" / "auditor" / "envs" / "torch-1.12.1-py3.10" / "bin" / "python"

# torch.eig raises from 2.0 (removed); torch.linalg.eigvals takes no `eigenvectors`: the claim that
# eigenvectors= was proven is false, and the proof must show it for that shape alone
CLAIMS_TOO_MUCH = """
symbols = ["torch.eig"]
[[match]]
call = "torch.eig"
message = "torch.eig is removed"
[probe]
code = '''
import torch
A = torch.tensor([[2.0, 1.0], [1.0, 3.0]])
print(torch.eig(A, eigenvectors=False)[0].shape)
'''
before = "torch.Size([2, 2])"
after = "RuntimeError"
[[fix.keep_old]]
on = "call"
action = "template"
template = "torch.linalg.eigvals({args})"
max_positional = 1
proven_keywords = ["eigenvectors"]
"""


@pytest.mark.skipif(not OLD.exists(), reason=f"no torch 1.12.1 probe environment at {OLD} (auditor probe --from 1.12.1 makes one)")
def test_a_claimed_shape_whose_rewrite_raises_is_caught() -> None:
    change = entry(CLAIMS_TOO_MUCH, id="torch-eig-test", introduced="2.0.0")
    found = {c.call: c for c in shape_cases([change], str(OLD), sys.executable)}
    ran = found["torch.eig(A)"]
    assert (ran.status, ran.original_old, ran.rewrite_new) == ("proven", "ok", "ok"), ran
    for call in ("torch.eig(A, eigenvectors=False)", "torch.eig(A, eigenvectors=True)"):
        caught = found[call]
        assert caught.status == "raises", caught
        assert caught.original_old == "ok" and caught.original_new is not None and caught.original_new.startswith("RuntimeError")
        assert caught.rewrite_new == "TypeError: linalg_eigvals() got an unexpected keyword argument 'eigenvectors'"
    outside = found["torch.eig(input=A, eigenvectors=False)"]  # a keyword the fix does not claim: not run
    assert (outside.status, outside.left_kind) == ("left-alone", "unproven-shape")
