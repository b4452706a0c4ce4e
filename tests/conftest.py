"""Shared by every test directory: tests/ itself is importable (tests/procs.py)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
