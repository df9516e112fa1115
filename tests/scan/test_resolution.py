"""Name resolution and tensor tagging, one pattern per case.

Each case is a module where a line ending in `# expect` (or `# expect[low]`, `# expect[medium]`)
must be reported with that confidence (high when not said) and no other line may be.
"""

import re
import textwrap

import pytest

from auditor.knowledge.base import KnowledgeBase
from auditor.scan import RuleIndex, scan_source

MARK = re.compile(r"#\s*expect(?:\[(\w+)\])?\s*$")
FLOOR = "torch-floor-divide-rounds-toward-floor"
CLAMP = "torch-clamp-type-promotion"
DATA = "torch-tensor-data-int-on-requires-grad-raises"
OVERFLOW = "torch-tensor-int-overflow-raises"
COMPLEX = "torch-complex-promotion-of-0dim-operands"
DROPOUT = "torch-dropout2d-3d-input-warns"
SOLVE = "torch-solve-removed"
SCALER = "torch-cuda-amp-gradscaler-deprecated"
AUTOCAST = "torch-cuda-amp-autocast-deprecated"


def found(kb: KnowledgeBase, source: str, *entries: str) -> dict[int, str]:
    index = RuleIndex.build(kb.get(e) for e in entries)
    findings = scan_source(textwrap.dedent(source), "case.py", index)
    result: dict[int, str] = {}
    for f in findings:
        result[f.line] = max(result.get(f.line, "low"), f.confidence, key=["low", "medium", "high"].index)
    return result


def expected(source: str) -> dict[int, str]:
    marks = {}
    for number, line in enumerate(textwrap.dedent(source).splitlines(), start=1):
        match = MARK.search(line)
        if match:
            marks[number] = match.group(1) or "high"
    return marks


CASES = {
    "import forms at module and function level": (FLOOR, """
        import torch.nn.functional as F
        from torch import floor_divide as fdiv
        import torch as th

        def f(t: th.Tensor):
            import torch
            from torch import floor_divide
            a = torch.floor_divide(t, 2)  # expect
            b = floor_divide(t, 2)  # expect
            c = fdiv(t, 2)  # expect
            d = th.floor_divide(t, 2)  # expect
            return a, b, c, d

        def g(x):
            return floor_divide(x, 2)  # a name of f's scope, not of this one
        """),
    "from-import of a submodule": (DROPOUT, """
        from torch import nn
        from torch.nn import functional as F
        from torch.nn import Dropout2d as D2

        a = nn.Dropout2d(0.1)  # expect[low]
        b = F.dropout2d
        c = D2(0.3)  # expect[low]
        d = b(a)  # expect[low]
        """),
    "assignment alias and use as a value": (FLOOR, """
        import torch
        op = torch.floor_divide
        t = torch.arange(-10, 10)
        a = op(t, 2)  # expect
        b = list(map(torch.floor_divide, [t], [2]))  # expect[medium]
        c = sorted([3, 1], key=len)
        """),
    "an alias bound one way in each branch: either may run, what cannot reach a call is not it": (FLOOR, """
        import torch

        def pick(a, b, new):
            if new:
                op = torch.floor_divide
            else:
                op = torch.div
            return op(a, b)  # expect[medium]

        def later(a, b, new):
            if new:
                op = torch.div
            else:
                op = torch.floor_divide
            return op(a, b)  # expect[medium]

        def closure(t, new):
            if new:
                op = torch.floor_divide
            else:
                op = torch.true_divide

            def inner(x):
                return op(x, 2)  # expect[medium]
            return inner(t)

        def neither(a, b, new):
            if new:
                op = torch.div
            else:
                op = torch.true_divide
            return op(a, b)

        def early_exit(a, b, new):
            if new:
                op = torch.div
                return op(a, b)
            op = torch.floor_divide
            return op(a, b)  # expect

        def feature_test(a, b):
            op = torch.floor_divide  # the default, which the test below replaces where it can
            if hasattr(torch, "newer_divide"):
                op = torch.div
            return op(a, b)
        """),
    "subclass and decorator lines": (DROPOUT, """
        import torch

        class Mine(torch.nn.Dropout2d):  # expect[low]
            pass

        @torch.nn.Dropout2d
        def wrapped():
            pass
        """.replace("@torch.nn.Dropout2d", "@torch.nn.Dropout2d  # expect[low]")),
    "lambdas and comprehensions": (FLOOR, """
        import torch
        t = torch.arange(-5, 5)
        a = [x // 2 for x in [t]]  # expect
        b = (lambda v: torch.floor_divide(v, 2))(t)  # expect
        c = {k: v // 2 for k, v in enumerate(range(4))}
        d = [x.item() for x in torch.linspace(0, 1, 5)]
        sizes = [x // 16 for x in (224, 224)]
        """),
    "comprehension variables do not leak into the function": (FLOOR, """
        import torch

        def build(img_size, depth):
            dpr = [x.item() for x in torch.linspace(0, 0.1, depth)]
            img_size = [x // 4 for x in img_size]
            return dpr, img_size
        """),
    "unbound method through torch.Tensor": (FLOOR, """
        import torch
        t = torch.arange(-4, 4)
        a = torch.Tensor.floor_divide(t, 2)  # expect
        """),
    "tensor operators and reflected operands": (FLOOR, """
        import torch

        def f(t: torch.Tensor, n: int, items: list):
            a = t // n  # expect
            b = 10 // t  # expect
            t //= 2  # expect
            c = len(items) // n
            d = int(t.sum()) // 2
            e = t.shape[0] // 2
            for i in range(10):
                g = i // 2
            h = n // 2
            return a, b, c, d, e, g, h
        """),
    "numpy arrays and unknown operands are never a tensor's //": (FLOOR, """
        import numpy as np
        import torch

        def f(arr: np.ndarray, config, batch):
            a = np.arange(-10, 10) // 3
            b = arr // 2
            c = config.size // 2
            d = batch["x"] // 2
            e = np.floor_divide(a, 2)
            return a, b, c, d, e
        """),
    "nn.Module attributes and their outputs": (FLOOR, """
        import torch
        from torch import nn

        class Head(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(4, 4)
                self.blocks = nn.ModuleList([nn.Linear(4, 4)])

            def forward(self, x):
                y = self.proj(x)
                z = y // 2  # expect
                for block in self.blocks:
                    w = block(x) // 2  # expect
                return self.blocks[0](x) // 3  # expect
        """),
    "project modules and return annotations": (FLOOR, """
        import torch
        from torch import nn

        class Encoder(nn.Module):
            def forward(self, x):
                return x

            def positions(self, n) -> torch.Tensor:
                return torch.arange(-n, n)

            def count(self) -> int:
                return 3

            def use(self):
                a = self.positions(4) // 2  # expect
                b = self.count() // 2
                return a, b

        def make(n) -> torch.Tensor:
            return torch.arange(-n, n)

        enc = Encoder()
        out = enc(torch.zeros(3)) // 2  # expect
        idx = make(5) // 2  # expect
        """),
    "torch-specific methods on unknown receivers are low": (FLOOR, """
        import torch

        def f(batch, arr):
            a = batch.floor_divide(2)  # expect[low]
            return a
        """),
    "common method names on unknown receivers are not reported": (SOLVE, """
        import torch
        import numpy as np

        def f(system, matrix: torch.Tensor, rhs: torch.Tensor):
            a = system.solve()
            b = np.linalg.solve(rhs, rhs)
            c = matrix.solve(rhs)  # expect
            return a, b, c
        """),
    "integer tensor with a float bound": (CLAMP, """
        import torch
        from torch import nn

        def f(x: torch.Tensor, n: int, scores, head: nn.Linear):
            labels = torch.randint(0, 5, (n,))
            a = labels.clamp(min=0.5)  # expect
            b = torch.clamp(labels, 0, 4)
            c = x.clamp(min=0.5)  # dtype unknown: a float bound says nothing
            m = x.clamp(min=torch.zeros(1))  # expect[low]
            d = torch.randn(n).clamp(min=0.5)
            e = scores.clamp(min=1e-6)
            f = (x / n).clamp(min=1e-6)
            g = head(x).clamp(-1.0, 1.0)
            h = torch.zeros(3).clamp(min=0.1)
            i = x.mean().clamp(min=0.1)
            j = labels.clamp(min=x)  # expect
            k = labels.float().clamp(min=0.5)
            return a, b, c, d, e, f, g, h, i, j, k, m
        """),
    "keyword valued, unknown values are not reported": (COMPLEX, """
        import torch

        def f(x: torch.Tensor, dtype, *args, **kwargs):
            a = torch.tensor(1j, dtype=torch.cdouble)  # expect[medium]
            kind = torch.complex128
            b = torch.tensor(1j, dtype=kind)  # expect[medium]
            c = torch.tensor(1.0, dtype=x.dtype)
            d = torch.tensor(1.0, dtype=dtype)
            e = torch.tensor(1.0, dtype=torch.float64)
            f = torch.tensor(*args, **kwargs)  # expect[low]
            g = torch.tensor
            return a, b, c, d, e, f, g
        """),
    "int8 literal out of range": (OVERFLOW, """
        import torch
        a = torch.tensor([1, 300], dtype=torch.int8)  # expect
        b = torch.tensor([1, 100], dtype=torch.int8)
        c = torch.tensor(-129, dtype=torch.int8)  # expect
        d = torch.tensor(300, dtype=torch.int16)
        """),
    "integer .data on a parameter": (DATA, """
        import torch
        from torch import nn

        def f(layer: nn.Linear, src: nn.Linear, values, arr):
            layer.weight.data = torch.tensor([1, 2])  # expect
            layer.weight.data = src.weight.data.clone()
            layer.bias.data = values
            layer.weight.data = torch.from_numpy(arr)
            p = nn.Parameter(torch.randn(3))
            p.data = p.data.long()  # expect
        """),
    "annotations are not uses": (OVERFLOW, """
        import torch

        def f(hidden: torch.tensor, mask: "torch.tensor" = None) -> torch.tensor:
            value: torch.tensor = hidden
            return value
        """),
    "look-alikes: the project's own functions, numpy, strings and comments": (SOLVE, """
        import numpy as np
        import scipy.linalg
        import torch

        def solve(a, b):
            return a

        x = solve(1, 2)
        y = scipy.linalg.solve(np.eye(2), np.ones(2))
        z = "torch.solve(A, B)"
        # torch.solve(A, B)
        '''torch.solve(A, B) in a docstring'''
        """),
    "a local name shadows an import": (FLOOR, """
        from torch import floor_divide

        def f():
            def floor_divide(a, b):
                return a
            return floor_divide(1, 2)
        """),
    "deprecated classes in annotations are not uses": (SCALER, """
        from typing import Optional
        import torch

        def setup(scaler: Optional[torch.cuda.amp.GradScaler] = None) -> "torch.cuda.amp.GradScaler":
            kept: torch.cuda.amp.GradScaler = scaler or torch.cuda.amp.GradScaler()  # expect
            return kept
        """),
    "feature probes guarded by except AttributeError": (AUTOCAST, """
        import torch

        def has_cpu_autocast() -> bool:
            try:
                _ = torch.cpu.amp.autocast
            except AttributeError:
                return False
            return True

        try:
            from torch.cuda.amp import autocast
        except ImportError:
            autocast = None

        def run(f):
            with autocast():  # expect
                return f()
        """),
    "register_buffer, self attributes and inferred returns": (FLOOR, """
        import torch
        from torch import nn

        def positions(n, stride):
            return torch.arange(-n, n) * stride

        def sizes(n):
            return [n, n]

        class Grid(nn.Module):
            def __init__(self, n):
                super().__init__()
                self.register_buffer("ids", torch.arange(-n, n))
                self.offsets = torch.arange(-n, n)
                self.count = n

            def forward(self):
                a = self.ids // 2  # expect
                b = self.offsets // 2  # expect
                c = self.count // 2
                d = positions(4, 2) // 3  # expect
                e = sizes(4)[0] // 2
                return a, b, c, d, e
        """),
    "parameters every visible call passes a tensor": (FLOOR, """
        import torch

        def bucket(x, width):
            return x // width  # expect

        def halve(v):
            return v // 2

        def callback(v):
            return v // 2

        class Windows:
            def split(self, t: torch.Tensor):
                return self._rows(t, 4)

            def _rows(self, t, n):
                return t // n  # expect

        t = torch.arange(-8, 8)
        a = bucket(t, 3)
        b = halve(t)
        c = halve(10)
        d = list(map(callback, [t]))
        e = callback(t)
        f = Windows().split(t)
        """),
    "functools.partial binds some arguments": ("torch-load-weights-only-default-true", """
        import functools
        from functools import partial
        import torch

        a = partial(torch.load, map_location="cpu")  # expect[medium]
        b = functools.partial(torch.load, weights_only=True)
        c = [a(p) for p in ["x.pt"]]
        """),
    "an import in an except ImportError does not replace the try's": (AUTOCAST, """
        import torch
        try:
            from torch.cuda.amp import autocast
        except ImportError:
            from torch import autocast

        with autocast():  # expect
            pass
        """),
    "a module matcher reports the import statements of the module, its names and submodules": ("torch-six-removed", """
        import torch
        import torch._six  # expect
        import torch._six as six  # expect
        from torch._six import inf, nan  # expect
        from torch import _six, nn  # expect
        import torch._sixteen
        from torch import nn as _six_not
        from torch._sixteen import x
        from . import _six as local_six
        try:
            from torch._six import string_classes
        except ImportError:
            string_classes = str

        def f():
            import torch._six.inner  # expect
        """),
    "max_positional: an argument given neither by keyword nor by position": ("torch-softmax-implicit-dim-deprecated", """
        import torch.nn.functional as F
        from functools import partial

        def f(x, args):
            a = F.softmax(x)  # expect
            b = F.softmax(x, 1)
            c = F.softmax(x, dim=1)
            d = F.softmax(*args)  # expect[low]
            e = F.softmax(x, **args)  # expect[low]
            g = partial(F.softmax, x, 1)
            return a, b, c, d, e, g
        """),
    "a method matcher on an nn.Module receiver": ("torch-module-register-backward-hook-deprecated", """
        import torch
        import torch.nn as nn

        def f(model, hook):
            block = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
            block.register_backward_hook(hook)  # expect
            model.register_backward_hook(hook)  # expect[low]
            t = torch.ones(2)
            t.register_backward_hook(hook)
            return block
        """),
    "suppression comments": (FLOOR, """
        import torch
        t = torch.arange(-4, 4)
        a = t // 2  # auditor: ignore[torch-floor-divide-rounds-toward-floor]
        b = t // 2  # auditor: ignore
        c = t // 2  # auditor: ignore[torch-other-change]  # expect
        d = t // 2  # auditor: ignore[torch-other-change, torch-floor-divide-rounds-toward-floor]
        """),
    "the suppression marker inside a string silences nothing": (FLOOR, """
        import torch
        t = torch.arange(-4, 4)
        a = (t // 2, "# auditor: ignore")  # expect
        b = (t // 2, '# auditor: ignore[torch-floor-divide-rounds-toward-floor]')  # expect
        c = (t // 2, f"{0} # auditor: ignore")  # expect
        d = t // 2; e = "# auditor: ignore"  # expect
        g = t // 2  # a comment quoting "x" # auditor: ignore
        """),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(kb: KnowledgeBase, name: str) -> None:
    entry, source = CASES[name]
    assert found(kb, source, entry) == expected(source)


def test_spread_keywords_lower_confidence(kb: KnowledgeBase) -> None:
    source = """
    import torch
    from torch import nn

    def f(**options):
        return torch.cuda.amp.GradScaler(**options)
    """
    assert found(kb, source, SCALER) == {6: "high"}


def test_not_bool_arguments_rule_out_known_masks(kb: KnowledgeBase) -> None:
    """`not_bool`: a comparison or a bool tensor in that argument cannot be a byte mask."""
    from dataclasses import replace

    from auditor.knowledge.entry import Condition, Match

    change = replace(kb.get(FLOOR), matches=(
        Match(method=("masked_fill", "masked_fill_"), when=Condition(not_bool=("#0", "mask"))),
        Match(call="torch.masked_fill", when=Condition(not_bool=("#1", "mask"))),
    ))
    source = textwrap.dedent("""
        import torch

        def f(scores: torch.Tensor, lengths: torch.Tensor, pad, ids):
            a = scores.masked_fill(lengths == 0, 0.0)
            b = scores.masked_fill(~(lengths > 3) & (ids == pad), 0.0)
            keep = torch.zeros(3, dtype=torch.bool)
            c = scores.masked_fill(keep, 0.0)
            d = scores.masked_fill(lengths.bool(), 0.0)
            e = torch.masked_fill(scores, torch.isnan(scores), 0.0)
            g = scores.masked_fill(mask=pad.to(torch.bool), value=0.0)
            h = scores.masked_fill(pad, 0.0)
            i = scores.masked_fill(lengths.byte(), 0.0)
            j = torch.masked_fill(scores, pad, 0.0)
            return a, b, c, d, e, g, h, i, j
        """)
    findings = scan_source(source, "case.py", RuleIndex.build([change]))
    assert sorted(f.line for f in findings) == [12, 13, 14]


def test_dtype_conversions_follow_their_argument(kb: KnowledgeBase) -> None:
    source = """
    import torch

    def f(ids: torch.Tensor, emb: torch.Tensor, other):
        mask = (ids != -1).type_as(emb)
        a = mask.sum(dim=-2).clamp(min=1e-7)
        counts = (ids != -1).sum(-1)
        b = counts.clamp(min=0.5)
        c = ids.long().to(emb).clamp(min=0.5)
        d = emb.to(torch.long).clamp(min=0.5)
        e = emb.new_zeros(3, dtype=torch.long).clamp(min=0.5)
        g = emb.type_as(other).clamp(min=0.5)
        return a, b, c, d, e, g
    """
    assert found(kb, source, CLAMP) == {8: "high", 10: "high", 11: "high"}
