"""pi-roundtable 0.15's approval card rules, one test per rule, on Discord's card.

Each test quotes the rule it checks, word for word, from the seed (`approvalCard(call,
workspace?, limits?, parameters?)`: the CHANGELOG's entry and the plugin guide's paragraph).
The card is `surfaces.render.discord.cards.approval_card`; `tests/render/test_cards.py` has
the finer cases of each.
"""

from __future__ import annotations

from typing import Any

import pytest

from surfaces.render.discord.card_text import ZWSP
from surfaces.render.discord.cards import CardLimits, approval_card

Z = ZWSP
TITLE = "**Approve `T`?**\n"


def card(input: Any, properties: dict[str, Any] | None, **limits: int) -> str:
    schema = None if properties is None else {"type": "object", "properties": properties}
    text = approval_card("T", input, parameters=schema, limits=CardLimits(**limits))
    assert text.startswith(TITLE)
    return text.removeprefix(TITLE)


def test_given_parameters_the_card_is_a_line_label_value_per_argument() -> None:
    """ "With it the approval card shows the call as a field list instead of one JSON block:
    a line `**label**: value` per argument"."""
    assert card({"a": "x", "b": "y"}, {"a": {}, "b": {}}) == "**a**: x\n**b**: y"


def test_fields_follow_the_order_the_schema_declares_its_properties() -> None:
    """ "in the order the schema declares its properties"."""
    assert card({"b": 2, "a": 1}, {"a": {}, "b": {}}) == "**a**: 1\n**b**: 2"


def test_a_field_is_labelled_by_its_title_or_its_name() -> None:
    """ "labelled by the property's `title` or its name"."""
    props = {"path": {"title": "File path"}, "mode": {}}
    assert card({"path": "a.py", "mode": "w"}, props) == "**File path**: a.py\n**mode**: w"


def test_absent_arguments_are_left_out() -> None:
    """ "absent arguments left out"."""
    assert card({"b": 2}, {"a": {}, "b": {}, "c": {}}) == "**b**: 2"


def test_an_undeclared_argument_follows_the_listed_ones_named_in_code_format() -> None:
    """ "An argument the schema does not list follows the listed ones with its name in code
    format, so it cannot pass for a declared label"."""
    assert card({"z": 1, "a": 2}, {"a": {}}) == "**a**: 2\n`z`: 1"


def test_only_own_properties_count() -> None:
    """ "Only an argument's own properties count: one named `toString` or `constructor` is
    shown with its value"."""
    assert card({"toString": "t", "constructor": "c"}, {"a": {}}) == (
        "`toString`: t\n`constructor`: c"
    )
    assert card({"toString": "t"}, {"toString": {}, "constructor": {}}) == "**toString**: t"


def test_a_multi_line_or_long_string_goes_in_a_fenced_block_keeping_its_line_breaks() -> None:
    """ "A multi-line or long string ... go in a fenced block that keeps their line breaks"
    ("a string with a line break or over 100 characters")."""
    assert card({"a": "one\ntwo"}, {"a": {}}) == "**a**:\n```\none\ntwo\n```"
    assert card({"a": "x" * 101}, {"a": {}}) == f"**a**:\n```\n{'x' * 101}\n```"
    assert card({"a": "x" * 100}, {"a": {}}) == f"**a**: {'x' * 100}"


@pytest.mark.parametrize("brk", ["\r", "\u2028", "\u2029", "\u0085"])
def test_a_lone_cr_and_the_unicode_line_breaks_are_line_breaks_too(brk: str) -> None:
    """ "(a lone `\\r`, `\\u2028`, `\\u2029` and `\\u0085` are line breaks too)"."""
    assert card({"a": f"one{brk}two"}, {"a": {}}) == "**a**:\n```\none\ntwo\n```"


def test_a_nested_value_is_compact_json_in_a_fenced_block() -> None:
    """ "and any nested value (as compact JSON) go in a fenced block"."""
    assert card({"a": {"k": [1, None]}}, {"a": {}}) == '**a**:\n```json\n{"k":[1,null]}\n```'


def test_nothing_in_a_fenced_block_is_markdown() -> None:
    """ "a fenced block that keeps their line breaks and in which nothing is markdown"."""
    text = card({"a": "*b* [l](http://x)\n```\n@here"}, {"a": {}})
    assert text == f"**a**:\n```\n*b* [l](http://x)\n``{Z}`\n@{Z}here\n```"


def test_a_value_on_a_line_has_its_markdown_links_and_mentions_escaped() -> None:
    """ "A value on a line has its markdown, links and `@everyone`/`@here` escaped"."""
    assert card({"a": "*b* [l](https://x.io) @everyone @here"}, {"a": {}}) == (
        f"**a**: \\*b\\* \\[l\\]\\(https:{Z}//x.io\\) @{Z}everyone @{Z}here"
    )


def test_booleans_numbers_and_enum_values_show_as_they_are() -> None:
    """ "booleans, numbers and enum values show as they are"."""
    props = {"b": {}, "n": {}, "e": {"enum": ["fast_mode"]}}
    assert card({"b": True, "n": 2.5, "e": "fast_mode"}, props) == (
        "**b**: true\n**n**: 2.5\n**e**: fast\\_mode"
    )


@pytest.mark.parametrize(
    ("items", "shown"),
    [
        (["a", "b", 3, True], " a, b, 3, true"),
        (["a", ""], '\n```json\n["a",""]\n```'),
        (["a", "\u200b"], '\n```json\n["a","\\u200b"]\n```'),
        (["a, b", "c"], '\n```json\n["a, b","c"]\n```'),
        (["a\nb"], '\n```json\n["a\\nb"]\n```'),
        (["a\rb"], '\n```json\n["a\\rb"]\n```'),
    ],
)
def test_an_array_of_scalars_is_joined_with_commas_unless_that_would_hide_an_item(
    items: list[Any], shown: str
) -> None:
    """ "an array of scalars is joined with commas unless an item is empty, shows nothing, or
    holds a comma and a space or a line break, and then it is JSON"."""
    assert card({"a": items}, {"a": {}}) == f"**a**:{shown}"


@pytest.mark.parametrize(("v", "shown"), [("", '`""`'), ("\u200b", '`"\\u200b"`'), (" ", '`" "`')])
def test_a_string_that_is_empty_or_shows_nothing_is_written_out(v: str, shown: str) -> None:
    """ "a string that is empty or shows nothing is written out (`""`, `"\\u200b"`) so the
    person sees it is there"."""
    assert card({"a": v}, {"a": {}}) == f"**a**: {shown}"


def test_a_long_string_is_cut_longest_first_and_marked_with_the_code_points_cut() -> None:
    """ "a long string is cut, the longest first and never below `limits.valueChars`, marked
    `… [N chars]`" ("N in code points")."""
    text = card({"a": "😀" * 300, "b": "y" * 150}, {"a": {}, "b": {}}, total_chars=420)
    kept = text.count("😀")
    assert 200 <= kept < 300  # only the longer string is cut, never below 200
    assert text == (
        f"**a**:\n```\n{'😀' * kept}… [{300 - kept} chars]\n```\n**b**:\n```\n{'y' * 150}\n```"
    )


def test_fields_that_no_longer_fit_are_dropped_and_listed_by_label() -> None:
    """ "fields that no longer fit are dropped and listed by label" ("the last fields are
    dropped and their labels listed")."""
    props = {"a": {}, "b": {"title": "Bee"}, "c": {}}
    text = card({"a": "x", "b": "y" * 500, "c": "z" * 500}, props, total_chars=200)
    assert text == "**a**: x\n… 2 more fields not shown: `Bee`, `c`"


@pytest.mark.parametrize("schema", [None, {"type": "object"}, {"properties": {}}])
def test_without_a_schema_listing_properties_the_card_keeps_the_json_block(
    schema: dict[str, Any] | None,
) -> None:
    """ "A tool with no schema, or one that lists no properties, keeps the JSON block, as does
    a card built without `parameters`"."""
    text = approval_card("T", {"command": "ls\nrm -rf /", "n": 2}, parameters=schema)
    assert text == TITLE + '```json\n{\n  "command": "ls\\nrm -rf /",\n  "n": 2\n}\n```'


def test_an_input_within_the_total_is_shown_whole() -> None:
    """ "shows an input within `limits.totalChars` (1,500) whole"."""
    whole = {"a": "x" * 600, "b": "y" * 600}
    assert "… [" not in card(whole, {"a": {}, "b": {}})
    assert "… [" in card(whole, {"a": {}, "b": {}}, total_chars=1000)
