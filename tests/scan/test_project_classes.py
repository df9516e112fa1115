"""A method call on an instance of the project's own plain class (`f = Factorisation(a)`;
`f.svd()`) is that class's method, not a tensor's: no finding from the matchers of tensor
methods. A class that could stand for a tensor (a base other than object, a metaclass,
`__getattr__` or `__new__`, a name bound twice) keeps the finding."""

from __future__ import annotations

import textwrap

import pytest

from auditor.knowledge.base import KnowledgeBase
from auditor.scan import RuleIndex, scan_source

SVD = "torch-svd-deprecated"  # torch.svd and the method `.svd()` (medium/low on unknown receivers)


def svd_lines(source: str, kb: KnowledgeBase) -> list[int]:
    index = RuleIndex.build([kb.get(SVD)])
    return sorted(f.line for f in scan_source(textwrap.dedent(source), "m.py", index) if f.change == SVD)


CALLS = """\
def use(a):
    f = Cls(a)
    return f.svd()      # line {line}
def tensor(x):
    return torch.as_tensor(x).svd()
"""


@pytest.mark.parametrize("head", [
    "class Cls:\n    def svd(self):\n        return 1\n",
    "class Cls(object):\n    def svd(self):\n        return 1\n",
])
def test_a_plain_project_class_owns_its_methods(head: str, kb: KnowledgeBase) -> None:
    source = "import torch\n" + head + CALLS.format(line="")
    assert svd_lines(source, kb) == [len(source.splitlines())]  # only the tensor's


@pytest.mark.parametrize("head", [
    "class Cls(torch.Tensor):\n    pass\n",
    "class Cls(Base):\n    pass\n",
    "class Cls(metaclass=Meta):\n    pass\n",
    "class Cls:\n    def __getattr__(self, name):\n        return getattr(self.t, name)\n",
    "class Cls:\n    def __new__(cls, a):\n        return torch.as_tensor(a)\n",
    "class Cls:\n    pass\nCls = torch.as_tensor\n",
])
def test_a_class_that_may_stand_for_a_tensor_keeps_the_finding(head: str, kb: KnowledgeBase) -> None:
    source = "import torch\n" + head + CALLS.format(line="")
    lines = source.splitlines()
    method = next(n for n, text in enumerate(lines, start=1) if "f.svd()" in text)
    assert svd_lines(source, kb) == [method, len(lines)]
