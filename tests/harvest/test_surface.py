import ast

from auditor.harvest.surface import Surface
from auditor.harvest.wheel import Source, module_name
from tests.harvest.wheels import OLD


def sources(files: dict[str, str]) -> list[Source]:
    out = []
    for path, text in files.items():
        module, is_package = module_name(path)
        out.append(Source(module, path, ast.parse(text.lstrip("\n")), is_package, path.endswith(".pyi")))
    return out


def surface(files: dict[str, str]) -> dict[str, object]:
    return {s.name: s for s in Surface(sources(files), "tiny").symbols()}


def test_public_names_and_reexports() -> None:
    names = surface(OLD)
    assert {"tiny", "tiny.functional", "tiny.gone", "tiny.keep", "tiny.shifting", "tiny.Engine"} <= set(names)
    assert "tiny._private" not in names
    assert "tiny._impl" not in names  # a private module is not on the surface ...
    assert "tiny.hidden_helper_user" in names  # ... but what a public module re-exports from it is
    assert names["tiny.hidden_helper_user"].origin == "tiny._impl.hidden_helper_user"
    assert not any(n.startswith("tiny._private_area") for n in names)


def test_class_members_params_and_private_bases() -> None:
    names = surface(OLD)
    engine = names["tiny.Engine"]
    assert [(p.name, p.default) for p in engine.params] == [("size", None), ("mode", "'fast'")]
    assert "tiny.Engine.run" in names and "tiny.Engine._inner" not in names
    inherited = names["tiny.Engine.base_method"]  # from the private base _Base
    assert [(p.name, p.default) for p in inherited.params] == [("a", None), ("b", "2")]


def test_stub_functions_reach_the_namespace_through_star_imports() -> None:
    names = surface(OLD)
    cfunc = names["tiny.cfunc"]
    assert cfunc.source == "tiny/_C/_Functions.pyi"
    assert [(p.name, p.kind, p.default) for p in cfunc.params] == [
        ("input", "positional", None), ("alpha", "keyword-only", "1")]


def test_star_import_of_a_public_module_and_star_exports() -> None:
    names = surface(OLD)
    assert names["tiny.softmax"].origin == "tiny.functional.softmax"
    assert "tiny._get_dim" not in names


def test_overloads_take_the_implementations_defaults() -> None:
    files = {"tiny/__init__.py": '''
from typing import overload
@overload
def f(x: int, y: int = ...) -> int: ...
@overload
def f(x: str, y: int = ..., z: int = ...) -> str: ...
def f(x, y=3, z=None):
    return x
'''}
    f = surface(files)["tiny.f"]
    assert [(p.name, p.default) for p in f.params] == [("x", None), ("y", "3"), ("z", "None")]


def test_assignment_of_a_c_function_takes_its_signature() -> None:
    files = {
        "tiny/_C/_linalg.pyi": "def linalg_solve(A: int, B: int, *, left: bool = True) -> int: ...\n",
        "tiny/linalg/__init__.py": "from tiny._C import _linalg\nfrom tiny._C import _add_docstr\n"
                                   "solve = _add_docstr(_linalg.linalg_solve, 'doc')\n"
                                   "unknown = _add_docstr(_linalg.linalg_nothing, 'doc')\n",
        "tiny/_C/__init__.pyi": "def _add_docstr(obj: object, doc: str) -> object: ...\n",
    }
    names = surface(files)
    assert [p.name for p in names["tiny.linalg.solve"].params] == ["A", "B", "left"]  # type: ignore[attr-defined]
    assert names["tiny.linalg.unknown"].kind == "attribute"  # type: ignore[attr-defined]
