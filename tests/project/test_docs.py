"""Every reference in README.md and docs/ is checked against the code.

A page may name: a link to a file or a heading, a `codedesk` command and its options, a Discord
slash command, a `CODEDESK_*` variable, a file of the repository (`desk/config/settings.py`,
`tests/test_x.py::test_name`), a module or an attribute of one (`surfaces.cli.reference`), a
`make` target, and a codedesk.toml key. Each must exist; a test here fails naming the page and
the reference that does not.
"""

from __future__ import annotations

import importlib
import re
import shlex
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import typer

from desk.config.basics.setting_names import OUR_VARIABLES, SETTING_NAMES

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
PACKAGES = ("desk", "workflows", "activities", "workers", "surfaces", "tests", "bench")
FOLDERS = (*PACKAGES, "docs", ".ci")
MISSPELT = {"CODEDESK_MAX_WORKRS"}
"""Names the settings page spells wrong on purpose, to show the warning a misspelling gets."""

FENCE = re.compile(r"^ *```(\w*)\n(.*?)^ *```", re.MULTILINE | re.DOTALL)
SPAN = re.compile(r"`([^`]+)`")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
VARIABLE = re.compile(r"\bCODEDESK_[A-Z0-9_]*[A-Z0-9]\b")
PATH = re.compile(
    rf"(?<![\w/.~$<>-])((?:{'|'.join(re.escape(f) for f in FOLDERS)})(?:/[\w.*-]*)+(?:::\w+)?)"
)
MODULE = re.compile(rf"(?<![\w./-])((?:{'|'.join(PACKAGES)})(?:\.\w+)+)")
SHELL_BREAKS = {"|", "||", "&&", ";", "&", ">", "2>&1"}


def page_id(page: Path) -> str:
    return str(page.relative_to(ROOT))


class Page:
    """A page split into its prose, its fenced blocks (with their language) and code spans."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.text = path.read_text(encoding="utf-8")
        self.blocks = [(lang, body) for lang, body in FENCE.findall(self.text)]
        self.prose = FENCE.sub("", self.text)
        self.spans = [" ".join(span.split()) for span in SPAN.findall(self.prose)]

    def code(self) -> Iterator[str]:
        """Each code span, and each line of each fenced block."""
        yield from self.spans
        for _, body in self.blocks:
            yield from body.splitlines()

    def headings(self) -> set[str]:
        return anchors(self.prose)


def anchors(markdown: str) -> set[str]:
    """The anchors GitHub gives a page's headings (lower case, punctuation dropped, a dash for
    each space, `-1`, `-2` for repeats)."""
    seen: dict[str, int] = {}
    found = set()
    for heading in re.findall(r"^#{1,6} +(.+?) *$", markdown, re.MULTILINE):
        slug = re.sub(r"[^\w\- ]", "", heading.replace("`", "").lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


@cache
def cli() -> Any:
    from surfaces.cli.app import app

    return typer.main.get_command(app)


def option_names(command: Any) -> set[str]:
    names = {"--help", "-h"}
    for param in command.params:
        names.update(param.opts)
        names.update(param.secondary_opts)
    return names


def command_problem(words: list[str]) -> str | None:
    """Why `codedesk WORDS...` names no command or option of the CLI, or None."""
    command = cli()
    for k, written in enumerate(words):
        word = written.strip("[]")  # `codedesk logs N [-f]`: an option in brackets is optional
        if word in SHELL_BREAKS or word.startswith(("#", "<", "…", "...")):
            return None
        if word.startswith("-"):
            if word.split("=")[0] not in option_names(command):
                return f"{word} is no option of {command.name}"
            continue
        subcommands = getattr(command, "commands", None)
        if subcommands is None:
            continue  # an argument
        if not re.fullmatch(r"[a-z][a-z-]*(\|[a-z][a-z-]*)*", word):
            return None  # a placeholder (COMMAND, OWNER/REPO)
        names = word.split("|")
        missing = [name for name in names if name not in subcommands]
        if missing:
            return f"no command {' '.join([*words[:k], missing[0]])!r}"
        if len(names) > 1:
            return None
        command = subcommands[word]
    return None


def codedesk_invocations(page: Page) -> Iterator[list[str]]:
    for code in page.code():
        line = code.strip().removeprefix("$ ")
        if not line.startswith("codedesk "):
            continue
        try:
            words = shlex.split(line, comments=True)
        except ValueError:
            words = line.split()
        yield words[1:]


@pytest.mark.parametrize("path", PAGES, ids=page_id)
def test_every_relative_link_reaches_a_file_and_its_heading(path: Path) -> None:
    page = Page(path)
    wrong = []
    for target in LINK.findall(page.prose):
        if re.match(r"[a-z]+:", target):
            continue
        file, _, anchor = target.partition("#")
        linked = (path.parent / file).resolve() if file else path
        if not linked.exists():
            wrong.append(f"{target}: no such file")
        elif anchor and linked.suffix == ".md" and anchor not in Page(linked).headings():
            wrong.append(f"{target}: no such heading in {linked.name}")
    assert wrong == [], f"{page_id(path)}: {wrong}"


@pytest.mark.parametrize("path", PAGES, ids=page_id)
def test_every_codedesk_command_and_option_exists(path: Path) -> None:
    page = Page(path)
    wrong = [
        f"codedesk {' '.join(words)}: {problem}"
        for words in codedesk_invocations(page)
        if (problem := command_problem(words))
    ]
    assert wrong == [], f"{page_id(path)}: {wrong}"


@pytest.mark.parametrize("path", PAGES, ids=page_id)
def test_every_discord_command_and_parameter_exists(path: Path) -> None:
    from surfaces.discord.interactions.slash_commands import COMMANDS

    commands = {command.name: command for command in COMMANDS}
    wrong = []
    for span in Page(path).spans:
        first, *rest = span.split()
        match = re.fullmatch(r"/([a-z]+)", first)
        # /tmp, /proc, /run: a folder at the root of the file system, not a command
        if match is None or Path(first).is_dir():
            continue
        command = commands.get(match[1])
        if command is None:
            wrong.append(f"{span}: no slash command {first}")
            continue
        parameters = {parameter.name for parameter in command.parameters}
        for word in rest:
            name, colon, _ = word.partition(":")
            if colon and name not in parameters:
                wrong.append(f"{span}: {first} has no parameter {name}")
    assert wrong == [], f"{page_id(path)}: {wrong}"


@pytest.mark.parametrize("path", PAGES, ids=page_id)
def test_every_codedesk_variable_is_a_setting_or_ours(path: Path) -> None:
    settings = {f"CODEDESK_{name.upper()}" for name in SETTING_NAMES}
    named = set(VARIABLE.findall(path.read_text(encoding="utf-8")))
    wrong = sorted(named - settings - OUR_VARIABLES - MISSPELT)
    assert wrong == [], (
        f"{page_id(path)}: {wrong} are no setting (desk/config/settings.py) and not ours "
        "(desk/config/basics/setting_names.py OUR_VARIABLES)"
    )


@pytest.mark.parametrize("path", PAGES, ids=page_id)
def test_every_repository_path_exists(path: Path) -> None:
    text = re.sub(r"https?://\S+", "", path.read_text(encoding="utf-8"))
    wrong = []
    for reference in sorted(set(PATH.findall(text))):
        file, _, name = reference.rstrip(".,:;").partition("::")
        found = sorted(ROOT.glob(file)) if "*" in file else [ROOT / file]
        if not found or not found[0].exists():
            wrong.append(f"{reference}: no such file")
        elif name and not re.search(
            rf"^\s*(async )?def {name}\(", found[0].read_text(), re.MULTILINE
        ):
            wrong.append(f"{reference}: no test {name} in {file}")
    assert wrong == [], f"{page_id(path)}: {wrong}"


def module_problem(dotted: str) -> str | None:
    """Why `dotted` (a module, or a module and attributes) names nothing of ours, or None."""
    parts = dotted.split(".")
    for end in range(len(parts), 0, -1):
        where = ROOT.joinpath(*parts[:end])
        if where.with_suffix(".py").is_file() or (where / "__init__.py").is_file():
            break
    else:
        return "no such module"
    value: Any = importlib.import_module(".".join(parts[:end]))
    for k, attribute in enumerate(parts[end:], start=end):
        if not hasattr(value, attribute):
            return f"{'.'.join(parts[:k])} has no {attribute}"
        value = getattr(value, attribute)
    return None


@pytest.mark.parametrize("path", PAGES, ids=page_id)
def test_every_module_named_in_code_exists(path: Path) -> None:
    page = Page(path)
    named = {dotted for code in page.code() for dotted in MODULE.findall(code)}
    wrong = [
        f"{dotted}: {problem}" for dotted in sorted(named) if (problem := module_problem(dotted))
    ]
    assert wrong == [], f"{page_id(path)}: {wrong}"


def make_targets() -> set[str]:
    makefile = (ROOT / "Makefile").read_text()
    found = set(re.findall(r"^([^\s:#=]+):", makefile, re.MULTILINE))
    return {t.replace("$(BIN)", ".venv/bin").replace("$(VENV)", ".venv") for t in found}


@pytest.mark.parametrize("path", PAGES, ids=page_id)
def test_every_make_target_exists(path: Path) -> None:
    page = Page(path)
    named = {target for code in page.code() for target in re.findall(r"\bmake ([\w./-]+)", code)}
    assert named - make_targets() == set(), f"{page_id(path)}: no such make target"


@pytest.mark.parametrize("path", PAGES, ids=page_id)
def test_every_codedesk_toml_key_is_a_setting(path: Path) -> None:
    keys = {
        key
        for lang, body in Page(path).blocks
        if lang == "toml"
        for key in re.findall(r"^(\w+)\s*=", body, re.MULTILINE)
    }
    assert keys - SETTING_NAMES == set(), f"{page_id(path)}: keys that are no setting"


def test_the_readme_links_every_docs_page() -> None:
    readme = Page(ROOT / "README.md")
    linked = {(ROOT / target.partition("#")[0]).resolve() for target in LINK.findall(readme.prose)}
    pages = set(PAGES[1:])
    assert pages - linked == set(), "a docs/ page the README's 'where to go next' does not link"


def test_the_internals_table_has_a_row_for_each_workflow_type() -> None:
    import inspect
    import pkgutil

    import workflows

    defined = {}
    for info in pkgutil.walk_packages(workflows.__path__, "workflows."):
        module = importlib.import_module(info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            definition = getattr(cls, "__temporal_workflow_definition", None)
            if definition is not None and cls.__module__ == module.__name__:
                defined[definition.name] = f"{cls.__module__}.{cls.__name__}"
    page = (ROOT / "docs" / "internals.md").read_text()
    rows = dict(re.findall(r"^\| `(\w+)` \| .* \| `([\w.]+)` \|$", page, re.MULTILINE))
    assert rows == defined, "docs/internals.md's workflow table and the workflow types differ"
