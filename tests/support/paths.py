"""Where the tests find the repository and their fixture files, wherever a test file sits."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parent / "fixtures"
