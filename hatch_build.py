"""The wheel carries its knowledge base read and checked at build time (`auditor.knowledge.stored.ship`):
an installed auditor reads no TOML file, not even on its first run. A knowledge base that does not
load stops the build with every problem listed. It carries the knowledge files too, but of each
change's folder only the entry: the fixtures, snapshots and evidence stay in the repository
(`auditor.knowledge.folders.shipped_files`). Editable installs read the checkout's files."""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class ShippedKnowledge(BuildHookInterface):  # type: ignore[misc]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or version == "editable":
            return
        sys.path.insert(0, self.root)
        try:
            from auditor.knowledge.folders import shipped_files
            from auditor.knowledge.stored import GENERATED, SHIPPED, ship
        finally:
            sys.path.remove(self.root)
        knowledge = Path(self.root) / "knowledge"
        for file in shipped_files(knowledge):
            build_data["force_include"][str(file)] = f"auditor/_knowledge/{file.relative_to(knowledge).as_posix()}"
        self._made = Path(tempfile.mkdtemp(prefix="auditor-build-"))
        ship(knowledge, self._made / SHIPPED)  # and the generated changes beside it
        for name in (SHIPPED, GENERATED):
            build_data["force_include"][str(self._made / name)] = f"auditor/_knowledge/{name}"

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        made = getattr(self, "_made", None)
        if made is not None:
            shutil.rmtree(made, ignore_errors=True)
