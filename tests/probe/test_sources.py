"""pip's configuration, read through pip itself, turned into the options uv needs."""

from __future__ import annotations

from pathlib import Path

import pytest

from auditor.probe.sources import TORCH_CPU_INDEX, Sources, pip_config


@pytest.fixture
def pip_conf(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("PIP_FIND_LINKS", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_NO_INDEX"):
        monkeypatch.delenv(name, raising=False)
    config = tmp_path / "pip.conf"
    config.write_text(
        "[global]\nindex-url = https://mirror.example/simple\n"
        "extra-index-url =\n    file:///srv/one/simple\n    file:///srv/two/simple\n"
        "find-links = /srv/wheels\n",
        "utf-8",
    )
    monkeypatch.setenv("PIP_CONFIG_FILE", str(config))
    return config


def test_pip_configuration_is_read_through_pip(pip_conf: Path) -> None:
    found = pip_config("python")
    assert found["index_url"] == "https://mirror.example/simple"
    assert found["extra_index_urls"] == ("file:///srv/one/simple", "file:///srv/two/simple")
    assert found["find_links"] == ("/srv/wheels",)


def test_environment_variables_win_over_files(pip_conf: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PIP_FIND_LINKS", "/env/wheels")
    assert pip_config("python")["find_links"] == ("/env/wheels",)


def test_options_go_over_pip_configuration(pip_conf: Path) -> None:
    sources = Sources(index_url="https://other.example/simple", find_links=("/more",), offline=True,
                      use_pip_config=True).resolved()
    assert sources.index_url == "https://other.example/simple"
    assert sources.find_links == ("/srv/wheels", "/more")
    assert sources.extra_index_urls == ("file:///srv/one/simple", "file:///srv/two/simple")
    args = sources.uv_args()
    assert args[:4] == ["--only-binary", ":all:", "--index-strategy", "unsafe-best-match"]
    assert "--offline" in args
    assert args[args.index("--index-url") + 1] == "https://other.example/simple"
    assert [args[i + 1] for i, a in enumerate(args) if a == "--find-links"] == ["/srv/wheels", "/more"]


def test_without_pip_a_missing_configuration_is_empty() -> None:
    assert pip_config("/nonexistent/python") == {}


def test_the_torch_cpu_index_is_left_out_when_unreachable_or_offline() -> None:
    unreachable = Sources(torch_index="http://127.0.0.1:9/simple")
    sources, note = unreachable.for_package("torch")
    assert sources.extra_index_urls == () and "not reachable" in (note or "")
    assert Sources(offline=True).for_package("torch") == (Sources(offline=True), None)
    assert Sources().for_package("numpy") == (Sources(), None)
    assert Sources().torch_index == TORCH_CPU_INDEX


def test_a_reachable_torch_index_comes_first(tmp_path: Path) -> None:
    local = tmp_path.as_uri()
    sources, note = Sources(extra_index_urls=("file:///x",), torch_index=local).for_package("torch")
    assert note is None and sources.extra_index_urls == (local, "file:///x")


def test_no_index_from_pip_configuration_is_kept(pip_conf: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    sources = Sources(use_pip_config=True).resolved()
    assert sources.no_index and "--no-index" in sources.uv_args() and "--index-url" not in sources.uv_args()
