"""One real release pair from PyPI: numpy 1.26.4 -> 2.0.0 (wheels of about 15 MB)."""

from pathlib import Path

import pytest

from auditor.harvest import HarvestSettings, harvest


@pytest.mark.network
def test_numpy_2_0_removals_and_deprecations(tmp_path: Path) -> None:
    result = harvest("numpy", "1.26.4", "2.0.0", HarvestSettings(cache_dir=tmp_path))
    assert [r.version for r in result.releases] == ["1.26.4", "2.0.0"] and not result.failed
    found = {c.id: c for c in result.candidates}
    compat = found["numpy@2.0.0:removal-stub-added:numpy.compat"]
    assert compat.evidence[0].file == "numpy/_expired_attrs_2_0.py"
    assert "numpy@2.0.0:removal-stub-added:numpy.float_" in found
    chararray = found["numpy@2.0.0:deprecation-begins:numpy.chararray"]
    assert chararray.category == "DeprecationWarning"
    assert "numpy@2.0.0:deprecation-begins:numpy.trapz" in found
    assert "numpy@2.0.0:symbol-removed:numpy.compat" not in found  # its stub says it better
