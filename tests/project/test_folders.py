"""Folders small enough to read at once, and module names that say which thing they are.

Every folder of a tidy layer holds ten modules or fewer (a subsystem of more is a subpackage
whose `__init__` says what it is), and none of its modules shares a file name with another
module of the product, so a name alone says which one it is (`ship_client.py`, not a fifth
`shipping.py`). This holds for every layer.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAYERS = ("desk", "activities", "workflows", "workers", "surfaces")
TIDY = LAYERS
"""The layers whose folders and names the tests below hold."""
MOST_MODULES = 10


def modules(layer: str) -> list[Path]:
    """Every module of a layer, its packages' `__init__` files aside."""
    return [
        path
        for path in sorted((ROOT / layer).rglob("*.py"))
        if path.name != "__init__.py" and "__pycache__" not in path.parts
    ]


@pytest.mark.parametrize("layer", TIDY)
def test_every_folder_holds_ten_modules_or_fewer(layer: str) -> None:
    counts = Counter(path.parent.relative_to(ROOT).as_posix() for path in modules(layer))
    assert len(counts) > 1, "no subfolders found: the check would pass vacuously"
    crowded = [f"{folder}: {n} modules" for folder, n in sorted(counts.items()) if n > MOST_MODULES]
    assert not crowded, f"folders over {MOST_MODULES} modules:\n" + "\n".join(crowded)


@pytest.mark.parametrize("layer", TIDY)
def test_no_module_shares_its_file_name_with_another(layer: str) -> None:
    everywhere = Counter(path.name for other in LAYERS for path in modules(other))
    ours = modules(layer)
    assert ours, f"no modules in {layer}: the check would pass vacuously"
    shared = sorted(
        path.relative_to(ROOT).as_posix()
        for path in ours
        if everywhere[path.name] > 1 and path.name != "__main__.py"
    )
    assert not shared, "modules whose file name another module has too:\n" + "\n".join(shared)
