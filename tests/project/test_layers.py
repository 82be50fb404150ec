"""The layer rule (docs/development.md, the layout), held by reading every module's imports.

Dependencies point one way:

    desk        imports nothing of ours but desk: the vocabulary (models, names, settings,
                errors, pure policies, the surface contract)
    activities  desk and activities: every side effect; a Temporal client among them names a
                workflow's handlers (desk/names.py), never imports its definition
    workflows   desk, workflows, and the activity references they schedule (passed through the
                sandbox)
    workers     desk, activities, workflows, workers: the composition, which surfaces use
    surfaces    desk, activities, workflows, workers, surfaces: the clients call workflows by
                reference, the bot hosts its own activities

and no product module imports the tests or the benchmarks. No two modules import each other
round a circle either, so that each has a place in that order. Every import counts, for both
rules: at module level, inside a function, under `if TYPE_CHECKING:` and inside
`workflow.unsafe.imports_passed_through()`. A lazy import (for a light start) or a type-only one
round a circle is a circle too: desk/config/reach.py and desk/config/settings.py were one, each
needing the other, until both took the names and defaults from desk/config/basics/defaults.py.

Folders have an order too: no two folders import each other round a circle, however long, so a
folder can be read with what it imports and without what imports it. This holds for the
folders of `workflows/` (a workflow reaches another by the names in desk/names.py, never by
importing its folder), of `desk/` (docs/development.md lists them bottom up: the loose modules
import no folder, the low records and the config's basics sit under holds and policy, the payloads
above them, the settings on top), of `activities/` (bottom up too: the loose foundations import no
folder; the sandbox, git, the forge, the holds and the shelf above them; the agent's process, its
streams and its session, then the worktree set-up and the job's worktree, then the agent's run;
the checks and shipping on top), of `workers/` (the runtime record is in workers/temporal,
with the clients that read it), and of `surfaces/cli` (what every command uses is in
cli/common, below the app and its commands), `surfaces/render` (the blocks below everything,
the words below the layout) and `surfaces/discord` (what every part of the bot uses is in
discord/common, below the interactions, the conversation and the bot).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAYERS = ("desk", "activities", "workflows", "workers", "surfaces")
OURS = (*LAYERS, "tests", "bench")

MAY_IMPORT: dict[str, frozenset[str]] = {
    "desk": frozenset({"desk"}),
    "activities": frozenset({"desk", "activities"}),
    "workflows": frozenset({"desk", "workflows", "activities"}),
    "workers": frozenset({"desk", "activities", "workflows", "workers"}),
    "surfaces": frozenset({"desk", "activities", "workflows", "workers", "surfaces"}),
}
"""Which of our top-level packages each layer may import (third-party and stdlib are free)."""


@dataclass(frozen=True)
class Import:
    """One import statement's target, and where it is."""

    module: str
    target: str
    line: int


FOLDER_ORDER_HOLDS_IN = LAYERS
"""The layers whose folders keep their order (`test_no_folders_import_each_other_round_a_circle`):
every one."""


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    found = {}
    for layer in LAYERS:
        for path in sorted((ROOT / layer).rglob("*.py")):
            found[module_name(path)] = path
    return found


def _statements(nodes: Iterable[ast.AST]) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import among `nodes`, however deep: in a function, a class, `if TYPE_CHECKING:`, a
    `with workflow.unsafe.imports_passed_through():` block, a `try`."""
    for node in nodes:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        else:
            yield from _statements(ast.iter_child_nodes(node))


def imports_of(name: str, path: Path, known: set[str]) -> list[Import]:
    """The modules of ours (and every other module) that `name`'s source imports."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found = []
    for node in _statements(tree.body):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            # `from a.b import c` imports the module a.b.c when there is one, else a.b.
            submodules = [f"{source}.{alias.name}" for alias in node.names]
            targets = [sub for sub in submodules if sub in known] or [source]
        found += [Import(name, target, node.lineno) for target in targets]
    return found


def graph() -> list[Import]:
    found = modules()
    known = set(found)
    return [edge for name, path in found.items() for edge in imports_of(name, path, known)]


def layer_of(module: str) -> str:
    return module.split(".")[0]


def crossings(edges: list[Import]) -> list[str]:
    """Each import that breaks the layer rule, as `module:line imports target`."""
    broken = []
    for edge in edges:
        top = layer_of(edge.target)
        if top in OURS and top not in MAY_IMPORT[layer_of(edge.module)]:
            broken.append(f"{edge.module}:{edge.line} imports {edge.target}")
    return broken


def circles(edges: list[Import]) -> list[list[str]]:
    """Each group of modules that import each other round a circle (Tarjan's components)."""
    ours = {edge.module for edge in edges}
    after: dict[str, set[str]] = {module: set() for module in ours}
    for edge in edges:
        if edge.target in ours and edge.target != edge.module:
            after[edge.module].add(edge.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for target in sorted(after[module]):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in on_stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == module:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for module in sorted(ours):
        if module not in index:
            visit(module)
    return groups


def folder_of(module: str, packages: set[str]) -> str:
    """The folder a module's file is in: a package's own (its `__init__`), else its parent's."""
    return module if module in packages else module.rpartition(".")[0]


def folder_edges(edges: list[Import], packages: set[str]) -> list[Import]:
    """The imports between folders: each module's import as one from its folder to the folder of
    what it imports (a layer's top folder, its loose modules, is one like any other)."""
    return [
        Import(folder_of(edge.module, packages), folder_of(edge.target, packages), edge.line)
        for edge in edges
        if layer_of(edge.target) in LAYERS
        and folder_of(edge.module, packages) != folder_of(edge.target, packages)
    ]


def packages() -> set[str]:
    return {name for name, path in modules().items() if path.name == "__init__.py"}


def test_the_graph_is_read() -> None:
    """The check sees imports of every kind, so an empty answer below is not a vacuous one."""
    edges = graph()
    seen = {(edge.module, edge.target) for edge in edges}
    # Passed through the workflow sandbox:
    assert ("workflows.job.agent", "activities.agent.run") in seen
    # Under `if TYPE_CHECKING:`:
    assert ("surfaces.clients.listings.job_listing", "temporalio.service") in seen
    # Inside a function (the CLI imports a command's needs when it runs):
    assert ("surfaces.cli.commands.job_commands", "activities.agent.session.log") in seen
    # `from a.b import c`, c a module, imports the module a.b.c:
    assert ("surfaces.cli.app", "surfaces.cli.coercion") in seen
    assert len({edge.module for edge in edges}) > 150


@pytest.mark.parametrize("layer", LAYERS)
def test_each_layer_imports_only_what_it_may(layer: str) -> None:
    broken = [line for line in crossings(graph()) if line.startswith(f"{layer}.")]
    allowed = ", ".join(sorted(MAY_IMPORT[layer]))
    assert not broken, f"{layer} may import only {allowed} of ours:\n" + "\n".join(broken)


def test_no_modules_import_each_other_round_a_circle() -> None:
    found = circles(graph())
    assert not found, "modules importing each other round a circle:\n" + "\n".join(
        " -> ".join(group) for group in found
    )


def test_no_folders_import_each_other_round_a_circle() -> None:
    folders = packages()
    found = [
        group
        for group in circles(folder_edges(graph(), folders))
        if any(within(folder, FOLDER_ORDER_HOLDS_IN) for folder in group)
    ]
    assert not found, "folders importing each other round a circle:\n" + "\n".join(
        " -> ".join(group) for group in found
    )


def test_the_folder_rule_sees_a_circle_no_module_is_in() -> None:
    """Two folders whose modules import each other's, each module once: no module circle, but
    a folder circle; the top folder counts, at any depth, however long the circle."""
    folders = {"workflows", "workflows.job", "workflows.repo", "workflows.job.parts"}
    edges = [
        Import("workflows.job.coding_job", "workflows.repo.calls", 1),
        Import("workflows.repo.entity", "workflows.job.state", 1),
        Import("workflows.ship", "workflows.job.parts.holds", 1),
        Import("workflows.job.parts.holds", "workflows.hosts", 1),
        Import("workflows.job.state", "temporalio.workflow", 1),
    ]
    assert circles(edges) == []
    assert circles(folder_edges(edges, folders)) == [
        ["workflows", "workflows.job.parts"],
        ["workflows.job", "workflows.repo"],
    ]


def test_the_rule_catches_a_crossing_and_a_circle() -> None:
    """The checks themselves: a made-up crossing and a made-up circle are both found."""
    edges = [
        Import("activities.made_up", "workflows.job.coding_job", 3),
        Import("desk.a", "desk.b", 1),
        Import("desk.b", "desk.c", 1),
        Import("desk.c", "desk.a", 1),
        Import("desk.c", "desk.d", 1),
        Import("desk.e", "desk.e", 1),
    ]
    assert crossings(edges) == ["activities.made_up:3 imports workflows.job.coding_job"]
    assert circles(edges) == [["desk.a", "desk.b", "desk.c"]]


SHARED_RENDERING = ("surfaces.render.layout", "surfaces.render.words")
"""What every target renders from: blocks laid out once, and plain words every target says."""

TARGET_RENDERERS = ("surfaces.render.terminal", "surfaces.render.discord")
"""One renderer per target, each in its own folder of `surfaces/render`."""

SURFACES = ("surfaces.cli", "surfaces.discord")
"""The surfaces that print or send what the renderers make."""


def test_the_renderers_import_no_target_but_their_own() -> None:
    """The layout and the shared words import no target, so a terminal and Discord render the
    same blocks; a target's renderer imports no other target's (never one target's markup in
    another); no renderer imports the surfaces that use it."""
    rendering = packages()
    for folder in (*SHARED_RENDERING, *TARGET_RENDERERS):
        assert folder in rendering, f"{folder} is not a package: the check would pass vacuously"
    barred = {folder: (*TARGET_RENDERERS, *SURFACES) for folder in SHARED_RENDERING}
    for target in TARGET_RENDERERS:
        barred[target] = (*(t for t in TARGET_RENDERERS if t != target), *SURFACES)
    broken = [
        f"{edge.module}:{edge.line} imports {edge.target}"
        for edge in graph()
        for folder, others in barred.items()
        if within(edge.module, (folder,)) and within(edge.target, others)
    ]
    assert not broken, "a renderer imports another target's code:\n" + "\n".join(broken)


def within(module: str, folders: tuple[str, ...]) -> bool:
    """Whether `module` is one of `folders` or in one (`surfaces.clients` is not in
    `surfaces.cli`)."""
    return any(module == folder or module.startswith(f"{folder}.") for folder in folders)
