"""The tool schemas codedesk ships for the presets' cards are the real CLIs' own.

activities/holds/tool_schemas.json is what `python -m tests.real_agents.tool_schemas` read from
the CLIs of the versions the presets were proven with; here each CLI is asked again (against its
scripted fake model, offline) and the file must say exactly what it says: every tool, every
argument in the CLI's order, each argument's type and enum. A CLI that adds, drops or reorders
an argument fails this test: run the module again, and look at the cards.
"""

from __future__ import annotations

import json

import pytest

from activities.holds.tool_schemas import SCHEMAS_FILE
from tests.real_agents.tool_schemas import shipped_schemas

pytestmark = pytest.mark.timeout(900)


def test_the_shipped_tool_schemas_are_the_real_clis() -> None:
    shipped = json.loads(SCHEMAS_FILE.read_text())
    assert shipped == shipped_schemas()
