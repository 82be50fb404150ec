"""What the shell rule costs: ordinary commands stay allowed, and docs/security.md's figure."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from desk.shell_rule.rule import HoldClass, shell_hold_classes

ROOT = Path(__file__).parents[2]
COMMANDS = Path(__file__).parents[1] / "data" / "agent_commands.txt"

ORDINARY = [
    "ls -la",
    "cat README.md",
    "head -n 40 src/app.py",
    "grep -rn TODO src/",
    "grep -r 'import requests' . | head -20",
    "rg -n --type py 'import os'",
    "git status",
    "git diff --stat",
    "git log --oneline -20",
    "git add -A",
    "git commit -m 'Add retry to the client'",
    "git add . && git commit -m 'Fix the parser'",
    "git checkout -b feature/retry",
    "git stash && git stash pop",
    "git fetch origin && git rebase origin/main",
    "pytest -q",
    "python -m pytest tests/test_app.py -x -q",
    "npm test",
    "npm run build",
    "npx tsc --noEmit",
    "make test",
    "cargo test",
    "go test ./...",
    "ruff check --fix src tests && mypy src",
    "sed -n '1,40p' src/app.py",
    "sed -i 's/foo/bar/g' src/app.py",
    "find . -name '*.py' -not -path './node_modules/*'",
    "find . -name '*.pyc' -delete",
    "echo hello > notes.txt",
    "echo 'dist/' >> .gitignore",
    "cat > src/new.py <<'EOF'\nVALUE = 1\nEOF",
    "mkdir -p src/utils && touch src/utils/__init__.py",
    "cp src/a.py src/b.py && mv src/old.py src/new.py",
    "rm -rf build dist node_modules",
    "cd src && ls",
    "cd frontend && npm install && npm run build",
    "(cd docs && make html)",
    "pytest -q 2>&1 | tail -20",
    "git ls-files | wc -l",
    "ps aux | grep python | head",
    "python -c 'import app; print(app.__version__)'",
    "pip install -r requirements.txt",
    "source .venv/bin/activate && pytest -q",
    "timeout 60 pytest -x",
    'for f in src/*.py; do python -m py_compile "$f"; done',
    "grep -rl old_name src | xargs sed -i 's/old_name/new_name/g'",
    "curl -s https://api.github.com/repos/octo/app | jq .stargazers_count",
    "curl -X POST localhost:8000/api/items -d '{}'",
    "gh pr view 12 && gh run list --limit 5",
    "diff -u <(sort a.txt) <(sort b.txt)",
    "git commit -m \"$(cat <<'EOF'\nFix the parser\n\nCo-Authored-By: agent\nEOF\n)\"",
    "git -c user.name=agent -c user.email=agent@example.com commit -m 'Fix'",
    "grep -rl foo . | xargs -r sed -i 's/foo/bar/g'",
    "find . -name '*.py' -print0 | xargs -0 ruff format",
    "cat ../other/README.md && ls ..",
    "make install PREFIX=./dist",
]


@pytest.mark.parametrize("command", ORDINARY)
def test_ordinary_agent_commands_stay_allowed(tmp_path: Path, command: str) -> None:
    assert shell_hold_classes(command, str(tmp_path)) == frozenset()


def agent_commands() -> list[str]:
    lines = COMMANDS.read_text(encoding="utf-8").splitlines()
    return [line.replace("↵", "\n") for line in lines if line and not line.startswith("#")]


def test_the_security_page_states_how_many_ordinary_commands_are_held(tmp_path: Path) -> None:
    commands = agent_commands()
    held = {c: shell_hold_classes(c, str(tmp_path)) for c in commands}
    held = {c: classes for c, classes in held.items() if classes}
    # Only the writes to /tmp are held, as writes outside the worktree.
    assert held == {
        'tmp=$(mktemp) && echo x > "$tmp"': {HoldClass.OUTSIDE_WORKSPACE},
        'echo "debug" > /tmp/agent.log': {HoldClass.OUTSIDE_WORKSPACE},
        "git diff > /tmp/change.patch": {HoldClass.OUTSIDE_WORKSPACE},
    }
    page = (ROOT / "docs" / "security.md").read_text(encoding="utf-8")
    figure = re.search(r"holds\s+(\d+)\s+of\s+the\s+(\d+)\s+ordinary\s+agent\s+commands", page)
    assert figure is not None, "docs/security.md: say how many ordinary agent commands are held"
    assert (int(figure[1]), int(figure[2])) == (len(held), len(commands))
