"""The argument conditions of a knowledge matcher: one registry, `KINDS`, one entry each.

An entry says everything the knowledge schema knows of a condition: its field of
`entry.Condition`, the JSON schema of its value in a knowledge file (the loader validates with
these fragments; a test keeps `entry.schema.json` in step), how the file's value becomes the
field's, what a call seen only in part can say of it (a `functools.partial`, a bare reference
`map(torch.load, paths)`, a method on a receiver of unknown dtype), and an example that a test
runs end to end, from a knowledge entry to a finding. The scanner's test of each condition on a
call is `auditor.scan.conditions.TESTS`. Adding a condition is a field on `Condition`, an entry
here and a test there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any, Literal

from auditor.knowledge.entry import Condition, Confidence

USAGE_SCOPES = ("function", "module")  # where `needs_usage` looks for its patterns

LEVELS: tuple[Confidence, ...] = ("low", "medium", "high")


def weakest(*levels: Confidence) -> Confidence:
    return min(levels, key=LEVELS.index)


@dataclass(frozen=True)
class Example:
    """A matcher using the condition, a line of a module that meets it and one that does not
    (each module imports torch; the test scans each and expects a finding on the first only)."""

    match: dict[str, Any]
    meets: str
    fails: str


@dataclass(frozen=True)
class Kind:
    name: str  # the field of `Condition`, and the key in a knowledge file's match
    description: str
    schema: dict[str, Any]  # the JSON schema of the value in a knowledge file
    example: Example
    read: Callable[[Any], Any] = lambda value: value  # the file's value as the field's
    # Under `functools.partial(f, ...)`, whose later call may add arguments: "check" the bound
    # ones, "drop" the condition (a later positional may meet it), "skip" the matcher (it is
    # about the data the later call passes).
    partial: Literal["check", "drop", "skip"] = "check"
    # What a bare reference (`map(torch.load, paths)`) can claim with the condition set:
    # None when it cannot tell (the condition is about arguments the reference does not show).
    reference: Confidence | None = None
    receiver_dtype: bool = False  # decided by the receiver's dtype: not on a receiver of unknown type


def _strings() -> dict[str, Any]:
    return {"type": "array", "items": {"type": "string"}}


_ARGUMENTS = "keyword names or #<index> for a position"

KINDS: tuple[Kind, ...] = (
    Kind(
        "keyword_absent", "the call does not pass any of these keywords",
        _strings(),
        Example({"call": "torch.load", "keyword_absent": ["weights_only"]},
                "torch.load(path)", "torch.load(path, weights_only=False)"),
        read=tuple, reference="low",
    ),
    Kind(
        "keyword_present", "the call passes one of these keywords",
        _strings(),
        Example({"call": "torch.nn.functional.interpolate", "keyword_present": ["align_corners"]},
                "torch.nn.functional.interpolate(x, align_corners=True)", "torch.nn.functional.interpolate(x)"),
        read=tuple,
    ),
    Kind(
        "keyword_values", "the call passes each keyword with one of its literal values",
        {"type": "object", "additionalProperties": {"type": "array"}},
        Example({"call": "torch.tensor", "keyword_values": {"dtype": ["torch.uint8"]}},
                "torch.tensor(x, dtype=torch.uint8)", "torch.tensor(x, dtype=torch.float32)"),
        read=lambda raw: tuple((k, tuple(v)) for k, v in sorted(raw.items())),
    ),
    Kind(
        "keyword_values_absent", "the call does not pass a keyword with one of these literal values",
        {"type": "object", "additionalProperties": {"type": "array"}},
        Example({"call": "torch.hub.load", "keyword_values_absent": {"source": ["local"]}},
                "torch.hub.load('owner/repo', 'model')", "torch.hub.load('./repo', 'model', source='local')"),
        read=lambda raw: tuple((k, tuple(v)) for k, v in sorted(raw.items())),
    ),
    Kind(
        "literal_prefix_absent",
        f"the arguments ({_ARGUMENTS}) are not string literals starting with one of these prefixes",
        {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "string"}}},
        Example({"call": "torch.hub.load", "literal_prefix_absent": {"#0": ["pytorch/"]}},
                "torch.hub.load('owner/repo', 'model')", "torch.hub.load('pytorch/vision', 'resnet18')"),
        read=lambda raw: tuple((k, tuple(v)) for k, v in sorted(raw.items())),
    ),
    Kind(
        "min_positional", "at least this many positional arguments",
        {"type": "integer", "minimum": 0},
        Example({"call": "torch.norm", "min_positional": 2}, "torch.norm(x, 2)", "torch.norm(x)"),
        partial="drop",
    ),
    Kind(
        "max_positional",
        "at most this many positional arguments (a method's receiver not counted): with keyword_absent, an argument not given at all",
        {"type": "integer", "minimum": 0},
        Example({"call": "torch.nn.functional.softmax", "max_positional": 1},
                "torch.nn.functional.softmax(x)", "torch.nn.functional.softmax(x, 1)"),
    ),
    Kind(
        "int_literal_out_of_dtype", "the data holds an int literal outside the range of the dtype keyword",
        {"type": "boolean"},
        Example({"call": "torch.tensor", "int_literal_out_of_dtype": True},
                "torch.tensor([300], dtype=torch.uint8)", "torch.tensor([200], dtype=torch.uint8)"),
        partial="skip",
    ),
    Kind(
        "float_in_data", "the data argument holds a Python float literal or float-valued name",
        {"type": "boolean"},
        Example({"call": "torch.tensor", "float_in_data": True}, "torch.tensor([0.5, 1])", "torch.tensor([0, 1])"),
    ),
    Kind(
        "float_bound", f"bounds ({_ARGUMENTS}) given a float, on an int tensor",
        _strings(),
        Example({"call": "torch.clamp", "float_bound": ["min", "max"]},
                "torch.clamp(torch.arange(5), min=0.5)", "torch.clamp(torch.arange(5), min=1)"),
        partial="skip", receiver_dtype=True,
    ),
    Kind(
        "not_bool", f"arguments ({_ARGUMENTS}) a known bool tensor or comparison rules out, e.g. a mask",
        _strings(),
        Example({"call": "torch.where", "not_bool": ["#0"]}, "torch.where(x, a, b)", "torch.where(x > 0, a, b)"),
        read=tuple,
    ),
    Kind(
        "argument_dtype",
        "the call is affected when this argument (the first present of these keyword names or #<index>) has one of these dtype families; another known family rules it out, an unknown one gives low confidence",
        {"type": "object", "additionalProperties": False, "required": ["argument", "dtype"],
         "properties": {"argument": {"type": "array", "minItems": 1, "items": {"type": "string"}},
                        "dtype": {"type": "array", "minItems": 1, "items": {"enum": ["bool", "int", "float"]}}}},
        Example({"call": "torch.sum", "argument_dtype": {"argument": ["#0"], "dtype": ["bool"]}},
                "torch.sum(torch.ones(3) > 0)", "torch.sum(torch.arange(3))"),
        read=lambda raw: (tuple(raw["argument"]), tuple(raw["dtype"])),
    ),
    Kind(
        "needs_usage",
        "patterns the hazard needs in the same function (or module, see usage_scope) as the call, e.g. attribute:grad for .grad read or updated in place",
        {"type": "array", "items": {"type": "string", "pattern": "^attribute:[A-Za-z_][A-Za-z0-9_]*$"}},
        Example({"call": "torch.autograd.grad", "needs_usage": ["attribute:grad"]},
                "torch.autograd.grad(y, x); print(x.grad)", "torch.autograd.grad(y, x)"),
        read=tuple,
    ),
    Kind(
        "usage_scope", "where needs_usage looks: the call's function (the default) or its module",
        {"enum": list(USAGE_SCOPES)},
        Example({"call": "torch.autograd.grad", "needs_usage": ["attribute:grad"], "usage_scope": "module"},
                "torch.autograd.grad(y, x); print(x.grad)", "torch.autograd.grad(y, x)"),
    ),
    Kind(
        "unless_declared",
        "tensors: no finding where an annotation in view declares the call's result to hold only tensors, plain values and tuples, lists, dicts of them, or the code in view makes a Parameter of it or saves a tensor to the same path",
        {"enum": ["tensors"]},
        Example({"call": "torch.load", "unless_declared": "tensors"},
                "state = torch.load(path)", "state: torch.Tensor = torch.load(path)"),
        reference="medium",  # a reference's result is declared nowhere
    ),
    Kind(
        "parameters",
        "the names of the call's leading positional parameters, in order: a condition on #<index> reads the argument given by keyword too",
        {"type": "array", "items": {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]*$"}},
        Example({"call": "torch.tensor", "int_literal_out_of_dtype": True, "parameters": ["data"]},
                "torch.tensor(data=[300], dtype=torch.uint8)", "torch.tensor(data=[200], dtype=torch.uint8)"),
        read=tuple, reference="medium",
    ),
    Kind(
        "none_is_default",
        "keywords whose value None is the same as leaving them out on both sides: None given (a literal, a constant, or a wrapper's parameter that a caller leaves None or that defaults to None) counts as absent",
        _strings(),
        Example({"call": "torch.load", "keyword_absent": ["weights_only"], "none_is_default": ["weights_only"]},
                "torch.load(path, weights_only=None)", "torch.load(path, weights_only=False)"),
        read=tuple, reference="medium",
    ),
    Kind(
        "unless_unused",
        "class: no finding in a method of a class that no code of the project names (not used in its module outside its body, no decorator, its name in no other Python file)",
        {"enum": ["class"]},
        Example({"call": "torch.hub.load", "unless_unused": "class"},
                "torch.hub.load('owner/repo', 'model')",
                "class Unused:\n    def model(self):\n        return torch.hub.load('owner/repo', 'model')"),
        reference="medium",
    ),
    Kind(
        "unless_followed_by",
        "qualified names: no finding where the call is an element of a list or tuple whose later element is a call of one of them (a pipeline that then converts to a tensor shows what the call meets)",
        {"type": "array", "minItems": 1, "items": {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_.]*$"}},
        Example({"call": "torch.nn.ReLU", "unless_followed_by": ["torch.nn.Flatten"]},
                "layers = [torch.nn.ReLU(), torch.nn.Linear(2, 2)]",
                "layers = [torch.nn.ReLU(), torch.nn.Flatten()]"),
        read=tuple, reference="medium",
    ),
)
_DEFAULTS = {f.name: f.default for f in fields(Condition)}


def schema_properties() -> dict[str, dict[str, Any]]:
    """The JSON schema of each condition in a knowledge file's match."""
    return {kind.name: {**kind.schema, "description": kind.description} for kind in KINDS}


def read(raw: dict[str, Any]) -> Condition:
    """The conditions of a knowledge file's match (validated against `schema_properties`)."""
    return Condition(**{kind.name: kind.read(raw[kind.name]) for kind in KINDS if kind.name in raw})


def set_kinds(when: Condition) -> list[tuple[Kind, Any]]:
    """The conditions `when` sets (a field away from its default), with their values."""
    return [(kind, value) for kind in KINDS if (value := getattr(when, kind.name)) != _DEFAULTS[kind.name]]


def reference_confidence(when: Condition) -> Confidence | None:
    """What a bare reference to the matched function can claim: medium with no condition,
    None when a condition is about arguments the reference does not show."""
    confidence: Confidence = "medium"
    for kind, _ in set_kinds(when):
        if kind.reference is None:
            return None
        confidence = weakest(confidence, kind.reference)
    return confidence


def for_partial(when: Condition) -> Condition | None:
    """The conditions the arguments bound by `functools.partial` decide, None when the matcher
    is about the data the later call passes."""
    changed: dict[str, Any] = {}
    for kind, _ in set_kinds(when):
        if kind.partial == "skip":
            return None
        if kind.partial == "drop":
            changed[kind.name] = _DEFAULTS[kind.name]
    return Condition(**{**{f.name: getattr(when, f.name) for f in fields(Condition)}, **changed})


def on_receiver_dtype(when: Condition) -> bool:
    """Whether a condition is decided by the receiver's dtype (nothing known of an untyped one)."""
    return any(kind.receiver_dtype for kind, _ in set_kinds(when))
