"""Finding the project's call sites that the crossed spec changes touch."""

from auditor.scan.project import scan_project
from auditor.scan.rules import RuleIndex
from auditor.scan.scanner import scan_file, scan_source

__all__ = ["RuleIndex", "scan_file", "scan_project", "scan_source"]
