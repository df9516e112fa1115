"""Every locked package's requirement on the torch family, read from a real index server's
metadata of real wheels (recorded from PyPI): the xformers pin a one-line torch bump leaves."""

from __future__ import annotations

import socket
from pathlib import Path

from indexserver import index
from packaging.version import Version

from auditor.dependencies.metadata import Index
from auditor.dependencies.reader import Reader
from auditor.dependencies.requirements import check_requirements
from auditor.models import Pin


def lock(torch: str, **more: str) -> list[Pin]:
    pins = [Pin("numpy", Version("1.26.4"), line=1), Pin("torch", Version(torch), line=2),
            Pin("xformers", Version("0.0.23"), line=3)]
    return pins + [Pin(name, Version(version), line=4 + i) for i, (name, version) in enumerate(more.items())]


def test_a_torch_bump_that_leaves_xformers_behind_breaks_at_its_line(tmp_path: Path) -> None:
    with index() as served:
        checked = check_requirements(lock("2.2.0"), Reader(Index(served.url, tmp_path), tmp_path / "cache"), "requirements.txt")
    assert [(f.kind, f.package, f.path, f.line) for f in checked.findings] == [
        ("requirement-violated", "xformers", "requirements.txt", 3)]
    message = checked.findings[0].message
    assert "xformers 0.0.23 requires torch==2.1.1" in message
    assert "xformers 0.0.24 is the first later release that accepts torch 2.2.0" in message
    assert served.ranges > 0  # the wheels' METADATA, read by ranges: this index serves no PEP 658 file
    assert (checked.unread, checked.read) == ((), 2)


def test_the_metadata_file_is_read_where_the_index_offers_it(tmp_path: Path) -> None:
    with index(pep658=True) as served:
        checked = check_requirements(lock("2.2.0"), Reader(Index(served.url, tmp_path), tmp_path / "cache"))
    assert [f.package for f in checked.findings] == ["xformers"]
    assert served.ranges == 0
    assert served.requests["/files/xformers-0.0.23-cp310-cp310-manylinux2014_x86_64.whl.metadata"] == 1


def test_the_pins_it_was_built_for_pass(tmp_path: Path) -> None:
    with index() as served:
        checked = check_requirements(lock("2.1.1"), Reader(Index(served.url, tmp_path), tmp_path / "cache"))
    assert checked.findings == () and checked.read == 2


def test_a_second_audit_of_the_same_lock_asks_the_index_nothing(tmp_path: Path) -> None:
    with index() as served:
        first = check_requirements(lock("2.2.0"), Reader(Index(served.url, tmp_path), tmp_path / "cache"))
        asked = sum(served.requests.values())
        second = check_requirements(lock("2.2.0"), Reader(Index(served.url, tmp_path), tmp_path / "cache"))
        assert sum(served.requests.values()) == asked > 0
    assert first == second


def test_an_unreachable_index_names_each_package_not_read(tmp_path: Path) -> None:
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    checked = check_requirements(lock("2.2.0"), Reader(Index(f"http://127.0.0.1:{port}/simple/", tmp_path), tmp_path / "cache"))
    assert checked.findings == ()
    assert [u.split(":")[0] for u in checked.unread] == ["numpy 1.26.4", "xformers 0.0.23"]
    assert all("cannot read the index" in u for u in checked.unread)
    assert checked.read == 0


def test_a_requirement_of_an_extra_does_not_count_and_one_of_a_platform_does(tmp_path: Path) -> None:
    extra = {"pkg-extra": [("1.0", "Name: pkg-extra\nVersion: 1.0\nRequires-Dist: torch==2.1.1; extra == 'gpu'\n")],
             "pkg-linux": [("1.0", ("Name: pkg-linux\nVersion: 1.0\n"
                                    "Requires-Dist: torch==2.1.1; platform_system == 'Linux'\n"))]}
    with index(extra=extra) as served:
        checked = check_requirements(lock("2.2.0", **{"pkg-extra": "1.0", "pkg-linux": "1.0"}),
                                     Reader(Index(served.url, tmp_path), tmp_path / "cache"))
    assert sorted(f.package for f in checked.findings) == ["pkg-linux", "xformers"]
    assert "no later release of pkg-linux on the index accepts torch 2.2.0" in checked.findings[0].message


def test_a_lock_that_records_dependencies_reads_only_the_packages_naming_torch(tmp_path: Path) -> None:
    pins = [Pin("numpy", Version("1.26.4"), line=1), Pin("torch", Version("2.2.0"), line=2, requires=("numpy",)),
            Pin("xformers", Version("0.0.23"), line=3, requires=("numpy", "torch"))]
    with index() as served:
        checked = check_requirements(pins, Reader(Index(served.url, tmp_path), tmp_path / "cache"))
        assert served.requests["/simple/numpy/"] == 0
    assert [f.package for f in checked.findings] == ["xformers"] and checked.read == 1


def test_a_release_with_only_a_source_archive_is_read_from_its_egg_info(tmp_path: Path) -> None:
    """No wheel: the archive's PKG-INFO names no requirement, its requires.txt does (a marker
    section holds on Linux; an extra's section is left out)."""
    sdists = {"oldlib": [("1.5.2", {
        "PKG-INFO": "Metadata-Version: 2.1\nName: oldlib\nVersion: 1.5.2\n",
        "oldlib.egg-info/requires.txt": "numpy\n\n[:platform_system == \"Linux\"]\ntorch<2.0\n\n[docs]\ntorch==1.0\n",
        "oldlib/__init__.py": "import torch\n",
    })]}
    with index(sdists=sdists) as served:
        checked = check_requirements(lock("2.2.0", oldlib="1.5.2"), Reader(Index(served.url, tmp_path), tmp_path / "cache"))
    said = {f.package: f.message for f in checked.findings}
    assert "oldlib 1.5.2 requires torch<2.0" in said["oldlib"]
    assert checked.unread == ()
