"""`t.numpy()` of a tensor is a numpy array: the matchers of ndarray methods (`a.ptp()`,
removed in NumPy 2.0) apply to it, as they do to `np.asarray(x)`."""

from __future__ import annotations

import textwrap

from auditor.knowledge.base import KnowledgeBase
from auditor.scan import RuleIndex, scan_source

METHODS = "numpy-ndarray-methods-removed"


def test_the_array_of_a_tensor_has_the_array_methods(kb: KnowledgeBase) -> None:
    source = textwrap.dedent("""\
        import numpy as np
        import torch
        t = torch.stft(torch.ones(512), 64, return_complex=True).abs()
        a = t.mean(-1).numpy()
        span = a.ptp()
        direct = t.numpy().ptp()
        listed = t.tolist()
        other = listed.ptp()
    """)
    index = RuleIndex.build([kb.get(METHODS)])
    assert sorted(f.line for f in scan_source(source, "m.py", index) if f.change == METHODS) == [5, 6]
