"""What each probe claims to show is named the way a user meets it: an exception by its class."""

import re

from auditor.knowledge.base import KnowledgeBase

EXCEPTION = re.compile(r"^[A-Z][A-Za-z]*(Error|Exception)\b")


def test_every_now_raises_probe_names_the_exception_class(kb: KnowledgeBase) -> None:
    vague = [
        e.id
        for e in kb.entries
        if e.kind == "now-raises" and e.probe and not e.probe.skip
        and not e.probe.raises and not EXCEPTION.match(e.probe.after)
    ]
    assert vague == []


# Probes that print "warns" without declaring the category, and why.
UNDECLARED = {
    "torch-quantized-tensor-creation-deprecated": "the warning is raised in a child interpreter the probe starts",
}


def test_probes_that_print_warns_declare_the_category(kb: KnowledgeBase) -> None:
    probed = [e for e in kb.entries if e.probe and not e.probe.skip and e.probe.after == "warns"]
    undeclared = {e.id for e in probed if not e.probe.warns}
    assert undeclared == set(UNDECLARED)
    assert all(e.probe.warns.partition(": ")[0].endswith("Warning") for e in probed if e.probe.warns)


def test_kb_verify_takes_the_probe_memory_limit() -> None:
    """CUDA builds of torch 2.10+ map more than the 4 GiB default; kb verify lets it be raised."""
    import json

    from typer.testing import CliRunner

    from auditor.cli import app

    def statuses(*options: str) -> set[str]:
        result = CliRunner().invoke(app, ["kb", "verify", "--package", "numpy", "--format", "json", *options])
        return {r["status"] for r in json.loads(result.stdout)["results"]} - {"skip"}

    assert "pass" not in statuses("--memory-limit", "40")  # numpy cannot even import in 40 MiB
    assert statuses("--memory-limit", "0") == {"pass"}
