from auditor.harvest.deprecations import find_sites
from auditor.harvest.model import Site
from auditor.harvest.surface import Surface
from tests.harvest.test_surface import sources
from tests.harvest.wheels import NEW


def sites(files: dict[str, str], package: str = "tiny") -> dict[tuple[str, str | None], Site]:
    parsed = sources(files)
    found, _ = find_sites(parsed, Surface(parsed, package).symbols())
    return {(s.symbol, s.guard): s for s in found}


def test_guarded_warning_keeps_its_category_message_and_guard() -> None:
    site = sites(NEW)[("tiny.keep", "dim is None")]
    assert (site.kind, site.category, site.message) == ("warning", "FutureWarning",
                                                        "calling keep without dim is deprecated")
    assert (site.file, site.line) == ("tiny/__init__.py", 11)


def test_private_helper_belongs_to_its_public_callers_with_the_guard_of_the_call() -> None:
    found = sites(NEW)
    softmax = found[("tiny.softmax", "dim is None")]  # canonical name: the shortest public one
    assert softmax.via == "_get_dim"
    assert softmax.message == "Implicit dimension choice for {name} has been deprecated."
    assert softmax.file == "tiny/functional.py"


def test_helper_guard_is_said_in_the_callers_terms() -> None:
    found = sites(NEW)
    mse = found[("tiny.mse", "size_average is not None or reduce is not None")]
    assert mse.via == "legacy_get_string"
    assert mse.message.startswith("size_average and reduce args will be deprecated")
    # emit_warning=False: this caller never reaches the warning
    assert not any(symbol == "tiny.quiet" for symbol, _ in found)


def test_decorator_stub_and_getattr_hook() -> None:
    found = sites(NEW)
    decorated = found[("tiny.decorated", None)]
    assert (decorated.kind, decorated.category) == ("decorator", "FutureWarning")
    eig = found[("tiny.eig", None)]
    assert (eig.kind, eig.category) == ("stub", "error")
    assert "removed" in eig.message
    hook = found[("tiny.has_thing", None)]
    assert (hook.kind, hook.category, hook.message) == ("getattr", "UserWarning", "'{name}' is deprecated")


def test_private_base_class_warning_belongs_to_public_subclasses() -> None:
    files = {
        "tiny/__init__.py": "from .loss import L1Loss\n",
        "tiny/loss.py": '''
from . import _reduction as _Reduction

class _Loss:
    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        if size_average is not None or reduce is not None:
            self.reduction = _Reduction.legacy_get_string(size_average, reduce)

class L1Loss(_Loss):
    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
''',
        "tiny/_reduction.py": NEW["tiny/_reduction.py"],
    }
    found = sites(files)
    assert ("tiny.L1Loss", "size_average is not None or reduce is not None") in found


def test_numpy_style_tables_of_removed_names() -> None:
    files = {
        "numpy/__init__.py": '''
import warnings
from ._expired_attrs_2_0 import __expired_attributes__

__former_attrs__ = {"float": "`np.float` was a deprecated alias for the builtin `float`."}

def __getattr__(attr):
    if attr == "chararray":
        warnings.warn("`np.chararray` is deprecated", DeprecationWarning)
        return 1
    if attr in ("linalg", "fft"):
        return 2
    raise AttributeError(attr)
''',
        "numpy/_expired_attrs_2_0.py": '__expired_attributes__ = {\n    "compat": "There is no replacement.",\n}\n',
    }
    found = sites(files, "numpy")
    assert found[("numpy.compat", None)].kind == "expired"
    assert found[("numpy.compat", None)].line == 2
    assert found[("numpy.float", None)].message.startswith("`np.float` was a deprecated alias")
    assert found[("numpy.chararray", None)].category == "DeprecationWarning"
    assert ("numpy.linalg", None) not in found  # compared in the hook, but not where it warns


def test_user_warning_without_deprecation_words_is_not_a_site() -> None:
    files = {"tiny/__init__.py": "import warnings\ndef f(x):\n    warnings.warn('x is large')\n    return x\n"}
    assert sites(files) == {}


def test_a_condition_not_on_the_arguments_marks_the_site_conditional() -> None:
    files = {"tiny/__init__.py": '''
import warnings

class Scaler:
    def step(self, optimizer):
        if self._enabled:
            warnings.warn("passing the scaler is deprecated", FutureWarning)

def always(x):
    warnings.warn("always is deprecated", FutureWarning)

def on_error(x):
    try:
        return int(x)
    except ValueError:
        warnings.warn("strings are deprecated", FutureWarning)
'''}
    found = sites(files)
    assert found[("tiny.Scaler.step", None)].conditional
    assert not found[("tiny.always", None)].conditional
    assert found[("tiny.on_error", None)].conditional


def test_a_helper_called_with_star_args_binds_nothing_after_the_star() -> None:
    files = {
        "tiny/__init__.py": "from .ops import run\n",
        "tiny/ops.py": '''
import warnings

def _check(mode, strict=True):
    if strict:
        warnings.warn("non-strict mode is deprecated", FutureWarning)

def run(*args):
    _check(*args)
''',
    }
    site = sites(files)[("tiny.run", None)]
    assert site.conditional  # `strict` comes from *args: its guard cannot be said for run


def test_deprecated_on_an_overload_is_no_site_the_implementation_body_is() -> None:
    # torch 2.12's flex_attention: `@overload @deprecated(...)` marks the `return_lse=True`
    # overload for type checkers; at runtime only the implementation runs, and warns under a guard.
    files = {"tiny/__init__.py": '''
import warnings
from typing import Literal, overload
from typing_extensions import deprecated

@overload
def attend(q, return_lse: Literal[False] = ...): ...

@overload
@deprecated("return_lse is deprecated", category=FutureWarning)
def attend(q, return_lse: Literal[True] = ...): ...

def attend(q, return_lse=False):
    if return_lse:
        warnings.warn("return_lse is deprecated", FutureWarning)
    return q
'''}
    found = sites(files)
    assert set(found) == {("tiny.attend", "return_lse")}
    assert found[("tiny.attend", "return_lse")].kind == "warning"
