"""The rules that keep generated (harvested) changes precise on real code (docs/precision.md,
"Generated changes"): each on small real sources or real shipped candidates."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from auditor import pipeline
from auditor.harvest.candidates import same_value
from auditor.harvest.generate import Open, matches, spec_change
from auditor.harvest.model import Candidate, Param, Release, Symbol
from auditor.harvest.related import relate, restored
from auditor.harvest.shipped import read_candidates
from auditor.knowledge.base import KnowledgeBase
from auditor.knowledge.entry import SpecChange
from tests.harvest.test_coverage import candidate

EXPORT = (Param("model", "positional", None), Param("args", "positional", None), Param("f", "positional", None),
          Param("opset_version", "positional", "None"), Param("use_external_data_format", "positional", "False"))
SPREAD = """\
import torch

def to_onnx(model, x, path, **kwargs):
    torch.onnx.export(model, x, path, **kwargs)            # 4: the caller's kwargs decide
def explicit(model, x, path):
    torch.onnx.export(model, x, path, use_external_data_format=True)   # 6: given here
def built(model, x, path):
    options = dict(use_external_data_format=True)
    torch.onnx.export(model, x, path, **options)           # 9: built in view
def starred(*args):
    torch.onnx.export(*args)                               # 11: the caller's args decide
"""


def _lines(tmp_path: Path, source: str, changes: list[SpecChange], old: str = "2.0.0", new: str = "2.1.0") -> list[int]:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    (project / "m.py").write_text(source, "utf-8")
    result = pipeline.scan(project, old, new, KnowledgeBase(tuple(changes)))
    return sorted(f.line for f in result.findings)


def test_a_spread_of_unknown_content_is_no_finding_of_a_generated_change(tmp_path: Path) -> None:
    removed = candidate("parameter-removed", "torch.onnx.export", parameter="use_external_data_format",
                        params=EXPORT)
    found = matches(removed)
    assert not isinstance(found, Open) and all(m.decided for m in found)
    change = spec_change(removed, found)
    assert _lines(tmp_path, SPREAD, [change]) == [6, 9]
    # the same matcher as a curated entry has it: the spread is a low-confidence finding
    loose = replace(change, matches=tuple(replace(m, decided=False) for m in change.matches))
    assert _lines(tmp_path, SPREAD, [loose]) == [4, 6, 9]


def test_a_default_change_is_not_reported_through_a_spread_or_starred_args(tmp_path: Path) -> None:
    changed = candidate("default-changed", "torch.onnx.export", parameter="use_external_data_format",
                        params=EXPORT)
    found = matches(changed)
    assert not isinstance(found, Open)
    change = spec_change(changed, found)
    # 6 and 9 pass it; 4 and 11 may or may not: no finding for a generated change
    assert _lines(tmp_path, SPREAD + "torch.onnx.export(m, x, p)\n", [change]) == [12]
    loose = replace(change, matches=tuple(replace(m, decided=False) for m in change.matches))
    assert _lines(tmp_path, SPREAD + "torch.onnx.export(m, x, p)\n", [loose]) == [4, 11, 12]


def _shipped(package: str, *ids: str) -> list[Candidate]:
    from auditor.knowledge.loader import default_directory

    wanted = [c for c in read_candidates(default_directory(), package) if c.id in ids]
    assert len(wanted) == len(ids), "the shipped harvest holds these candidates"
    return wanted


STEP_LR = "torch@2.2.0:default-changed:torch.optim.lr_scheduler.StepLR:verbose"
SCHEDULER_GUARD = "torch@2.2.0:deprecation-begins:torch.optim.lr_scheduler.LRScheduler:55369a1b"


def test_a_string_sentinel_default_tested_by_a_deprecation_guard_is_a_deprecation_of_passing_it(tmp_path: Path) -> None:
    """2.2 turns StepLR's `verbose=False` into `verbose='deprecated'`, and the same file warns
    `when verbose != 'deprecated'`: leaving it out behaves as before, passing it warns."""
    step, guard = _shipped("torch", STEP_LR, SCHEDULER_GUARD)
    related = {c.id: c for c in relate([step, guard])}
    assert related[STEP_LR].kind == "deprecation-begins" and related[STEP_LR].guard == "verbose != 'deprecated'"
    found = matches(related[STEP_LR])
    assert not isinstance(found, Open) and [m.when.keyword_present for m in found] == [("verbose",)]
    source = ("import torch\nfrom torch.optim.lr_scheduler import StepLR\n"
              "a = StepLR(opt, step_size=30)\n"             # 3: as before
              "b = StepLR(opt, 30, verbose=True)\n")        # 4: warns from 2.2
    assert _lines(tmp_path, source, [spec_change(related[STEP_LR], found)], "2.1.2", "2.2.0") == [4]
    # the shipped harvest is written through `relate` too: the candidate ships as the deprecation,
    # and relating it again changes nothing
    assert step.kind == "deprecation-begins" and relate([step]) == [step]
    # the unrelated form, without the guard in view (another file's warning, or none), stays a default change
    plain = replace(step, kind="default-changed", guard=None, category=None,
                    detail="default of verbose: False -> 'deprecated'", evidence=step.evidence[:2])
    assert relate([plain])[0] == plain
    before = matches(plain)
    assert not isinstance(before, Open)
    assert _lines(tmp_path, source, [spec_change(plain, before)], "2.1.2", "2.2.0") == [3]
    assert relate([plain, replace(guard, evidence=(replace(guard.evidence[0], file="torch/other.py"),))])[0] == plain


def test_defaults_spelled_through_a_private_module_are_one_value() -> None:
    assert same_value("Image.NEAREST", "_pil_constants.NEAREST")
    assert same_value("TrainingMode.EVAL", "_C_onnx.TrainingMode.EVAL")
    assert not same_value("Image.NEAREST", "InterpolationMode.NEAREST")  # an int and an enum member
    assert not same_value("Image.NEAREST", "_pil_constants.BILINEAR")
    assert not same_value("pickle.DEFAULT", "_pickle.default")  # not a constant's name
    nearest = candidate("default-changed", "torchvision.transforms.functional_pil.resize", parameter="interpolation")
    spelled = replace(nearest, detail="default of interpolation: Image.BILINEAR -> _pil_constants.BILINEAR")
    changed = replace(nearest, detail="default of interpolation: Image.BILINEAR -> InterpolationMode.BILINEAR")
    assert relate([spelled, changed]) == [changed]


def _release(version: str, *symbols: Symbol) -> Release:
    return Release("torch", version, f"torch-{version}.whl", symbols, (), ())


def test_a_candidate_undone_by_a_later_release_says_until_and_a_move_across_both_sees_no_change(tmp_path: Path) -> None:
    """SequenceParallel: gone in 2.2, back in 2.3. A parameter back, a default back to its old
    value: each is undone there; a default that moves on to a third value is not."""
    def parallel(*params: Param) -> Symbol:
        return Symbol("torch.distributed.tensor.parallel.SequenceParallel", "class", "torch/x.py", 1, "py", params)

    old, back = Param("sequence_dim", "positional", "1"), Param("sequence_dim", "positional", "1")
    releases = [_release("2.1.2", parallel(old)), _release("2.2.0"), _release("2.3.0", parallel(back)),
                _release("2.4.0", parallel(Param("sequence_dim", "positional", "2")))]
    removed = replace(candidate("symbol-removed", "torch.distributed.tensor.parallel.SequenceParallel"),
                      before="2.1.2", release="2.2.0", symbol_kind="class")
    dropped = replace(candidate("parameter-removed", "torch.distributed.tensor.parallel.SequenceParallel",
                                parameter="sequence_dim"), before="2.1.2", release="2.2.0")
    moved = replace(candidate("default-changed", "torch.distributed.tensor.parallel.SequenceParallel",
                              parameter="sequence_dim"), before="2.3.0", release="2.4.0",
                    detail="default of sequence_dim: 1 -> 2")
    assert [c.until for c in restored([removed, dropped, moved], releases)] == ["2.3.0", "2.3.0", None]
    twice = [*releases, _release("2.5.0", parallel(Param("sequence_dim", "positional", "1.0")))]
    assert restored([moved], twice)[0].until == "2.5.0"  # 1.0 spells 1

    undone = restored([removed], releases)[0]
    found = matches(undone)
    assert not isinstance(found, Open)
    change = spec_change(undone, found)
    source = "from torch.distributed.tensor.parallel import SequenceParallel\nstyle = SequenceParallel()\n"
    assert _lines(tmp_path, source, [change], "2.1.2", "2.2.0") == [2]
    assert _lines(tmp_path, source, [change], "2.1.2", "2.6.0") == []  # present at both ends
    kept = spec_change(removed, found)
    assert _lines(tmp_path, source, [kept], "2.1.2", "2.6.0") == [2]  # without `until`


def test_shipped_candidates_round_trip_until(tmp_path: Path) -> None:
    from auditor.harvest.shipped import pair_text

    removed = replace(candidate("symbol-removed", "torch.x"), until="2.3.0")
    path = tmp_path / "torch" / "harvest" / "2.0.0..2.1.0.toml"
    path.parent.mkdir(parents=True)
    path.write_text(pair_text("torch", "2.0.0", "2.1.0", [removed]), "utf-8")
    assert read_candidates(tmp_path, "torch")[0].until == "2.3.0"


def test_the_shipped_harvest_says_sequence_parallel_is_back_in_2_3() -> None:
    removed = _shipped("torch", "torch@2.2.0:symbol-removed:torch.distributed.tensor.parallel.SequenceParallel")
    assert removed[0].until == "2.3.0"


def test_a_default_that_was_none_shows_no_change_and_is_left_open() -> None:
    """1.12 spells `operator_export_type=OperatorExportTypes.ONNX` where 1.11 had None, which the
    body turned into ONNX: the signatures show no change of the value used."""
    (export,) = _shipped("torch", "torch@1.12.0:default-changed:torch.onnx.export:operator_export_type")
    found = matches(export)
    assert isinstance(found, Open) and "old default is None" in found.reason
    flipped = replace(export, detail="default of operator_export_type: OperatorExportTypes.ONNX -> "
                                     "OperatorExportTypes.ONNX_ATEN")
    assert not isinstance(matches(flipped), Open)


def test_a_generated_finding_on_a_call_a_curated_entry_reports_is_folded_into_a_note(tmp_path: Path) -> None:
    """`torch.onnx.export`'s `optimize` default (generated) next to the curated switch to the
    dynamo exporter on the same call: one finding, and a note that names the folded one."""
    def generated(symbol: str) -> SpecChange:
        c = candidate("deprecation-begins", symbol)
        found = matches(c)
        assert not isinstance(found, Open)
        return spec_change(c, found)

    export, freeze = generated("torch.onnx.export"), generated("torch.jit.freeze")
    curated = replace(export, id="torch-onnx-export-curated", harvested=None, source="knowledge/torch/2.1/x.toml")
    project = tmp_path / "project"
    project.mkdir()
    (project / "m.py").write_text("import torch\ntorch.onnx.export(m, x, 'm.onnx')\ntorch.jit.freeze(s)\n", "utf-8")
    result = pipeline.scan(project, "2.0.0", "2.1.0", KnowledgeBase((export, freeze, curated)))
    assert sorted((f.change, f.line) for f in result.findings) == [(curated.id, 2), (freeze.id, 3)]
    assert [n for n in result.notes if "not listed apart" in n and f"m.py:2 {export.id}" in n]
    alone = pipeline.scan(project, "2.0.0", "2.1.0", KnowledgeBase((export, freeze)))
    assert sorted((f.change, f.line) for f in alone.findings) == sorted([(export.id, 2), (freeze.id, 3)])
    assert not [n for n in alone.notes if "not listed apart" in n]


RENAMES = """\
from pathlib import Path
import pandas as pd
import torch
import webdataset as wd

def move(url, f):
    Path(url).rename(f)                                     # 7: a path
def counts(frame: pd.DataFrame):
    return frame.groupby("id").size().rename(columns={"size": "n"})   # 9: a frame
def samples(urls):
    return wd.WebDataset(urls).rename(audio="wav", key="__key__")     # 11: a pipeline
def named():
    t = torch.zeros(2, 3)
    return t.rename("N", "C")                              # 14: a tensor
"""


def test_a_tensor_method_whose_name_paths_and_frames_share_is_matched_on_known_tensors_only(tmp_path: Path) -> None:
    """`Tensor.rename` (generated as removed in 2.13) is also `Path.rename`, `DataFrame.rename` and
    webdataset's `rename`: on a receiver of unknown type the name says nothing about torch (NeMo,
    YOLOv5, Catalyst, SuperGradients, MMDetection: every `.rename` the pool held was one of those)."""
    removed = replace(candidate("symbol-removed", "torch.Tensor.rename"), symbol_kind="method")
    found = matches(removed)
    assert not isinstance(found, Open) and [m.method for m in found] == [("rename",)]
    assert _lines(tmp_path, RENAMES, [spec_change(removed, found)]) == [14]


SGD_LR = ("torch@2.2.0:default-changed:torch.optim.SGD:lr", "torch@2.2.0:default-changed:torch.optim.sgd.SGD:lr")


def test_a_default_that_was_the_optimizers_required_sentinel_is_waived() -> None:
    """2.2 gives SGD `lr=0.001` where it had `lr=required`, which raised for a param group
    without lr: every call that ran gave it (skorch's `SGD([{'params': p, 'lr': lr}])`)."""
    from auditor.harvest.coverage import stand

    for c in relate(_shipped("torch", *SGD_LR)):
        assert c.waived is not None and "`required`" in c.waived and "torch/optim/sgd.py" in c.waived
        assert stand(c, {}, []).state == "waived"
    other = candidate("default-changed", "torch.optim.Adam", parameter="lr")
    moved = replace(other, detail="default of lr: 0.01 -> 0.001")
    assert relate([moved]) == [moved] and stand(moved, {}, []).state == "generated"


def test_the_x86_default_backend_of_the_qconfig_getters_is_waived_as_the_same_configs() -> None:
    """2.0's `backend='x86'` (was 'fbgemm') builds the same qconfigs (read in the 2.0.0 wheel);
    Neural Compressor's `get_default_qconfig_mapping()` gets what it got on 1.13."""
    from auditor.harvest.coverage import stand
    from auditor.harvest.shipped import read_waivers
    from auditor.knowledge.loader import default_directory

    waivers = read_waivers(default_directory(), "torch")
    getters = [c for c in relate(read_candidates(default_directory(), "torch"))
               if c.kind == "default-changed" and c.parameter == "backend" and "'fbgemm' -> 'x86'" in c.detail]
    assert len(getters) == 14  # torch.quantization re-exports two of them (a star import)
    assert {stand(c, {}, waivers).state for c in getters} == {"waived"}
    qnnpack = replace(getters[0], id=getters[0].id.replace("torch@2.0.0", "torch@2.1.0"))
    assert stand(qnnpack, {}, waivers).state == "generated"  # the waiver is about 2.0's change only
