"""JSON extensions of the contract's envelope: `counts`, `good_news`, and `stages` per finding."""

import json

from auditor.report import json as json_report


def test_counts_good_news_and_stages(result):
    document = json.loads(json_report.render(result))
    assert document["counts"] == {
        "call_sites": 6, "files": 5, "changes": 4,
        "low_confidence_call_sites": 2, "low_confidence_files": 2, "low_confidence_changes": 1,
        "gating_call_sites": 6, "warning_call_sites": 0, "vendored_call_sites": 0,
    }
    assert [(g["change"], g["kind"], [(s["path"], s["line"]) for s in g["sites"]]) for g in document["good_news"]] == [
        ("torch-distributed-tensor-public", "made-public", [("dist.py", 3)])]
    assert "you may use the public name" in document["good_news"][0]["message"]
    staged = [f for f in document["findings"] if f["stages"]]
    assert [(f["change"], f["stages"]) for f in staged] == [("torch-onnx-default-opset-17", ["torch-onnx-default-opset-14"])]
    assert len(document["findings"]) == 8  # every finding stays in the list, low ones included
