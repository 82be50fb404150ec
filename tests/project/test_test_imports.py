"""Tests use helpers, not each other, and the product's public names only (issue 44).

The rule, held by reading the imports of every module under tests/ and bench/ with `ast`:

- No module imports a test module: a file named `test_*.py` is what pytest collects, never
  what another module imports, whether the other is a test, a conftest.py, a helper or a
  benchmark. Set-up that two test modules share lives in tests/helpers/ (its topics in
  subpackages there), a fixture that two share in the nearest conftest.py (or in a helpers
  module that conftest.py or the test imports); a stand-in or a program a test runs
  (tests/surfaces/fake_discord.py, tests/protocol/stand_in/, tests/helpers/programs/) is not
  a test module and may be imported.
- No module reaches a name of the product (desk, activities, workflows, workers, surfaces)
  that starts with `_`: not by `from x import _name`, not by `import x._module`, not by
  `module._name`, and not by naming it to `setattr`/`getattr`/`monkeypatch.setattr` as a string.
  A test that must check such a thing asks the product to make it public under a clear name.

Every import counts: at module level, inside a function, under `if TYPE_CHECKING:`, `import x`
as well as `from x import y`, and relative ones.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("desk", "activities", "workflows", "workers", "surfaces")
READ = ("tests", "bench")


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def known_modules(root: Path) -> dict[str, Path]:
    """Every module of ours, the product's and the tests' and the benchmarks', by name."""
    found = {}
    for top in (*PRODUCT, *READ):
        for path in sorted((root / top).rglob("*.py")):
            if "__pycache__" not in path.parts:
                found[module_name(path, root)] = path
    return found


def is_test_module(name: str) -> bool:
    return name.split(".")[0] == "tests" and name.rpartition(".")[2].startswith("test_")


def is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _statements(nodes: Iterable[ast.AST]) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import among `nodes`, however deep (a function, a class, `if`, `with`, `try`)."""
    for node in nodes:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        else:
            yield from _statements(ast.iter_child_nodes(node))


def _source_of(node: ast.ImportFrom, package: list[str]) -> str:
    if not node.level:
        return node.module or ""
    base = package[: len(package) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def problems(name: str, source: str, known: set[str], *, is_package: bool = False) -> list[str]:
    """What module `name` (its text `source`) does against the rule, as `name:line what`."""
    tree = ast.parse(source)
    package = name.split(".") if is_package else name.split(".")[:-1]
    found: list[str] = []
    bound: dict[str, str] = {}  # a local name -> the module of ours it names
    for node in _statements(tree.body):
        where = f"{name}:{node.lineno}"
        if isinstance(node, ast.Import):
            for alias in node.names:
                if is_test_module(alias.name):
                    found.append(f"{where} imports the test module {alias.name}")
                if _ours(alias.name) and any(is_private(part) for part in alias.name.split(".")):
                    found.append(f"{where} imports the private {alias.name}")
                if alias.asname:
                    bound[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    bound[top] = top
            continue
        origin = _source_of(node, package)
        if is_test_module(origin):
            found.append(f"{where} imports from the test module {origin}")
        for alias in node.names:
            full = f"{origin}.{alias.name}"
            if is_test_module(full) and full in known:
                found.append(f"{where} imports the test module {full}")
            if origin.split(".")[0] in PRODUCT and (
                is_private(alias.name) or any(is_private(part) for part in origin.split("."))
            ):
                found.append(f"{where} imports the private {full}")
            if full in known:
                bound[alias.asname or alias.name] = full
    found += _private_reaches(name, tree, bound, known)
    return sorted(found, key=lambda problem: int(problem.split(":")[1].split()[0]))


def _ours(module: str) -> bool:
    return module.split(".")[0] in PRODUCT


def _dotted(node: ast.expr) -> list[str] | None:
    """`a.b.c` as ["a", "b", "c"]; None for anything but names and attributes."""
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return None if base is None else [*base, node.attr]
    return None


def _private_reaches(name: str, tree: ast.AST, bound: dict[str, str], known: set[str]) -> list[str]:
    """`module._name` and `setattr(module, "_name", ...)` on a module of the product, and a
    string naming `package.module._name` given to a call."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and is_private(node.attr):
            chain = _dotted(node.value)
            if chain and chain[0] in bound:
                module = ".".join([bound[chain[0]], *chain[1:]])
                if _ours(module) and module in known:
                    found.append(f"{name}:{node.lineno} reaches the private {module}.{node.attr}")
        if isinstance(node, ast.Call):
            texts = [a.value for a in node.args if isinstance(a, ast.Constant)]
            chain = _dotted(node.args[0]) if node.args else None
            if chain and chain[0] in bound and len(texts) >= 1:
                module = ".".join([bound[chain[0]], *chain[1:]])
                named = texts[0]
                if _ours(module) and isinstance(named, str) and is_private(named):
                    found.append(f"{name}:{node.lineno} reaches the private {module}.{named}")
            for text in texts:
                if isinstance(text, str) and "." in text:
                    module, _, last = text.rpartition(".")
                    if _ours(module) and module in known and is_private(last):
                        found.append(f"{name}:{node.lineno} reaches the private {text}")
    return found


def everything(root: Path) -> list[str]:
    modules = known_modules(root)
    known = set(modules)
    return [
        problem
        for name, path in modules.items()
        if name.split(".")[0] in READ
        for problem in problems(
            name, path.read_text(), known, is_package=path.name == "__init__.py"
        )
    ]


KNOWN = {
    "tests.shipping.test_shipping",
    "tests.helpers.waiting",
    "tests.holds",
    "activities.agent.run",
    "desk.shell_rule.rule",
}


def test_the_check_sees_every_kind_of_import() -> None:
    """Each way of reaching a test module or a private name is seen, so an empty answer from
    the whole tree below is not a vacuous one."""
    source = """
from tests.shipping.test_shipping import commit
import tests.shipping.test_shipping
import tests.shipping.test_shipping as shipping
from tests.shipping import test_shipping
from ..shipping.test_shipping import refs
from ..shipping import test_shipping as relative
from activities.agent.run import _beat_interval
from desk.shell_rule import rule as policy
import activities.agent.run


def later(monkeypatch):
    from tests.shipping.test_shipping import answer
    from activities.agent.run import (
        _later,
    )
    policy._lex
    activities.agent.run._beat
    monkeypatch.setattr(policy, "_flat_tokens", None)
    monkeypatch.setattr("desk.shell_rule.rule._lex", None)
"""
    found = [line.split(":", 1)[1] for line in problems("tests.holds.test_x", source, KNOWN)]
    assert found == [
        "2 imports from the test module tests.shipping.test_shipping",
        "3 imports the test module tests.shipping.test_shipping",
        "4 imports the test module tests.shipping.test_shipping",
        "5 imports the test module tests.shipping.test_shipping",
        "6 imports from the test module tests.shipping.test_shipping",
        "7 imports the test module tests.shipping.test_shipping",
        "8 imports the private activities.agent.run._beat_interval",
        "14 imports from the test module tests.shipping.test_shipping",
        "15 imports the private activities.agent.run._later",
        "18 reaches the private desk.shell_rule.rule._lex",
        "19 reaches the private activities.agent.run._beat",
        "20 reaches the private desk.shell_rule.rule._flat_tokens",
        "21 reaches the private desk.shell_rule.rule._lex",
    ]


def test_helpers_stand_ins_and_public_names_are_allowed() -> None:
    source = """
from tests.helpers.waiting import until
from tests.holds import conftest
import tests.helpers.waiting as waiting
from desk.shell_rule import rule
from desk.shell_rule.rule import shell_hold_classes
waiting._private_of_a_helper
rule.__name__
os._exit(0)
client._connection
"""
    assert problems("tests.holds.test_x", source, KNOWN) == []


def test_no_test_imports_another_test_or_a_private_name_of_the_product() -> None:
    found = everything(ROOT)
    assert not found, (
        "tests/ and bench/ reach test modules or private product names (shared set-up "
        "belongs in tests/helpers/, see this module's docstring):\n" + "\n".join(found)
    )
