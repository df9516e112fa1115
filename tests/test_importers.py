"""Which files import a module, read from their import lines."""

from pathlib import Path

from auditor.importers import Importers, module_names


def test_module_names() -> None:
    assert module_names("shared/util.py") == ("shared.util",)
    assert module_names("src/kit/io.py") == ("src.kit.io", "kit.io")
    assert module_names("kit/__init__.py") == ("kit",)
    assert module_names("my-tools/util.py") == ()  # no import names it


def test_import_forms(tmp_path: Path) -> None:
    sources = {
        "a.py": "import shared.util\n",
        "b.py": "from shared.util import load\n",
        "c.py": "from shared import (\n    other,\n    util,\n)\n",
        "d.py": "from shared import other  # util\n",
        "e.py": "# import shared.util\nx = 'from shared.util import y'\n",
        "f.py": "from kit.io import read\n",
    }
    for name, text in sources.items():
        (tmp_path / name).write_text(text, "utf-8")
    found = Importers(tmp_path, sources)
    assert found.of("shared/util.py") == {"a.py", "b.py", "c.py"}
    assert found.of("src/kit/io.py") == {"f.py"}
