import io

from rich.console import Console

from auditor.probe import SILENT, RichReporter


def test_the_rich_reporter_shows_each_step_and_note() -> None:
    stream = io.StringIO()
    reporter = RichReporter(Console(file=stream, width=100, force_terminal=False))
    with reporter.task("installing numpy 2.0.0 (Python 3.11)"):
        pass
    reporter.note("https://download.pytorch.org/whl/cpu is not reachable")
    text = stream.getvalue()
    assert "installing numpy 2.0.0 (Python 3.11)" in text
    assert "note: https://download.pytorch.org/whl/cpu is not reachable" in text


def test_the_default_reporter_is_silent(capsys) -> None:
    with SILENT.task("resolving"):
        SILENT.note("nothing")
    assert capsys.readouterr() == ("", "")


def test_the_note_keeper_passes_everything_on_and_keeps_each_note_once() -> None:
    import json

    from packaging.version import Version

    from auditor.models import AuditResult, Transition
    from auditor.progress import NoteKeeper
    from auditor.report import probe as probe_report

    stream = io.StringIO()
    keeper = NoteKeeper(RichReporter(Console(file=stream, width=100, force_terminal=False)))
    with keeper.task("installing torch 1.12.1 (Python 3.10)"):
        keeper.note("https://download.pytorch.org/whl/cpu is not reachable; torch comes from the other indexes")
    keeper.note("https://download.pytorch.org/whl/cpu is not reachable; torch comes from the other indexes")
    keeper.note("torch-x killed its batch on torch 1.12.1; it was rerun alone")
    assert "installing torch 1.12.1 (Python 3.10)" in stream.getvalue()
    assert stream.getvalue().count("is not reachable") == 2  # shown each time, kept once
    assert keeper.notes == [
        "https://download.pytorch.org/whl/cpu is not reachable; torch comes from the other indexes",
        "torch-x killed its batch on torch 1.12.1; it was rerun alone",
    ]
    result = AuditResult((Transition("torch", Version("1.12.1"), Version("2.13.0")),), (), (), notes=tuple(keeper.notes))
    assert json.loads(probe_report.render(result, "json"))["notes"] == keeper.notes
    assert "note: torch-x killed its batch on torch 1.12.1; it was rerun alone" in probe_report.render(result, "text")
