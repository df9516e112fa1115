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
