"""Where the test tree's data lives, so a test file can move between folders without counting parents."""

from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
REPO = TESTS.parent
DATA = TESTS / "data"
FIXTURES = TESTS / "fixtures"
