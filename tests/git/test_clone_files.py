"""Reading a clone's own files to describe it: what a hostile repository puts there (symlinks out
of the clone, a symlinked workflow folder, a FIFO, a huge file) is never followed, blocked on
or read whole."""

from __future__ import annotations

import os
from pathlib import Path

from activities.shelf.clone_files import (
    READ_LIMIT,
    SUMMARY_CHARS,
    ci_hints,
    instruction_files,
    read_clone_file,
    readme_summary,
)

SECRET = "the owner's private key\n"


def clone_with(root: Path, files: dict[str, str]) -> Path:
    clone = root / "clone"
    for name, text in files.items():
        (clone / name).parent.mkdir(parents=True, exist_ok=True)
        (clone / name).write_text(text)
    clone.mkdir(parents=True, exist_ok=True)
    return clone


def secret(root: Path) -> Path:
    path = root / "outside" / "id_ed25519"
    path.parent.mkdir(parents=True)
    path.write_text(SECRET)
    return path


def test_a_readme_gives_its_first_line_of_prose(tmp_path: Path) -> None:
    text = "# Sample API\n\n[![ci](https://x/badge.svg)](https://x)\n<p>logo</p>\n\nServes notes.\n"
    clone = clone_with(tmp_path, {"README.md": text})
    assert readme_summary(clone) == "Serves notes."


def test_a_readme_of_a_title_only_gives_the_title_and_a_long_line_is_cut(tmp_path: Path) -> None:
    assert readme_summary(clone_with(tmp_path / "a", {"README.md": "# Sample\n"})) == "Sample"
    long = "word " * 100
    summary = readme_summary(clone_with(tmp_path / "b", {"README.md": long}))
    assert len(summary) == SUMMARY_CHARS and summary.endswith("…")


def test_a_symlinked_readme_is_not_read(tmp_path: Path) -> None:
    clone = clone_with(tmp_path, {})
    (clone / "README.md").symlink_to(secret(tmp_path))
    assert read_clone_file(clone, "README.md") is None
    assert readme_summary(clone) == ""


def test_a_file_under_a_symlinked_folder_is_not_read(tmp_path: Path) -> None:
    clone = clone_with(tmp_path, {})
    (clone / "docs").symlink_to(secret(tmp_path).parent)
    assert (clone / "docs" / "id_ed25519").read_text() == SECRET  # what a follower would read
    assert read_clone_file(clone, "docs/id_ed25519") is None


def test_a_huge_file_is_read_only_to_the_limit(tmp_path: Path) -> None:
    clone = clone_with(tmp_path, {"README.md": "x" * (1024 * 1024)})
    text = read_clone_file(clone, "README.md")
    assert text is not None and len(text) == READ_LIMIT


def test_a_fifo_is_neither_read_nor_listed(tmp_path: Path) -> None:
    clone = clone_with(tmp_path, {"AGENTS.md": "Run make test.\n"})
    os.mkfifo(clone / "CLAUDE.md")
    os.mkfifo(clone / "README.md")
    assert read_clone_file(clone, "CLAUDE.md") is None  # no writer: a reader would block
    assert readme_summary(clone) == ""
    assert instruction_files(clone) == ["AGENTS.md"]


def test_instruction_files_and_folders_are_listed_but_not_symlinks_or_folders(
    tmp_path: Path,
) -> None:
    clone = clone_with(
        tmp_path,
        {
            "CLAUDE.md": "rules\n",
            ".github/copilot-instructions.md": "rules\n",
            ".cursor/rules/style.mdc": "rules\n",
            ".cursor/rules/tests.mdc": "rules\n",
        },
    )
    (clone / "AGENTS.md").symlink_to(secret(tmp_path))
    (clone / "CONVENTIONS.md").mkdir()
    (clone / ".cursor" / "rules" / "sub").mkdir()
    assert instruction_files(clone) == [
        "CLAUDE.md",
        ".github/copilot-instructions.md",
        ".cursor/rules/style.mdc",
        ".cursor/rules/tests.mdc",
    ]


def test_ci_hints_name_workflows_and_ci_files(tmp_path: Path) -> None:
    clone = clone_with(
        tmp_path,
        {
            ".github/workflows/test.yml": "on: push\n",
            ".github/workflows/release.yaml": "on: tag\n",
            ".gitlab-ci.yml": "test: {}\n",
        },
    )
    assert ci_hints(clone) == (
        [".github/workflows/release.yaml", ".github/workflows/test.yml", ".gitlab-ci.yml"],
        [],
    )


def test_a_symlinked_workflow_folder_is_refused(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "workflows").mkdir(parents=True)
    (elsewhere / "workflows" / "deploy.yml").write_text("on: push\n")
    clone = clone_with(tmp_path / "a", {})
    (clone / ".github").mkdir()
    (clone / ".github" / "workflows").symlink_to(elsewhere / "workflows")
    assert ci_hints(clone) == ([], [".github/workflows"])
    under = clone_with(tmp_path / "b", {})
    (under / ".github").symlink_to(elsewhere)
    assert ci_hints(under) == ([], [".github/workflows"])
