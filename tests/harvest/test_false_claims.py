"""Shapes that once made the harvest claim a change that did not happen, each on two small
releases of a package `tiny` written as its wheel would hold them."""

from auditor.harvest.candidates import compare
from auditor.harvest.generate import spec_change
from tests.harvest.test_candidates import release

QUANT_OLD = {
    "tiny/__init__.py": "",
    "tiny/quant/__init__.py": "from .quantize import *\n",
    "tiny/quant/quantize.py": "def prepare(model):\n    return model\n\ndef convert(model):\n    return model\n",
}
QUANT_NEW = {  # the code moved; the old module re-exports it without an `__all__`
    "tiny/__init__.py": "",
    "tiny/quant/__init__.py": "from .quantize import *\n",
    "tiny/quant/quantize.py": "from tiny.ao.quantize import prepare\nfrom tiny.ao.quantize import convert, _helper\n",
    "tiny/ao/__init__.py": "",
    "tiny/ao/quantize.py": "def prepare(model):\n    return model\n\ndef convert(model):\n    return model\n\n"
                           "def _helper():\n    return 0\n",
}


def removed(old: dict[str, str], new: dict[str, str]) -> set[str]:
    return {c.symbol for c in compare(release(old, "1.0"), release(new, "1.1")) if c.kind == "symbol-removed"}


def test_a_star_import_brings_the_names_a_module_without_all_imports() -> None:
    assert removed(QUANT_OLD, QUANT_NEW) == set()
    gone = dict(QUANT_NEW, **{"tiny/quant/quantize.py": "from tiny.ao.quantize import prepare\n"})
    assert removed(QUANT_OLD, gone) == {"tiny.quant.convert", "tiny.quant.quantize.convert"}


def test_a_stubs_imports_are_not_star_exported() -> None:
    files = {"tiny/__init__.py": "from tiny._C import *\n",
             "tiny/_C/__init__.pyi": "from tiny.package import Exporter\n\ndef cfunc(x: Exporter) -> int: ...\n",
             "tiny/package.py": "class Exporter:\n    pass\n"}
    names = release(files, "1.0").by_name()
    assert "tiny.cfunc" in names and "tiny.Exporter" not in names


def test_names_bound_by_a_globals_loop_over_another_modules_all_are_public() -> None:
    old = {"tiny/__init__.py": "", "tiny/testing/__init__.py": "from ._core import *\n",
           "tiny/testing/_core.py": "__all__ = ['complex_types']\n\ndef complex_types():\n    return ()\n"}
    new = {"tiny/__init__.py": "", "tiny/testing/__init__.py": "from ._deprecated import *\n",
           "tiny/testing/_getters.py": "__all__ = ['complex_types', '_hidden']\n\n"
                                       "def complex_types():\n    return ()\n\ndef _hidden():\n    return 0\n",
           "tiny/testing/_deprecated.py": '''
import warnings
from . import _getters

__all__ = []

def warn_deprecated(fn):
    def inner(*args):
        warnings.warn("deprecated", FutureWarning)
        return fn(*args)
    return inner

for name in _getters.__all__:
    if name.startswith("_"):
        continue
    globals()[name] = warn_deprecated(getattr(_getters, name))
    __all__.append(name)
'''}
    assert removed(old, new) == set()
    assert "tiny.testing.complex_types" in release(new, "1.1").by_name()
    assert "tiny.testing._hidden" not in release(new, "1.1").by_name()


def test_a_method_that_becomes_an_attribute_set_in_init_is_not_removed() -> None:
    old = {"tiny/__init__.py": "from ._conv import Conv2d\n", "tiny/_conv.py": '''
class _ConvNd:
    def scale(self):
        return 1.0

class Conv2d(_ConvNd):
    def __init__(self, channels):
        super().__init__()
'''}
    new = {"tiny/__init__.py": "from ._conv import Conv2d\n", "tiny/_conv.py": '''
class _ConvNd:
    def __init__(self):
        self.scale = 1.0

class Conv2d(_ConvNd):
    def __init__(self, channels):
        super().__init__()
'''}
    assert removed(old, new) == set()
    assert removed(old, {"tiny/__init__.py": "from ._conv import Conv2d\n", "tiny/_conv.py":
                         "class Conv2d:\n    def __init__(self, channels):\n        self.channels = channels\n"}) \
        == {"tiny.Conv2d.scale"}


def test_a_device_default_and_its_string_are_one_value() -> None:
    old = {"tiny/__init__.py": "def to(x, device=-1):\n    return x\n\ndef on(x, device=device('cuda')):\n    return x\n"}
    new = {"tiny/__init__.py": "def to(x, device='cuda'):\n    return x\n\ndef on(x, device='cuda'):\n    return x\n"}
    found = {(c.kind, c.symbol) for c in compare(release(old, "1.0"), release(new, "1.1"))}
    assert found == {("default-changed", "tiny.to")}


def test_a_message_held_in_module_constants_is_printed() -> None:
    files = {"tiny/__init__.py": '''
from typing_extensions import deprecated

BASE = "this call is deprecated"
DEPRECATION_WARNING = f"{BASE}; pass the step " + "instead"

@deprecated(DEPRECATION_WARNING, category=FutureWarning)
def step(x):
    return x

class Scheduler:
    def step(self, epoch=None):
        if epoch is not None:
            warnings.warn(BASE, UserWarning)
'''}
    old = {"tiny/__init__.py": "def step(x):\n    return x\n\nclass Scheduler:\n    def step(self, epoch=None):\n"
                               "        return epoch\n"}
    messages = {c.symbol: c.evidence[-1].message for c in compare(release(old, "1.0"), release(files, "1.1"))
                if c.kind == "deprecation-begins"}
    assert messages["tiny.step"] == "this call is deprecated; pass the step instead"
    assert messages["tiny.Scheduler.step"] == "this call is deprecated"


def test_a_removal_says_what_to_do_not_where_it_was_defined() -> None:
    gone = {"tiny/__init__.py": "def keep(x):\n    return x\n"}
    was = {"tiny/__init__.py": "def keep(x):\n    return x\n\ndef drop(x):\n    return x\n"}
    candidate = next(c for c in compare(release(was, "1.0"), release(gone, "1.1")) if c.symbol == "tiny.drop")
    advice = spec_change(candidate, ()).docs.adopt_new
    assert "defined here" not in advice
    assert advice == "stop using tiny.drop: tiny 1.1 no longer defines it"


def test_a_name_bound_to_what_a_call_returns_does_not_take_the_callees_parameters() -> None:
    old = {"tiny/__init__.py": "from .functional import *\n",
           "tiny/functional.py": "__all__ = ['unique']\n\ndef unique(input, dim=None):\n    return input\n"}
    new = {"tiny/__init__.py": "from .functional import *\n",
           "tiny/_jit_internal.py": "def boolean_dispatch(arg_name, arg_index, default, if_true, if_false):\n"
                                    "    def fn(*args, **kwargs):\n        return if_true(*args, **kwargs)\n"
                                    "    return fn\n",
           "tiny/functional.py": "from ._jit_internal import boolean_dispatch\n__all__ = ['unique']\n\n"
                                 "def _unique_impl(input, dim=None):\n    return input\n\n"
                                 "unique = boolean_dispatch(arg_name='dim', arg_index=1, default=False,\n"
                                 "                          if_true=_unique_impl, if_false=_unique_impl)\n"}
    assert compare(release(old, "1.0"), release(new, "1.1")) == []
    assert release(new, "1.1").by_name()["tiny.functional.unique"].params == ()


def test_a_class_built_by_new_keeps_its_parameters() -> None:
    old = {"tiny/__init__.py": "class Event:\n    def __init__(self, enable_timing=False, blocking=False):\n"
                               "        self.timing = enable_timing\n"}
    new = {"tiny/__init__.py": "class Event(object):\n    def __new__(cls, enable_timing=False, blocking=False):\n"
                               "        return super().__new__(cls)\n"}
    assert compare(release(old, "1.0"), release(new, "1.1")) == []
    gone = {"tiny/__init__.py": "class Event(object):\n    def __new__(cls, enable_timing=False):\n"
                                "        return super().__new__(cls)\n"}
    assert {c.id for c in compare(release(old, "1.0"), release(gone, "1.1"))} == {
        "tiny@1.1:parameter-removed:tiny.Event:blocking"}


def test_a_member_only_a_stub_names_on_a_class_its_source_defines_was_never_there() -> None:
    source = "class ParameterList:\n    def append(self, p):\n        return self\n"
    old = {"tiny/__init__.py": "from .container import ParameterList\n", "tiny/container.py": source,
           "tiny/container.pyi": "class ParameterList:\n    def append(self, p: int) -> None: ...\n"
                                 "    def insert(self, index: int, p: int) -> None: ...\n"}
    new = {"tiny/__init__.py": "from .container import ParameterList\n", "tiny/container.py": source}
    assert "tiny.ParameterList.insert" not in release(old, "1.0").by_name()
    assert compare(release(old, "1.0"), release(new, "1.1")) == []


def test_a_stubs_self_of_a_module_function_is_called_input() -> None:
    old = {"tiny/__init__.py": "def argmax(input, dim=None):\n    return input\n"}
    new = {"tiny/__init__.py": "from ._C import *\n",
           "tiny/_C/__init__.pyi": "def argmax(self: int, dim: int = None) -> int: ...\n"}
    assert compare(release(old, "1.0"), release(new, "1.1")) == []
    assert [p.name for p in release(new, "1.1").by_name()["tiny.argmax"].params] == ["input", "dim"]


def test_a_stub_that_leaves_out_a_factorys_tensor_options_removes_nothing() -> None:
    old = {"tiny/__init__.py": "from ._C import *\n", "tiny/_C/__init__.pyi":
           "def linspace(start: int, end: int, *, dtype: int = None, layout: int = strided, device: str = None,\n"
           "             pin_memory: bool = False, scale: int = 1) -> int: ...\n"}
    new = {"tiny/__init__.py": "from ._C import *\n", "tiny/_C/__init__.pyi":
           "def linspace(start: int, end: int, *, dtype: int = None, device: str = None) -> int: ...\n"}
    found = {c.id for c in compare(release(old, "1.0"), release(new, "1.1"))}
    assert found == {"tiny@1.1:parameter-removed:tiny.linspace:scale"}


def test_a_function_and_its_name_are_one_default() -> None:
    old = {"tiny/__init__.py": "class Layer:\n    def __init__(self, activation='relu', mode='sum'):\n"
                               "        self.activation = activation\n"}
    new = {"tiny/__init__.py": "import tiny.functional as F\n\nclass Layer:\n"
                               "    def __init__(self, activation=F.relu, mode='mean'):\n"
                               "        self.activation = activation\n",
           "tiny/functional.py": "def relu(x):\n    return x\n"}
    found = {c.id for c in compare(release(old, "1.0"), release(new, "1.1"))}
    assert found == {"tiny@1.1:default-changed:tiny.Layer:mode"}


def test_a_private_parameter_in_a_removed_ones_place_is_not_its_new_name() -> None:
    old = {"tiny/__init__.py": "class Traced:\n    def __init__(self, orig, id_set=None, optimize=True):\n"
                               "        self.orig = orig\n"}
    new = {"tiny/__init__.py": "class Traced:\n    def __init__(self, orig, id_set=None, _unit=None):\n"
                               "        self.orig = orig\n"}
    found = {c.id for c in compare(release(old, "1.0"), release(new, "1.1"))}
    assert found == {"tiny@1.1:parameter-removed:tiny.Traced:optimize"}


def test_a_stubs_named_tuple_helper_is_no_public_name() -> None:
    files = {"tiny/__init__.py": "from tiny._C import *\nfrom ._rt import Pair\n",
             "tiny/_rt.py": "from typing import NamedTuple\n\nPair = NamedTuple('Pair', [('a', int)])\n",
             "tiny/_C/__init__.pyi": "from typing import NamedTuple\n\n"
                                     "namedtuple_Q_R = NamedTuple('namedtuple_Q_R', [('Q', int), ('R', int)])\n"
                                     "def qr(x: int) -> namedtuple_Q_R: ...\n"}
    names = release(files, "1.0").by_name()
    assert "tiny.qr" in names and "tiny.Pair" in names
    assert "tiny.namedtuple_Q_R" not in names


def test_a_stubs_named_tuple_helper_is_no_public_name_when_its_all_lists_it() -> None:
    stub = ("from typing import NamedTuple\n\n__all__ = ['namedtuple_Q_R', 'qr']\n\n"
            "namedtuple_Q_R = NamedTuple('namedtuple_Q_R', [('Q', int), ('R', int)])\n"
            "def qr(x: int) -> namedtuple_Q_R: ...\n")
    old = {"tiny/__init__.py": "from tiny._C._VariableFunctions import *\n",
           "tiny/_C/__init__.pyi": "", "tiny/_C/_VariableFunctions.pyi": stub}
    new = dict(old, **{"tiny/_C/_VariableFunctions.pyi": "__all__ = ['qr']\n\ndef qr(x: int) -> tuple[int, int]: ...\n"})
    names = release(old, "1.0").by_name()
    assert "tiny.qr" in names and "tiny.namedtuple_Q_R" not in names
    assert removed(old, new) == set()


def test_a_parameter_in_a_reshuffled_signature_is_removed_not_renamed() -> None:
    old = {"tiny/__init__.py": "class Context:\n    def __init__(self, name, stdouts, stderrs, start_method):\n"
                               "        self.name = name\n"}
    new = {"tiny/__init__.py": "class Context:\n    def __init__(self, name, start_method, logs_specs):\n"
                               "        self.name = name\n"}
    found = {c.id for c in compare(release(old, "1.0"), release(new, "1.1"))}
    assert found == {"tiny@1.1:parameter-removed:tiny.Context:stdouts",
                     "tiny@1.1:parameter-removed:tiny.Context:stderrs"}
    batch = {"tiny/__init__.py": "class Batch:\n    def __init__(self, values):\n        self.values = values\n"}
    was = {"tiny/__init__.py": "class Batch:\n    def __init__(self, value):\n        self.value = value\n"}
    assert {c.id for c in compare(release(was, "1.0"), release(batch, "1.1"))} == {
        "tiny@1.1:parameter-renamed:tiny.Batch:value"}
