import ast

from auditor.harvest.candidates import KINDS, candidate_id, compare
from auditor.harvest.model import Release
from auditor.harvest.surface import Surface
from auditor.harvest.deprecations import find_sites
from tests.harvest.test_surface import sources
from tests.harvest.wheels import NEW, OLD


def release(files: dict[str, str], version: str) -> Release:
    parsed = sources(files)
    surface = Surface(parsed, "tiny")
    symbols = surface.symbols()
    found, _ = find_sites(parsed, symbols)
    return Release("tiny", version, f"tiny-{version}.whl", tuple(symbols), tuple(found), surface.stubs)


def candidates() -> dict[str, object]:
    return {c.id: c for c in compare(release(OLD, "1.0"), release(NEW, "2.0"))}


def test_every_kind_of_candidate_with_its_evidence() -> None:
    found = candidates()
    kinds = {c.kind for c in found.values()}  # type: ignore[attr-defined]
    assert kinds == set(KINDS)
    removed = found["tiny@2.0:symbol-removed:tiny.gone"]
    assert removed.evidence[0].release == "1.0" and removed.evidence[0].file == "tiny/__init__.py"  # type: ignore[attr-defined]
    renamed = found["tiny@2.0:parameter-renamed:tiny.keep:old_name"]
    assert renamed.detail == "old_name renamed to new_name"  # type: ignore[attr-defined]
    assert "tiny@2.0:parameter-removed:tiny.Engine.base_method:b" in found
    default = found["tiny@2.0:default-changed:tiny.keep:scale"]
    assert default.detail == "default of scale: 1.0 -> 2.0"  # type: ignore[attr-defined]
    assert "tiny@2.0:default-changed:tiny.Engine:mode" in found
    category = next(c for c in found.values() if c.kind == "warning-category-changed")  # type: ignore[attr-defined]
    assert (category.symbol, category.detail) == ("tiny.shifting", "DeprecationWarning -> FutureWarning")  # type: ignore[attr-defined]
    assert "tiny@2.0:removal-stub-added:tiny.eig" in found
    assert "tiny@2.0:deprecation-begins:tiny.decorated" in found
    assert "tiny@2.0:deprecation-begins:tiny.has_thing" in found


def test_guarded_deprecations_are_per_guard() -> None:
    found = candidates()
    softmax = found[candidate_id("tiny", "2.0", "deprecation-begins", "tiny.softmax", guard="dim is None")]
    assert softmax.guard == "dim is None"  # type: ignore[attr-defined]
    ev = softmax.evidence[0]  # type: ignore[attr-defined]
    assert (ev.release, ev.file) == ("2.0", "tiny/functional.py")
    assert ev.message.endswith("(via _get_dim)")
    line = ast.parse(NEW["tiny/functional.py"].lstrip("\n"))
    assert ev.line == next(n.lineno for n in ast.walk(line) if isinstance(n, ast.Call)
                           and getattr(n.func, "id", "") == "_get_dim")


def test_symbols_of_a_missing_stub_are_unknown_not_removed() -> None:
    found = candidates()
    assert not any(c.symbol in ("tiny.cfunc", "tiny.cgone") for c in found.values())  # type: ignore[attr-defined]


def test_a_removed_class_hides_its_members_and_private_names_never_show() -> None:
    old = dict(OLD)
    new = dict(OLD)
    new["tiny/_impl.py"] = "def hidden_helper_user(x):\n    return x\n"
    new["tiny/__init__.py"] = OLD["tiny/__init__.py"].replace("Engine, ", "")
    found = compare(release(old, "1.0"), release(new, "1.1"))
    assert [c.symbol for c in found if c.kind == "symbol-removed"] == ["tiny.Engine"]


def test_ids_are_stable() -> None:
    assert list(candidates()) == list(candidates())
    assert candidate_id("torch", "2.0.0", "symbol-removed", "torch.eig") == "torch@2.0.0:symbol-removed:torch.eig"


def test_names_a_plain_module_imported_are_not_api_and_self_renames_are_not_changes() -> None:
    old = {
        "tiny/__init__.py": "from ._ops import op\n",
        "tiny/_ops.py": "def helper(x):\n    return x\ndef op(self, y=1):\n    return self\n",
        "tiny/functional.py": "from tiny._ops import helper\n\nclass Leaky:\n    def m(self):\n        return 1\n",
        "tiny/nn/__init__.py": "from tiny._ops import helper\n",
    }
    new = {
        "tiny/__init__.py": "from ._ops import op\n",
        "tiny/_ops.py": "def op(input, y=1):\n    return input\n",
        "tiny/functional.py": "\n",
        "tiny/nn/__init__.py": "\n",
    }
    found = {c.symbol: c.kind for c in compare(release(old, "1.0"), release(new, "1.1"))}
    # a package's re-export is API; a plain module's import of a helper is not; a class's
    # members go with it; `self` renamed to `input` is not a keyword anyone passes
    assert found == {"tiny.nn.helper": "symbol-removed", "tiny.functional.Leaky": "symbol-removed"}


INHERIT_OLD = {
    "tiny/__init__.py": "from . import optim, amp, cuda\n",
    "tiny/optim.py": '''
class _Scheduler:
    def step(self, epoch=None):
        return epoch

    def dropped(self):
        return 0

    def last(self, n=1):
        return n

class StepLR(_Scheduler):
    def get_lr(self):
        return 1
''',
    "tiny/amp.py": "class GradScaler:\n    def scale(self, x):\n        return x\n",
    "tiny/cuda/__init__.py": '''
class GradScaler:
    def scale(self, x):
        return x

    def unscale_(self, opt):
        return opt

class Stream:
    @property
    def priority(self):
        return 0

    def query(self):
        return True
''',
    "tiny/_C/__init__.pyi": "class _StreamBase:\n    priority: int\n    def query(self) -> bool: ...\n",
}
INHERIT_NEW = {
    "tiny/__init__.py": "from . import optim, amp, cuda\n",
    # the private base became public: its members are no longer copied onto StepLR
    "tiny/optim.py": '''
class Scheduler:
    def step(self, epoch=None, verbose=False):
        return epoch

    def last(self):
        return 1

class StepLR(Scheduler):
    def get_lr(self):
        return 1
''',
    "tiny/amp.py": "class GradScaler:\n    def scale(self, x):\n        return x\n",
    # a subclass of a public class in another module, reached through a private alias
    "tiny/cuda/__init__.py": '''
import tiny
from tiny.amp import GradScaler as _AmpScaler

class GradScaler(_AmpScaler):
    pass

class Stream(tiny._C._StreamBase):
    pass
''',
    "tiny/_C/__init__.pyi": INHERIT_OLD["tiny/_C/__init__.pyi"],
}


def test_members_still_reachable_through_a_base_class_are_not_removed() -> None:
    found = compare(release(INHERIT_OLD, "1.0"), release(INHERIT_NEW, "1.1"))
    removed = sorted(c.symbol for c in found if c.kind == "symbol-removed")
    # step moved to a public base, scale to a base in another module, priority and query to a
    # C-extension base (a field and a method of the stub): all still reachable on the class.
    assert removed == ["tiny.cuda.GradScaler.unscale_", "tiny.optim.StepLR.dropped"]
    # an inherited member's signature is the base's: a parameter it lost is still seen
    assert [c.id for c in found if c.kind.startswith("parameter-")] == [
        "tiny@1.1:parameter-removed:tiny.optim.StepLR.last:n"]


def test_the_class_symbol_records_its_bases_and_fields() -> None:
    symbols = {s.name: s for s in release(INHERIT_NEW, "1.1").symbols}
    assert symbols["tiny.optim.StepLR"].bases == ("tiny.optim.Scheduler",)
    assert symbols["tiny.cuda.GradScaler"].bases == ("tiny.amp.GradScaler",)
    assert symbols["tiny.cuda.Stream"].bases == ("tiny._C._StreamBase",)
    assert symbols["tiny.cuda.Stream"].fields == ("priority",)
    assert "tiny.cuda.Stream.query" in symbols  # a private base's methods are copied, as before


def test_a_name_a_module_still_imports_from_elsewhere_is_not_removed() -> None:
    old = {"tiny/__init__.py": "from . import fsdp\n",
           "tiny/fsdp/__init__.py": "",
           "tiny/fsdp/wrap.py": "class StateDictType:\n    pass\n\ndef gone():\n    pass\n"}
    new = {"tiny/__init__.py": "from . import fsdp\n",
           "tiny/fsdp/__init__.py": "",
           "tiny/fsdp/api.py": "class StateDictType:\n    pass\n",
           # moved to api.py; `from tiny.fsdp.wrap import StateDictType` still works
           "tiny/fsdp/wrap.py": "from tiny.fsdp.api import StateDictType\n"}
    found = compare(release(old, "1.0"), release(new, "1.1"))
    assert [c.symbol for c in found if c.kind == "symbol-removed"] == ["tiny.fsdp.wrap.gone"]


def test_a_signature_that_becomes_args_kwargs_removes_no_parameter() -> None:
    old = {"tiny/__init__.py": "def get_state_dict(progress, check=True):\n    return progress\n"
                               "def narrowed(x, old=1, **kwargs):\n    return x\n"
                               "def load(repo, *args, trust=None, **kwargs):\n    return repo\n"}
    new = {"tiny/__init__.py": "def get_state_dict(*args, **kwargs):\n    return args\n"
                               "def narrowed(x, **kwargs):\n    return x\n"
                               "def load(repo, *args, trust='check', **kwargs):\n    return repo\n"}
    found = compare(release(old, "1.0"), release(new, "1.1"))
    # a keyword that only **kwargs takes now may be ignored or refused: still a candidate; and a
    # default beside *args and **kwargs is still compared
    assert [c.id for c in found] == ["tiny@1.1:parameter-removed:tiny.narrowed:old",
                                     "tiny@1.1:default-changed:tiny.load:trust"]


def test_a_default_spelled_another_way_is_not_a_change() -> None:
    old = {"tiny/__init__.py": "from . import modes\n"
                               "def export(m, training=modes.TrainingMode.EVAL, beta=1, keep=None, fast=False):\n"
                               "    return m\n",
           "tiny/modes.py": "class TrainingMode:\n    EVAL = 0\n"}
    new = {"tiny/__init__.py": "from . import modes as _C_onnx\n"
                               "def export(m, training=_C_onnx.TrainingMode.EVAL, beta=1.0, keep=False, fast=True):\n"
                               "    return m\n",
           "tiny/modes.py": "class TrainingMode:\n    EVAL = 0\n"}
    found = compare(release(old, "1.0"), release(new, "1.1"))
    assert sorted(c.parameter for c in found if c.kind == "default-changed") == ["fast", "keep"]


def test_the_members_of_a_class_a_module_now_imports_from_a_public_place_are_not_removed() -> None:
    old = {"tiny/__init__.py": "from . import planner\n",
           "tiny/_api.py": "class DTensor:\n    def zero_(self):\n        return self\n",
           "tiny/planner.py": "from tiny._api import DTensor\n"}  # a private target: on the surface
    new = {"tiny/__init__.py": "from . import planner, tensor\n",
           "tiny/tensor.py": "class DTensor:\n    def zero_(self):\n        return self\n",
           "tiny/planner.py": "from tiny.tensor import DTensor\n"}  # a public one: only a binding
    found = compare(release(old, "1.0"), release(new, "1.1"))
    assert [c.symbol for c in found if c.kind == "symbol-removed"] == []


def test_a_constructor_now_inherited_from_a_base_loses_no_parameter() -> None:
    """2.10 dropped MSELoss's own `__init__`: it is `_Loss.__init__(size_average, reduce,
    reduction)` now. The surface does not follow a base's constructor, so a class that shows no
    parameters and has a base in the package is no parameter change; one without a base is."""
    old = {"tiny/__init__.py": "from .loss import MSELoss, Plain\n",
           "tiny/loss.py": ("class _Loss:\n    def __init__(self, reduction='mean'):\n        pass\n"
                            "class MSELoss(_Loss):\n    def __init__(self, reduction='mean'):\n        super().__init__(reduction)\n"
                            "class Plain:\n    def __init__(self, reduction='mean'):\n        pass\n")}
    new = {"tiny/__init__.py": "from .loss import MSELoss, Plain\n",
           "tiny/loss.py": ("class _Loss:\n    def __init__(self, reduction='mean'):\n        pass\n"
                            "class MSELoss(_Loss):\n    pass\n"
                            "class Plain:\n    def __init__(self):\n        pass\n")}
    found = [c.id for c in compare(release(old, "1.0"), release(new, "1.1")) if c.kind.startswith("parameter-")]
    assert found == ["tiny@1.1:parameter-removed:tiny.Plain:reduction", "tiny@1.1:parameter-removed:tiny.loss.Plain:reduction"]
