"""What the resolver knows of a value: a `Tag`, its kind and, for tensors and arrays, its dtype family."""

from __future__ import annotations

from typing import NamedTuple


class Tag(NamedTuple):
    """`kind` is one of the kinds below; `family` the dtype family of a tensor or array (int,
    float, bool; None when unknown), or for a module whether it is one of torch.nn's own;
    `owner` the class whose methods an object has (`torch.optim.Optimizer`). A tuple: tags are
    compared and hashed in every lookup, which a tuple does in C."""

    kind: str
    family: str | None = None
    owner: str | None = None

    def __repr__(self) -> str:
        return ":".join(p for p in (self.kind, self.family, self.owner) if p)


TENSOR = Tag("tensor")
INT_TENSOR = Tag("tensor", "int")
FLOAT_TENSOR = Tag("tensor", "float")
BOOL_TENSOR = Tag("tensor", "bool")
MODULE = Tag("module", owner="torch.nn.Module")  # an nn.Module instance: calling it gives a tensor
NDARRAY = Tag("ndarray", owner="numpy.ndarray")
INT = Tag("int")
FLOAT = Tag("float")
SHAPE = Tag("shape")
LOCAL = Tag("local")  # bound by the project itself (def, class, plain value): shadows imports
# What the project's other modules give a parameter forwarded to a keyword whose None decides a
# change (`feeds`, `values.none_reaches`): some call passes None, else some call leaves it to its
# default, else every call sets it. Fed under the key (function, parameter + "="), apart from the
# tensors.
NONE_GIVEN = Tag("none")
DEFAULT_GIVEN = Tag("default")
SET_GIVEN = Tag("set")


def instance(owner: str) -> Tag:
    """An object of a known library class that is neither a tensor nor a module (an optimizer)."""
    return Tag("object", owner=owner)


def is_tensor(tag: Tag | None) -> bool:
    return tag is not None and tag.kind == "tensor"


def is_module(tag: Tag | None) -> bool:
    return tag is not None and tag.kind == "module"


def owner_of(tag: Tag | None) -> str | None:
    """The class whose methods a value of this tag has, when known."""
    if tag is None:
        return None
    if tag.kind == "tensor":
        return "torch.Tensor"
    return tag.owner


def merge(first: Tag | None, second: Tag | None) -> Tag | None:
    """The tag of a name bound to both: tensors of two families are tensors still."""
    if first == second:
        return first
    if is_tensor(first) and is_tensor(second):
        return TENSOR
    return None
