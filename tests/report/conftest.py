"""A fixed AuditResult, built here rather than from the knowledge base so goldens only change
when a renderer does. Regenerate goldens with AUDITOR_REGENERATE_GOLDEN=1."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from packaging.version import Version

from auditor import __version__
from auditor.knowledge.entry import Docs, Match, SpecChange
from auditor.models import (
    AuditResult,
    EnvironmentFinding,
    Finding,
    GoodNews,
    ProbeOutcome,
    ProbeRun,
    Skipped,
    Transition,
)

GOLDEN = Path(__file__).resolve().parents[1] / "fixtures" / "report"


def spec_change(
    change_id: str,
    severity: str = "high",
    kind: str = "behaviour",
    silent: bool = True,
    title: str = "floor_divide and // on tensors round toward negative infinity",
    introduced: str = "1.13.0",
    symbols: tuple[str, ...] = ("torch.floor_divide", "torch.Tensor.__floordiv__"),
) -> SpecChange:
    return SpecChange(
        id=change_id,
        package="torch",
        introduced=Version(introduced),
        kind=kind,
        severity=severity,  # type: ignore[arg-type]
        silent=silent,
        title=title,
        symbols=symbols,
        matches=(Match(call=symbols[0], confidence="high"),),
        docs=Docs(
            what=f"What {change_id} changes: results differ for negative operands.",
            why="Index arithmetic changes silently.",
            before="torch.floor_divide(torch.tensor(-3), 2)  # tensor(-1) before, tensor(-2) after",
            keep_old="torch.div(a, b, rounding_mode='trunc')",
            adopt_new="torch.div(a, b, rounding_mode='floor')",
            notes=None,
        ),
        references=("https://github.com/pytorch/pytorch/pull/78411", "https://github.com/pytorch/pytorch/issues/43874"),
        source=f"knowledge/torch/1.13/{change_id}.toml",
    )


FLOOR = spec_change("torch-floor-divide-rounds-toward-floor")
DATA = spec_change(
    "torch-tensor-data-int-on-requires-grad-raises", kind="now-raises", silent=False,
    title="Assigning integer .data to a requires_grad tensor raises", symbols=("torch.Tensor.data",),
)
CLAMP = spec_change(
    "torch-clamp-type-promotion", severity="medium", title="clamp promotes integer input with float bounds",
    symbols=("torch.clamp",),
)
UNUSED = spec_change(
    "torch-complex-promotion-of-0dim-operands", severity="low", title="0-dim complex operands promote",
    symbols=("torch.add",),
)
ZERO_GRAD = spec_change(
    "torch-zero-grad-set-to-none-default", kind="default-changed", title="zero_grad() sets .grad to None",
    symbols=("torch.optim.Optimizer.zero_grad",),
)
OPSET_14 = spec_change(
    "torch-onnx-default-opset-14", severity="medium", kind="default-changed", silent=True,
    title="torch.onnx.export writes opset 14 by default (was 13)", symbols=("torch.onnx.export",),
)
OPSET_17 = spec_change(
    "torch-onnx-default-opset-17", severity="medium", kind="default-changed", silent=True,
    title="torch.onnx.export writes opset 17 by default (was 14)", symbols=("torch.onnx.export",),
)
DTENSOR = spec_change(
    "torch-distributed-tensor-public", severity="medium", kind="made-public", silent=False,
    title="DTensor is public as torch.distributed.tensor", symbols=("torch.distributed.tensor.DTensor",),
    introduced="1.13.0",
)
TRANSITION = Transition("torch", Version("1.12.1"), Version("1.13.0"))


def finding(change: SpecChange, path: str, line: int, snippet: str, cell: int | None = None,
            symbol: str | None = None, message: str = "Check the sign of the operands.",
            confidence: str = "high") -> Finding:
    return Finding(
        change=change.id, symbol=symbol or change.symbols[0], path=path, line=line, column=5,
        cell=cell, confidence=confidence, message=message, snippet=snippet,  # type: ignore[arg-type]
    )


def sample() -> AuditResult:
    return AuditResult(
        transitions=(TRANSITION,),
        changes=(CLAMP, FLOOR, DATA, UNUSED, ZERO_GRAD, OPSET_14, OPSET_17),
        findings=(
            finding(FLOOR, "data/windows.py", 14, "centred = starts - starts.max() // 2",
                    symbol="torch.Tensor.__floordiv__"),
            finding(FLOOR, "data/windows.py", 15, "return torch.floor_divide(centred, window)"),
            finding(FLOOR, "explore.ipynb", 2, "halves = positions // 2", cell=3,
                    symbol="torch.Tensor.__floordiv__"),
            finding(DATA, "models/conv 1d.py", 26, "layer.weight.data = codes.long()  # a | b `x`",
                    message="Integer .data on a parameter now raises RuntimeError."),
            finding(CLAMP, "quantize.py", 9, "x.clamp(min=0.5)", confidence="medium",
                    message="An integer input with a float bound becomes float.\nCheck dtypes."),
            finding(ZERO_GRAD, "train.py", 30, "opt.zero_grad()", confidence="low",
                    message="Reading .grad after zero_grad() finds None."),
            finding(ZERO_GRAD, "tune.py", 12, "optimizer.zero_grad()", confidence="low",
                    message="Reading .grad after zero_grad() finds None."),
            replace(finding(OPSET_17, "export.py", 4, "torch.onnx.export(model, x, 'm.onnx')", confidence="medium",
                            message="2 stages crossed together: opset 14 (was 13), then opset 17 (was 14)."),
                    stages=(OPSET_14.id,)),
        ),
        environment=(
            EnvironmentFinding("python-support", "high", "torch 1.13.0 has no wheel for Python 3.6", "torch"),
            EnvironmentFinding("companion", "medium", "torchvision 0.13.1 expects torch 1.12.*", "torchvision"),
        ),
        probes=(
            ProbeOutcome(FLOOR.id, "confirmed", ProbeRun("1.12.1", "tensor(-1)"), ProbeRun("1.13.0", "tensor(-2)")),
            ProbeOutcome(DATA.id, "skipped", reason="needs CUDA"),
        ),
        skipped=(Skipped("broken.py", "SyntaxError: invalid syntax (line 3)"),),
        good_news=(GoodNews(DTENSOR, (finding(DTENSOR, "dist.py", 3, "DTensor.from_local(x)"),)),),
    )


def no_transition() -> AuditResult:
    return AuditResult(transitions=(), changes=(), findings=())


def no_change() -> AuditResult:
    return AuditResult(
        transitions=(Transition("torch", Version("2.1.0"), Version("2.1.2")),), changes=(), findings=()
    )


def untouched() -> AuditResult:
    return AuditResult(transitions=(TRANSITION,), changes=(FLOOR, DATA, UNUSED), findings=())


def many(n: int) -> AuditResult:
    """n call sites of three changes: far past GitHub's comment limit at full size."""
    changes = (FLOOR, DATA, CLAMP)
    findings = tuple(
        finding(changes[i % 3], f"pkg/module_{i // 40:03d}.py", i % 40 + 1,
                f"value_{i} = torch.floor_divide(offsets_{i}, window) | other  # padding " + "x" * 40)
        for i in range(n)
    )
    return AuditResult(transitions=(TRANSITION,), changes=changes, findings=findings)


def _normalise(text: str) -> str:
    return text.replace(__version__, "VERSION")


@pytest.fixture
def golden() -> Callable[[str, str], None]:
    def check(name: str, text: str) -> None:
        path = GOLDEN / name
        text = _normalise(text)
        if os.environ.get("AUDITOR_REGENERATE_GOLDEN"):
            path.write_text(text, "utf-8")
        assert path.exists(), f"{path} missing: run with AUDITOR_REGENERATE_GOLDEN=1"
        assert text == path.read_text("utf-8"), f"{name} differs from its golden file"

    return check


@pytest.fixture
def result() -> AuditResult:
    return sample()


@pytest.fixture
def cases() -> dict[str, AuditResult]:
    """The verdict cases a reviewer meets, by name."""
    return {
        "findings": sample(),
        "no-transition": no_transition(),
        "no-change": no_change(),
        "untouched": untouched(),
    }


@pytest.fixture
def many_findings() -> Callable[[int], AuditResult]:
    return many
