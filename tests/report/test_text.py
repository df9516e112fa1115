"""The terminal report: confident call sites per change, low confidence collapsed, good news apart."""

from auditor.report import text


def test_golden(result, golden):
    golden("text.golden", text.render(result))


def test_low_confidence_is_one_line_per_change_after_the_confident_changes(result):
    report = text.render(result)
    confident, low = report.split("2 low-confidence call site(s), collapsed")
    assert "torch-zero-grad-set-to-none-default" not in confident  # high severity, yet not first
    assert "zero_grad() sets .grad to None  (torch-zero-grad-set-to-none-default): 2 in train.py, tune.py" in low
    assert "train.py:30" not in report
    assert "6 call site(s) in 5 file(s); 2 more at low confidence" in confident


def test_folded_stage_is_not_listed_as_unused(result):
    unused = text.render(result).split("other crossed change(s), no call site in this project:")[1]
    assert "torch-onnx-default-opset-14" not in unused
    assert "torch-complex-promotion-of-0dim-operands" in unused
