"""The scanner's model of scopes, bindings and tags, tested directly (pyflakes-style), then the
blind spots it closes, each through the findings of a real knowledge entry.

`tag_of(source, expression)` and `binding_of(source, name, line)` ask the resolver about one
module without going through knowledge-base ids, so editing an entry cannot break them.
"""

from __future__ import annotations

import ast
import textwrap

import pytest

from auditor.knowledge.base import KnowledgeBase
from auditor.scan import RuleIndex, scan_source
from auditor.scan.bindings import (
    Annotated,
    Assignment,
    Binding,
    Definition,
    ExceptAs,
    ForTarget,
    Import,
    MatchCapture,
    Parameter,
    Unpacking,
)
from auditor.scan.names import Resolver
from auditor.scan.scopes import Scope, lookup
from auditor.scan.tags import (
    BOOL_TENSOR,
    FLOAT,
    FLOAT_TENSOR,
    INT,
    INT_TENSOR,
    MODULE,
    NDARRAY,
    TENSOR,
    Tag,
    instance,
)


def _locate(source: str, expression: str, line: int | None) -> tuple[Resolver, ast.expr, Scope]:
    tree = ast.parse(textwrap.dedent(source))
    resolver = Resolver(tree)
    expression = ast.unparse(ast.parse(expression, mode="eval").body)
    scopes = {id(node): where[0] for _, node, where in resolver.sites}
    for node in ast.walk(tree):
        if isinstance(node, ast.expr) and ast.unparse(node) == expression and line in (None, node.lineno):
            for part in ast.walk(node):
                if id(part) in scopes:
                    return resolver, node, scopes[id(part)]
    raise AssertionError(f"{expression!r} is not read in the source")


def tag_of(source: str, expression: str, line: int | None = None) -> Tag | None:
    resolver, node, scope = _locate(source, expression, line)
    return resolver.tag(node, scope)


def qualified_of(source: str, expression: str, line: int | None = None) -> str | None:
    resolver, node, scope = _locate(source, expression, line)
    return resolver.qualified(node, scope)


def binding_of(source: str, name: str, line: int) -> list[type[Binding]]:
    """The kinds of the bindings `name`, read on `line`, is looked up in."""
    _, _, scope = _locate(source, name, line)
    owner = lookup(name, scope)
    return [type(b) for b in owner.bindings[name]] if owner is not None else []


# -- bindings ---------------------------------------------------------------------------------

BINDINGS = """
import torch
from torch import load
import numpy as np

def f(p: torch.Tensor, *rest):
    a = torch.arange(3)
    b, c = divmod(7, 2)
    for d in range(3):
        pass
    e: torch.Tensor
    try:
        pass
    except ImportError as load:
        pass
    match p:
        case [x, *others]:
            pass
    return a, b, c, d, e, load, x, others, rest, p, np

class K:
    pass

print(K, load)
"""


@pytest.mark.parametrize(
    ("name", "kinds"),
    [
        ("a", [Assignment]),
        ("b", [Unpacking]),
        ("d", [ForTarget]),
        ("e", [Annotated]),
        ("p", [Parameter]),
        ("rest", [Definition]),
        ("load", [ExceptAs]),
        ("x", [MatchCapture]),
        ("others", [MatchCapture]),
        ("np", [Import]),
    ],
)
def test_each_way_of_binding_a_name_is_its_own_kind(name: str, kinds: list[type[Binding]]) -> None:
    assert binding_of(BINDINGS, name, 19) == kinds


def test_a_name_outside_the_function_is_looked_up_in_the_module() -> None:
    assert binding_of(BINDINGS, "load", 24) == [Import]
    assert binding_of(BINDINGS, "K", 24) == [Definition]


def test_global_and_nonlocal_names_live_where_they_are_declared() -> None:
    source = """
    import torch
    def setup():
        global idx
        idx = torch.arange(10)
    def use():
        return idx
    def outer():
        ids = None
        def inner():
            nonlocal ids
            ids = torch.arange(3)
            return ids
        return ids
    """
    assert binding_of(source, "idx", 7) == [Assignment]
    assert tag_of(source, "idx", 7) == INT_TENSOR
    assert binding_of(source, "ids", 13) == [Assignment, Assignment]
    assert tag_of(source, "ids", 14) == INT_TENSOR


def test_class_bodies_are_seen_from_themselves_only() -> None:
    source = """
    import torch
    class A:
        scale = torch.arange(3)
        doubled = scale * 2
        def f(self):
            return scale
    scale = 1.5
    """
    assert tag_of(source, "scale * 2") == INT_TENSOR
    assert tag_of(source, "scale", 7) == FLOAT


# -- tags -------------------------------------------------------------------------------------

TAGS = """
import numpy as np
import numpy.typing as npt
import torch
from torch import nn

def f(n: int, a: np.ndarray, b: npt.NDArray[np.float32], opt: torch.optim.Optimizer, items):
    ids = torch.arange(n)
    x = torch.randn(3)
    mask = x > 0
    arr = np.zeros(3)
    layer = nn.Linear(2, 2)
    sgd = torch.optim.SGD(layer.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.StepLR(sgd, 1)
    batch = {"t": torch.arange(3), "name": "x"}
    return ids, x, mask, mask.sum(), batch["t"], batch["name"], arr, layer, sgd, sched, batch, a, b, opt, len(items), x / 2
"""


@pytest.mark.parametrize(
    ("expression", "tag"),
    [
        ("ids", INT_TENSOR),
        ("x", FLOAT_TENSOR),
        ("mask", BOOL_TENSOR),
        ("mask.sum()", INT_TENSOR),
        ("arr", NDARRAY),
        ("a", NDARRAY),
        ("b", NDARRAY),
        ("layer", Tag("module", "torch", "torch.nn.Linear")),  # its own class, then nn.Module's matchers
        ("sgd", instance("torch.optim.SGD")),
        ("opt", instance("torch.optim.Optimizer")),
        ("sched", instance("torch.optim.lr_scheduler.StepLR")),
        ('batch["t"]', INT_TENSOR),
        ('batch["name"]', None),
        ("len(items)", INT),
        ("x / 2", FLOAT_TENSOR),
        ("items", None),
    ],
)
def test_tags(expression: str, tag: Tag | None) -> None:
    assert tag_of(TAGS, expression) == tag


def test_a_dict_item_is_a_tensor_only_where_every_binding_built_it_so() -> None:
    source = """
    import torch
    batch = {"t": torch.arange(3)}
    other = {"t": torch.arange(3)}
    other["t"] = "changed"
    loaded = load_batch()
    spread = {"t": torch.arange(3), **loaded}
    print(batch["t"], other["t"], loaded["t"], spread["t"])
    """
    assert tag_of(source, 'batch["t"]') == INT_TENSOR
    assert tag_of(source, 'other["t"]', 8) is None
    assert tag_of(source, 'loaded["t"]') is None
    assert tag_of(source, 'spread["t"]') is None


def test_subclass_chains_of_any_depth_in_any_order() -> None:
    source = """
    from torch import nn
    class E(D): pass
    class D(C): pass
    class C(B): pass
    class B(A): pass
    class A(nn.Module): pass
    print(E(), B())
    """
    assert tag_of(source, "E()") == MODULE
    assert tag_of(source, "B()") == MODULE


def test_star_imports_give_qualified_names_but_leave_builtins() -> None:
    source = """
    from torch import *
    t = arange(10)
    print(max(t), floor_divide(t, 2))
    """
    assert tag_of(source, "t", 4) == INT_TENSOR
    assert qualified_of(source, "floor_divide") == "torch.floor_divide"
    assert qualified_of(source, "max") is None


def test_an_attribute_alias_of_self_is_qualified() -> None:
    source = """
    import torch
    class M:
        def __init__(self):
            self.op = torch.floor_divide
        def run(self, t):
            return self.op(t, 2)
    """
    assert qualified_of(source, "self.op", 7) == "torch.floor_divide"


def test_except_as_and_match_captures_unmake_an_import() -> None:
    source = """
    from torch import load
    def f(p):
        try:
            pass
        except ImportError as load:
            return load
    def g(cfg):
        match cfg:
            case {"fn": load}:
                return load
    def h():
        return load
    """
    assert qualified_of(source, "load", 7) is None
    assert qualified_of(source, "load", 11) is None
    assert qualified_of(source, "load", 13) == "torch.load"


def test_arange_of_an_int_is_an_int_tensor() -> None:
    source = """
    import torch
    def f(items):
        n = len(items)
        return torch.arange(n), torch.arange(n, 0.5), torch.tensor(n)
    """
    assert tag_of(source, "torch.arange(n)") == INT_TENSOR
    assert tag_of(source, "torch.arange(n, 0.5)") == FLOAT_TENSOR
    assert tag_of(source, "torch.tensor(n)") == INT_TENSOR


def test_tags_are_values_not_strings() -> None:
    assert INT_TENSOR == Tag("tensor", "int") and INT_TENSOR != TENSOR
    assert repr(INT_TENSOR) == "tensor:int"


# -- blind spots, through real entries ---------------------------------------------------------

FLOOR = "torch-floor-divide-rounds-toward-floor"
LOAD = "torch-load-weights-only-default-true"
ZERO_GRAD = "torch-zero-grad-set-to-none-default"
STEP = "torch-lr-scheduler-step-epoch-deprecated"
CLAMP = "torch-clamp-type-promotion"
NDARRAY_METHODS = "numpy-ndarray-methods-removed"
WARNINGS = "numpy-warning-classes-moved-to-exceptions"
LIB_SUBMODULES = "numpy-lib-submodules-private"


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return KnowledgeBase.load()


def findings(kb: KnowledgeBase, source: str, *entries: str) -> list[tuple[int, str]]:
    index = RuleIndex.build(kb.get(e) for e in entries)
    return sorted((f.line, f.symbol) for f in scan_source(textwrap.dedent(source), "case.py", index))


def lines(kb: KnowledgeBase, source: str, *entries: str) -> list[int]:
    return [line for line, _ in findings(kb, source, *entries)]


def test_except_as_rebinds_an_imported_name(kb: KnowledgeBase) -> None:
    source = """
    from torch import load
    def read(p):
        try:
            return open(p).read()
        except ImportError as load:
            print(load(p))
    def restore(p):
        return load(p)
    """
    assert lines(kb, source, LOAD) == [9]


def test_a_module_level_except_as_holds_inside_its_handler_only(kb: KnowledgeBase) -> None:
    source = """
    from torch import load
    try:
        import yaml
    except ImportError as load:
        print(load(1))
    model = load("m.pt")
    """
    assert lines(kb, source, LOAD) == [7]


def test_global_and_nonlocal_bindings_across_functions(kb: KnowledgeBase) -> None:
    source = """
    import torch
    def setup():
        global idx
        idx = torch.arange(-10, 10)
    def use():
        return idx // 2
    def outer():
        ids = None
        def fill():
            nonlocal ids
            ids = torch.arange(-3, 3)
        fill()
        return ids // 2
    """
    assert lines(kb, source, FLOOR) == [7, 14]


def test_match_captures_are_bindings(kb: KnowledgeBase) -> None:
    source = """
    import torch
    from torch import load
    def f(cfg, p):
        match cfg:
            case {"loader": load}:
                return load(p)
    def g(p):
        t = torch.arange(4)
        match t:
            case whole:
                return whole // 2
    """
    assert lines(kb, source, LOAD, FLOOR) == [12]


def test_deep_subclass_chains_declared_subclass_first(kb: KnowledgeBase) -> None:
    source = """
    import torch
    class E(D): pass
    class D(C): pass
    class C(B): pass
    class B(A): pass
    class A(torch.nn.Module): pass
    def f(x):
        model = E()
        out = model(x)
        return out // 2
    """
    assert lines(kb, source, FLOOR) == [11]


def test_the_receiver_type_decides_which_entry_applies(kb: KnowledgeBase) -> None:
    source = """
    import torch
    model = torch.nn.Linear(2, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.StepLR(opt, 1)
    opt.zero_grad()
    opt.step(epoch=3)
    sched.step(epoch=3)
    print(model.weight.grad is None)
    """
    assert findings(kb, source, ZERO_GRAD, STEP) == [
        (6, "torch.optim.Optimizer.zero_grad"),
        (8, "torch.optim.lr_scheduler.LRScheduler.step"),
    ]


def test_dict_items_built_from_tensors_in_view(kb: KnowledgeBase) -> None:
    source = """
    import torch
    batch = {"t": torch.arange(3)}
    a = batch["t"] // 2
    def f(loaded):
        return loaded["t"] // 2
    """
    assert lines(kb, source, FLOOR) == [4]


def test_an_alias_held_in_self(kb: KnowledgeBase) -> None:
    source = """
    import torch
    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.op = torch.floor_divide
        def forward(self, t):
            return self.op(t, 2)
    """
    assert findings(kb, source, FLOOR) == [(8, "torch.floor_divide")]


def test_star_import_of_torch(kb: KnowledgeBase) -> None:
    source = """
    from torch import *
    t = arange(10)
    a = floor_divide(t, 2)
    b = max(3, 4) // 2
    """
    assert lines(kb, source, FLOOR) == [4]


def test_an_integer_tensor_from_a_count_clamped_with_a_float(kb: KnowledgeBase) -> None:
    source = """
    import torch
    def f(items):
        idx = torch.arange(len(items))
        return idx.clamp(min=0.5)
    """
    assert lines(kb, source, CLAMP) == [5]


def test_an_integer_tensor_clamped_with_integer_tensor_bounds_is_low(kb: KnowledgeBase) -> None:
    # int64 clamped by an int64 tensor stays int64; only a narrower input widens, and the widths
    # are not in view: low, where a float bound on the same tensor is high
    source = """
    import torch
    def f(shapes):
        idx = torch.arange(10)
        width = torch.arange(3)[0]
        a = idx.clamp(0, width - 1)
        b = idx.clamp(0, 0.5)
    """
    index = RuleIndex.build([kb.get(CLAMP)])
    found = sorted((f.line, f.confidence) for f in scan_source(textwrap.dedent(source), "case.py", index))
    assert found == [(6, "low"), (7, "high")]


def test_numpy_array_methods(kb: KnowledgeBase) -> None:
    source = """
    import numpy as np
    import numpy.typing as npt
    def f(a: np.ndarray, b: npt.NDArray[np.float32], c):
        z = np.zeros(3)
        z.ptp()
        a.itemset(0, 1.0)
        b.newbyteorder()
        c.ptp()
        return z.dtype.newbyteorder("S")
    """
    assert findings(kb, source, NDARRAY_METHODS) == [
        (6, "numpy.ndarray.ptp"), (7, "numpy.ndarray.itemset"), (8, "numpy.ndarray.newbyteorder"),
    ]


def test_a_fallback_under_except_attribute_error_is_not_a_use(kb: KnowledgeBase) -> None:
    source = """
    import numpy as np
    try:
        warning = np.exceptions.ComplexWarning
    except AttributeError:
        warning = np.ComplexWarning
    try:
        import scipy
    except Exception:
        other = np.ComplexWarning
    """
    assert lines(kb, source, WARNINGS) == [10]


def test_an_import_from_a_numpy_module_gone_in_2_0(kb: KnowledgeBase) -> None:
    source = """
    from numpy.lib.function_base import median
    import numpy.lib.utils
    try:
        from numpy.lib.index_tricks import r_
    except ImportError:
        from numpy import r_
    print(median([1, 2]), numpy.lib.utils, r_)
    """
    assert findings(kb, source, LIB_SUBMODULES) == [
        (2, "numpy.lib.function_base"), (3, "numpy.lib.utils"), (8, "numpy.lib.utils"),
    ]


# -- found by the recall labels on real packages (benchmarks/recall.py) ---------------------------


def test_loop_targets_follow_enumerate_and_zip_element_by_element() -> None:
    source = """
    import torch
    ids = torch.arange(8).view(2, 4)
    for rank, (token, score) in enumerate(zip(ids[0], [0.5, 0.25])):
        print(token, score, rank)
    for a, b in zip(range(3), ids):
        print(a, b)
    """
    assert tag_of(source, "token") == TENSOR  # fairseq's MMPT beam search: `token // vocab_size`
    assert tag_of(source, "score") is None
    assert tag_of(source, "rank") is None
    assert tag_of(source, "a") == INT
    assert tag_of(source, "b") == TENSOR


def test_a_method_of_self_in_a_module_class_is_not_a_tensor_method(kb: KnowledgeBase) -> None:
    source = """
    import torch
    from speechbrain.processing.features import STFT

    class Enhancer(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.stft = STFT(sample_rate=16000)

        def forward(self, x):
            return self.stft(x)

    class Spectral(torch.Tensor):
        def spectrum(self):
            return self.stft(400)

    def spec(x):
        return x.stft(400)
    """
    assert lines(kb, source, "torch-stft-return-complex-required") == [15, 18]


def test_an_instance_of_a_torch_class_carries_its_class_only_where_it_is_one() -> None:
    from auditor.scan.tagging import classes_of

    source = """
    import torch
    from typing import List, Optional
    from torch.utils.tensorboard import SummaryWriter
    from torch import nn
    class Stream:
        pass
    def f(w: SummaryWriter, o: Optional[torch.cuda.Stream], many: List[torch.cuda.Stream], x):
        s = torch.cuda.Stream()
        mine = Stream()
        v = torch.autograd.Variable(x)
        lstm = nn.LSTM(2, 2)
        adam = torch.optim.Adam(lstm.parameters())
        print(s, w, o, many, mine, v, x, lstm, adam)
    """
    assert tag_of(source, "s", 14) == instance("torch.cuda.Stream")
    assert tag_of(source, "w", 14) == instance("torch.utils.tensorboard.SummaryWriter")
    assert tag_of(source, "o", 14) == instance("torch.cuda.Stream")
    assert tag_of(source, "many", 14) is None  # a list of streams is not a stream
    # the project's own class of the same name: an object of its own, not torch.cuda.Stream
    assert tag_of(source, "mine", 14) == instance("<project>.Stream")
    assert tag_of(source, "v", 14) == TENSOR  # Variable(x) gives a tensor
    assert tag_of(source, "x", 14) is None
    assert classes_of(tag_of(source, "lstm", 14)) == ("torch.nn.LSTM", "torch.nn.Module")
    assert classes_of(tag_of(source, "adam", 14)) == ("torch.optim.Adam", "torch.optim.Optimizer")
