"""pip freeze output: `==`, `===`, local labels, `name @ url`, editable lines and CRLF."""

from lockfixtures import LOCKS, pins, read, versions
from packaging.version import Version

from auditor.lockfiles.detect import detect
from auditor.lockfiles.interface import read_text


def test_local_labels_and_names_are_canonical() -> None:
    lock = read("pip-freeze/cu117.txt")
    assert lock.format == "pip-freeze"
    found = versions(lock)
    assert found["torch"] == "1.13.1+cu117"
    assert found["torchvision"] == "0.14.1+cu117"
    assert (
        found["zope-interface"] == "5.5.2"
        and found["jinja2"] == "3.1.2"
        and found["pillow"] == "9.4.0"
    )
    assert pins(lock, "torch")[0].line == 8


def test_crlf_lines_parse_like_lf() -> None:
    lock = read("pip-freeze/crlf.txt")
    assert versions(lock) == {
        "numpy": "1.24.1",
        "torch": "2.0.1+cu118",
        "torchvision": "0.15.2+cu118",
        "typing-extensions": "4.7.1",
    }


def test_direct_urls_take_the_wheel_version_and_conda_file_lines_are_local() -> None:
    lock = read("pip-freeze/conda-env.txt")
    torchvision = pins(lock, "torchvision")[0]
    assert torchvision.version == Version("0.15.2+cu118")  # %2B in the wheel name is +
    assert torchvision.source and torchvision.source.startswith(
        "https://download.pytorch.org/whl/cu118/"
    )
    assert pins(lock, "numpy")[0].version == Version("1.25.1")
    certifi = pins(lock, "certifi")[0]
    assert certifi.version is None and certifi.source.startswith(
        "file:///"
    )  # reported, not dropped
    assert {p.name for p in lock.pins if p.local and p.version is None} == {
        "certifi", "charset-normalizer"
    }
    assert lock.unpinned() == ()  # a local folder has no version to pin


def test_editable_lines_take_their_header_version_and_vcs_source() -> None:
    lock = read("pip-freeze/editable.txt")
    trainer = pins(lock, "mytrainer")[0]
    assert trainer.version == Version("0.3.0") and trainer.source == "/home/user/src/mytrainer"
    visionkit = pins(lock, "visionkit")[0]
    assert visionkit.version is None and visionkit.source.startswith(
        "git+https://github.com/example/"
    )
    legacy = pins(lock, "legacy-tool")[0]
    assert legacy.version is None and legacy.specifier == "===2004d"
    assert versions(lock)["urllib3"] == "2.0.7"  # after the "added by pip freeze" header


def test_freeze_signature_wins_over_a_requirements_name(tmp_path) -> None:
    target = tmp_path / "requirements.txt"
    target.write_text((LOCKS / "pip-freeze/editable.txt").read_text())
    assert detect(target, read_text(target)).name == "pip-freeze"
