"""The crash table (docs/operations.md) names tests that exist, and every crash test file has a
row."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).parents[2]
PAGE = ROOT / "docs" / "operations.md"
ROW_TEST = re.compile(
    r"\[`(tests/crash/((?:\w+/)*test_\w+\.py))::(test_\w+)`\]\(((?:\.\./)*tests/crash/(?:\w+/)*test_\w+\.py)\)"
)


def crash_section() -> str:
    text = PAGE.read_text()
    start = text.index("## Crashes\n")
    return text[start : text.index("\n## ", start)]


def test_every_test_the_crash_table_names_exists_and_each_file_has_a_row() -> None:
    named = ROW_TEST.findall(crash_section())
    assert len(named) >= 10, named
    for path, _, name, target in named:
        linked = (PAGE.parent / target).resolve()
        assert linked == ROOT / path, f"the link of {path}::{name} points at {target}"
        source = (ROOT / path).read_text()
        assert re.search(rf"^(async )?def {name}\(", source, re.MULTILINE), f"{path}::{name}"
    files = {file for _, file, _, _ in named}
    crash = Path(__file__).parent
    here = {str(path.relative_to(crash)) for path in crash.rglob("test_*.py")}
    assert here - files == {Path(__file__).name}, (
        "a crash test file without a row in docs/operations.md"
    )
