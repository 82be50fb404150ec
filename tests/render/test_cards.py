"""Tests of surfaces.render.discord.cards: the approval layout
(`surfaces.render.layout.approval_layout`) as Discord markdown, built from the tool's schema,
within a budget."""

from __future__ import annotations

import dataclasses
import re
import sys
import unicodedata
from pathlib import Path
from typing import Any

import pytest

from surfaces.render.discord.card_text import ZWSP
from surfaces.render.discord.cards import CardLimits, approval_card
from surfaces.render.layout.approval_layout import INLINE_MAX

Z = ZWSP
TITLE = "**Approve `T`?**"
DEFAULT = CardLimits()


def body(
    input: Any,
    properties: dict[str, Any] | None = None,
    *,
    limits: CardLimits = DEFAULT,
    action: str = "",
) -> str:
    """The card of tool T without its title line, with a schema listing ``properties``."""
    schema = None if properties is None else {"type": "object", "properties": properties}
    card = approval_card("T", input, action=action, parameters=schema, limits=limits)
    title, _, rest = card.partition("\n")
    assert title == TITLE
    return rest


def value(v: Any) -> str:
    """How one declared argument's value shows: the text after ``**v**: ``."""
    text = body({"v": v}, {"v": {}})
    assert text.startswith("**v**:")
    return text[len("**v**:") :]


# --- the field list: order, labels, undeclared and prototype-ish keys ------------------------

SCHEMA = {
    "command": {"type": "string", "title": "Command"},
    "timeout": {"type": "number"},
    "cwd": {"type": "string", "title": "Working directory"},
}


@pytest.mark.parametrize(
    ("input", "properties", "expected"),
    [
        # Schema order, not input order.
        (
            {"timeout": 5, "cwd": "/w", "command": "ls"},
            SCHEMA,
            "**Command**: ls\n**timeout**: 5\n**Working directory**: /w",
        ),
        # Absent arguments are left out.
        ({"timeout": 5}, SCHEMA, "**timeout**: 5"),
        ({"cwd": "/w", "command": "ls"}, SCHEMA, "**Command**: ls\n**Working directory**: /w"),
        # Labels: title, else the name (an empty, blank or non-string title is no title).
        ({"a": 1}, {"a": {"title": ""}}, "**a**: 1"),
        ({"a": 1}, {"a": {"title": " \u200b"}}, "**a**: 1"),
        ({"a": 1}, {"a": {"title": 7}}, "**a**: 1"),
        ({"a": 1}, {"a": True}, "**a**: 1"),
        ({"a": 1}, {"a": {"title": "A *bold* [x](y)"}}, "**A \\*bold\\* \\[x\\]\\(y\\)**: 1"),
        ({"a": 1}, {"a": {"title": "line\nbreak"}}, "**line\\\\nbreak**: 1"),
        ({"": 1}, {"": {}}, '**""**: 1'),
        # Undeclared arguments follow, in the input's order, named in code format.
        (
            {"zeta": 1, "command": "ls", "alpha": 2},
            SCHEMA,
            "**Command**: ls\n`zeta`: 1\n`alpha`: 2",
        ),
        ({"**Command**": "x"}, SCHEMA, "`**Command**`: x"),
        ({"a`b": 1, "c``d": 2}, SCHEMA, f"`` a`b ``: 1\n`` c`{Z}`d ``: 2"),
        ({"@everyone": 1}, SCHEMA, f"`@{Z}everyone`: 1"),
        ({"": 1, "\u200b": 2}, SCHEMA, '`""`: 1\n`"\\u200b"`: 2'),
        ({"a\nb": 1}, SCHEMA, "`a\\nb`: 1"),
        # Only the input's own keys count; JavaScript's and Python's object names are keys.
        (
            {"toString": "t", "constructor": "c", "__class__": "k", "__proto__": "p"},
            SCHEMA,
            "`toString`: t\n`constructor`: c\n`__class__`: k\n`__proto__`: p",
        ),
        (
            {"constructor": "c", "toString": "t"},
            {"toString": {}, "constructor": {}, "__class__": {}, "hasOwnProperty": {}},
            "**toString**: t\n**constructor**: c",
        ),
        (
            {"__class__": {"a": 1}},
            {"__class__": {}},
            '**\\_\\_class\\_\\_**:\n```json\n{"a":1}\n```',
        ),
        # No arguments at all is said, not an empty card.
        ({}, SCHEMA, "(no arguments)"),
    ],
)
def test_field_list(input: dict[str, Any], properties: dict[str, Any], expected: str) -> None:
    assert body(input, properties) == expected


def test_title_names_the_tool() -> None:
    assert approval_card("Bash", {}).split("\n")[0] == "**Approve `Bash`?**"
    assert approval_card("a`b", {}).split("\n")[0] == "**Approve `` a`b ``?**"
    assert approval_card("", {}).split("\n")[0] == '**Approve `""`?**'
    assert approval_card("@here", {}).split("\n")[0] == f"**Approve `@{Z}here`?**"


# --- values: escapes, scalars, enums -------------------------------------------------------


@pytest.mark.parametrize(
    ("v", "expected"),
    [
        ("plain text", " plain text"),
        ("rm -rf build/", " rm -rf build/"),
        (
            "*b* _i_ __u__ ~~s~~ ||spoiler||",
            " \\*b\\* \\_i\\_ \\_\\_u\\_\\_ \\~\\~s\\~\\~ \\|\\|spoiler\\|\\|",
        ),
        ("`code`", " \\`code\\`"),
        ("# heading > quote", " \\# heading \\> quote"),
        ("a\\*b", " a\\\\\\*b"),
        ("&lt;b&gt;", " \\&lt;b\\&gt;"),
        ("[click](https://evil.example)", f" \\[click\\]\\(https:{Z}//evil.example\\)"),
        ("see https://x.io and HTTP://Y.IO", f" see https:{Z}//x.io and HTTP:{Z}//Y.IO"),
        ("<https://x.io>", f" \\<https:{Z}//x.io\\>"),
        ("go to www.x.io or WWW.Y.IO", f" go to www{Z}.x.io or WWW{Z}.Y.IO"),
        ("@everyone look", f" @{Z}everyone look"),
        ("hi @here", f" hi @{Z}here"),
        ("mail bob@example.com", f" mail bob@{Z}example.com"),
        (
            "<@123> <#456> <@&789> <t:1:R>",
            " \\<@" + Z + "123\\> \\<\\#456\\> \\<@" + Z + "\\&789\\> \\<t:1:R\\>",
        ),
        ("a\tb", " a\\\\tb"),
        ("\x1b[31mred", " \\\\u001b\\[31mred"),
        ("abc\u202edcba", " abc\\\\u202edcba"),
        ("x" * INLINE_MAX, " " + "x" * INLINE_MAX),
        # Booleans, numbers and null show as they are (JSON's spelling).
        (True, " true"),
        (False, " false"),
        (0, " 0"),
        (-12, " -12"),
        (3.5, " 3.5"),
        (1e100, " 1e+100"),
        (None, " null"),
    ],
)
def test_values_are_escaped(v: Any, expected: str) -> None:
    assert value(v) == expected


@pytest.mark.parametrize(
    ("v", "expected"),
    [
        ("fast", "**mode**: fast"),
        ("a_b", "**mode**: a\\_b"),
        # An enum value is the tool's own word: it stays on the line and is never cut.
        ("e" * 150, "**mode**: " + "e" * 150),
        # A string that is not one of the enum's is an ordinary value.
        ("f" * 150, "**mode**:\n```\n" + "f" * 150 + "\n```"),
    ],
)
def test_enum_values_show_as_they_are(v: str, expected: str) -> None:
    props = {"mode": {"enum": ["fast", "a_b", "e" * 150, 1]}}
    assert body({"mode": v}, props) == expected


def test_const_and_enum_strings_are_never_cut() -> None:
    word = "w" * 400
    props = {"a": {"const": word}, "b": {"enum": [word]}, "c": {}}
    limits = CardLimits(total_chars=1200, value_chars=10)
    text = body({"a": word, "b": word, "c": "c" * 400}, props, limits=limits)
    assert f"**a**: {word}\n**b**: {word}\n**c**:\n```\n" in text
    assert "… [" in text.split("**c**:")[1]


# --- fenced blocks: line breaks, long strings, nested values, fences inside ------------------


@pytest.mark.parametrize(
    ("v", "content"),
    [
        ("one\ntwo", "one\ntwo"),
        ("one\r\ntwo", "one\ntwo"),
        # A lone '\r', U+2028, U+2029 and U+0085 are line breaks too (pi-roundtable 0.15).
        ("one\rtwo", "one\ntwo"),
        ("one\u2028two", "one\ntwo"),
        ("one\u2029two", "one\ntwo"),
        ("one\u0085two", "one\ntwo"),
        ("one\r\ntwo\u2028three", "one\ntwo\nthree"),
        ("a\n\nb\n", "a\n\nb\n"),
        ("x" * (INLINE_MAX + 1), "x" * (INLINE_MAX + 1)),
        # Nothing in a block formats, links or mentions; only hidden controls are spelled out.
        ("*a* [b](http://c)\n@everyone", f"*a* [b](http://c)\n@{Z}everyone"),
        ("tab\tkept\nbell\x07", "tab\tkept\nbell\\u0007"),
        ("rtl\u202eflip\n", "rtl\\u202eflip\n"),
    ],
)
def test_strings_with_line_breaks_or_long_go_in_a_block(v: str, content: str) -> None:
    assert value(v) == f"\n```\n{content}\n```"


@pytest.mark.parametrize(
    ("v", "content"),
    [
        ("a\n```\nrm -rf /\n```", f"a\n``{Z}`\nrm -rf /\n``{Z}`"),
        ("a\n````\nb", f"a\n``{Z}``\nb"),
        ("a\n```` and ``` and `````` end", f"a\n``{Z}`` and ``{Z}` and ``{Z}``{Z}`` end"),
        ("x\n~~~\ny", "x\n~~~\ny"),
    ],
)
def test_a_fence_inside_a_value_cannot_close_its_block(v: str, content: str) -> None:
    text = value(v)
    assert text == f"\n```\n{content}\n```"
    # CommonMark closes only on a fence at least as long, Discord on any triple backtick.
    inner = text.split("\n", 2)[2].rsplit("\n", 1)[0]
    assert max((len(run) for run in re.findall("`+", inner)), default=0) < 3


@pytest.mark.parametrize(
    ("v", "json"),
    [
        ({"a": 1, "b": [True, None]}, '{"a":1,"b":[true,null]}'),
        ({}, "{}"),
        ([{"a": 1}, 2], '[{"a":1},2]'),
        ([[1, 2]], "[[1,2]]"),
        ({"k": "line\nbreak é"}, '{"k":"line\\nbreak é"}'),
        ({"k": "zw\u200bsp\u2028"}, '{"k":"zw\\u200bsp\\u2028"}'),
        ({"k": "```"}, '{"k":"``' + Z + '`"}'),
        ({"k": "@here"}, '{"k":"@' + Z + 'here"}'),
    ],
)
def test_nested_values_are_compact_json_blocks(v: Any, json: str) -> None:
    assert value(v) == f"\n```json\n{json}\n```"


# --- arrays ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("v", "expected"),
    [
        (["a", "b", "c"], " a, b, c"),
        (["x", 1, 2.5, True, None], " x, 1, 2.5, true, null"),
        (["*a*", "@here"], f" \\*a\\*, @{Z}here"),
        (["a,b", "c"], " a,b, c"),
        # Joining would hide, merge or split items: the array is shown as JSON.
        (["a", ""], '\n```json\n["a",""]\n```'),
        (["a", "  "], '\n```json\n["a","  "]\n```'),
        (["a", "\u200b"], '\n```json\n["a","\\u200b"]\n```'),
        (["a, b", "c"], '\n```json\n["a, b","c"]\n```'),
        (["a\nb", "c"], '\n```json\n["a\\nb","c"]\n```'),
        (["a\u2028b"], '\n```json\n["a\\u2028b"]\n```'),
        (["a", ["b"]], '\n```json\n["a",["b"]]\n```'),
        (["a", {"b": 1}], '\n```json\n["a",{"b":1}]\n```'),
        ([], "\n```json\n[]\n```"),
    ],
)
def test_arrays(v: list[Any], expected: str) -> None:
    assert value(v) == expected


# --- strings that show nothing -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("v", "expected"),
    [
        ("", '`""`'),
        (" ", '`" "`'),
        ("   ", '`"   "`'),
        ("\t", '`"\\t"`'),
        ("\n", '`"\\n"`'),
        ("\r\n", '`"\\r\\n"`'),
        ("\u200b", '`"\\u200b"`'),
        ("\u200c", '`"\\u200c"`'),
        ("\u200d", '`"\\u200d"`'),
        ("\u2060", '`"\\u2060"`'),
        ("\ufeff", '`"\\ufeff"`'),
        ("\u00a0\u3000", '`"\\u00a0\\u3000"`'),
        (" \u200b ", '`" \\u200b "`'),
        ("\U000e0041", '`"\\udb40\\udc41"`'),
    ],
)
def test_strings_that_show_nothing_are_quoted(v: str, expected: str) -> None:
    assert value(v) == " " + expected


def test_hidden_characters_cover_every_control_and_format_character() -> None:
    from surfaces.render.layout import visible

    hidden = {"Cc", "Cf", "Zl", "Zp"}
    missed = [
        hex(code)
        for code in range(sys.maxunicode + 1)
        if unicodedata.category(chr(code)) in hidden and not visible.HIDDEN.match(chr(code))
    ]
    assert missed == []


# --- the action ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("action", "shown"),
    [
        ("Run the tests", " Run the tests"),
        ("Push to **main** @everyone", f" Push to \\*\\*main\\*\\* @{Z}everyone"),
        # After its label, nothing the action starts with can open a list or a heading.
        ("- a list", " - a list"),
        ("1. first", " 1. first"),
        ("# title", " \\# title"),
        ("> quote", " \\> quote"),
        (" ", ' `" "`'),
        ("two\nlines", "\n```\ntwo\nlines\n```"),
    ],
)
def test_action_is_a_value_under_its_label(action: str, shown: str) -> None:
    # Labelled, so the agent's words cannot pass for a field of the card (on a terminal, a
    # line `command: ls` would read as one).
    assert body({"a": 1}, {"a": {}}, action=action) == f"**Action**:{shown}\n**a**: 1"


# --- limits ----------------------------------------------------------------------------------

TWO: dict[str, Any] = {"a": {}, "b": {}}


def block(label: str, text: str) -> str:
    return f"**{label}**:\n```\n{text}\n```"


def test_an_input_within_the_budget_is_shown_whole() -> None:
    input = {"a": "α" * 300, "b": "β" * 250}
    whole = TITLE + "\n" + block("a", "α" * 300) + "\n" + block("b", "β" * 250)
    assert len(whole) == 598
    assert approval_card("T", input, parameters={"properties": TWO}, limits=CardLimits(598)) == (
        whole
    )
    assert "chars]" in approval_card(
        "T", input, parameters={"properties": TWO}, limits=CardLimits(597, 50)
    )


@pytest.mark.parametrize(
    ("limits", "expected"),
    [
        # Longest first: only the longer string is cut, as little as fits (card of 580 chars).
        (
            CardLimits(580, 50),
            block("a", "é😀" * 135 + "… [30 chars]") + "\n" + block("b", "β" * 250),
        ),
        # Both cut to a common length; N counts code points, not bytes or UTF-16 units.
        (
            CardLimits(374, 50),
            block("a", "é😀" * 75 + "… [150 chars]")
            + "\n"
            + block("b", "β" * 150 + "… [100 chars]"),
        ),
        # Never below value_chars: the last field is dropped and named instead, and the room
        # it leaves shows the other whole again.
        (CardLimits(374, 200), block("a", "é😀" * 150) + "\n… 1 more field not shown: `b`"),
    ],
)
def test_strings_are_cut_longest_first(limits: CardLimits, expected: str) -> None:
    input = {"a": "é😀" * 150, "b": "β" * 250}
    card = approval_card("T", input, parameters={"properties": TWO}, limits=limits)
    assert card == TITLE + "\n" + expected
    assert len(card) <= limits.total_chars


def test_a_cut_never_lengthens_a_string() -> None:
    # Cutting 5 of 105 characters would cost a 12-character marker: the string stays whole.
    input = {"a": "x" * 105, "b": "y" * 400}
    card = approval_card("T", input, parameters={"properties": TWO}, limits=CardLimits(266, 100))
    assert card == TITLE + "\n" + block("a", "x" * 105) + "\n" + block(
        "b", "y" * 100 + "… [300 chars]"
    )


def test_inline_strings_and_array_items_are_cut_too() -> None:
    props: dict[str, Any] = {"a": {}, "b": {}}
    limits = CardLimits(total_chars=120, value_chars=20)
    card = approval_card(
        "T", {"a": ["p" * 90, "q" * 90]}, parameters={"properties": props}, limits=limits
    )
    n = int(re.findall(r"\[(\d+) chars\]", card)[0])
    kept = 90 - n
    assert card == f"{TITLE}\n**a**: {'p' * kept}… [{n} chars], {'q' * kept}… [{n} chars]"
    # The budget counts the escapes; the marker counts the characters of the value.
    limits = CardLimits(total_chars=80, value_chars=20)
    card = approval_card("T", {"a": "*" * 90}, parameters={"properties": props}, limits=limits)
    assert card == TITLE + "\n**a**: " + "\\*" * 22 + "… [68 chars]"


@pytest.mark.parametrize(
    ("input", "notice"),
    [
        ({"a": "x" * 50, "b": list(range(100))}, "… 1 more field not shown: `B label`"),
        (
            {"a": "x" * 50, "b": list(range(100)), "c": {"n": list(range(100))}},
            "… 2 more fields not shown: `B label`, `c`",
        ),
        (
            {"a": "x" * 50, "b": list(range(100)), "extra": list(range(100))},
            "… 2 more fields not shown: `B label`, `extra`",
        ),
    ],
)
def test_the_last_fields_are_dropped_and_named(input: dict[str, Any], notice: str) -> None:
    props = {"a": {}, "b": {"title": "B label"}, "c": {}}
    card = approval_card("T", input, parameters={"properties": props}, limits=CardLimits(200, 40))
    assert card == f"{TITLE}\n**a**: {'x' * 50}\n{notice}"


def test_many_dropped_fields_are_named_as_far_as_they_fit() -> None:
    input = {f"key{i}": "v" * 30 for i in range(300)}
    card = approval_card(
        "T", input, parameters={"properties": {"key0": {}}}, limits=CardLimits(300)
    )
    assert len(card) <= 300
    notice = card.split("\n")[-1]
    assert notice.startswith("… 29") and notice.endswith(", …")
    assert notice.split(": ", 1)[1].startswith("`key")


def test_files_are_dropped_after_every_field(tmp_path: Path) -> None:
    paths = [tmp_path / f"file-{i}.txt" for i in range(20)]
    card = approval_card(
        "T", {"a": 1}, parameters={"properties": {"a": {}}}, files=paths, limits=CardLimits(200)
    )
    assert len(card) <= 200
    assert card.startswith(f"{TITLE}\n… 1 more field not shown: `a`\n**Files**:\n- `")
    assert card.endswith(" more files not shown")


def test_a_huge_input_is_fitted_without_rendering_it_whole() -> None:
    input = {"content": "line\r\n" * 400_000, "nums": list(range(50_000)), "path": "a.py"}
    props: dict[str, Any] = {"path": {}, "content": {}, "nums": {}}
    card = approval_card("Write", input, parameters={"properties": props})
    assert len(card) <= 1500
    assert card.startswith("**Approve `Write`?**\n**path**: a.py\n**content**:\n```\nline\n")
    assert card.endswith("\n… 1 more field not shown: `nums`")
    # An input that is not an object is one JSON block, cut the same way.
    whole: Any = ["x" * 10_000]
    card = approval_card("T", whole, limits=CardLimits(100, 10))
    assert card == f'{TITLE}\n```json\n[\n  "{"x" * 49}… [9951 chars]"\n]\n```'
    assert len(card) == 100


def test_over_budget_at_best_effort_the_card_keeps_its_title_and_notice() -> None:
    card = approval_card("a-long-tool-name", {"a": "x" * 50}, limits=CardLimits(10, 5))
    assert card == "**Approve `a-long-tool-name`?**\n… 1 more field not shown"


@pytest.mark.parametrize("total", [100, 150, 200, 300, 500, 800, 1500])
@pytest.mark.parametrize("schema", [None, {"properties": {"cmd": {}, "files": {}, "n": {}}}])
def test_cards_keep_their_budget(total: int, schema: dict[str, Any] | None) -> None:
    input = {
        "cmd": "echo 'ünïcödé 😀'\n" * 40,
        "files": [f"src/module_{i}.py" for i in range(30)],
        "n": {"deep": ["x" * 300, {"y": "z" * 500}]},
        "other": "@everyone " * 30,
    }
    card = approval_card("T", input, parameters=schema, limits=CardLimits(total, 20))
    assert len(card) <= total, card


# --- no schema: one JSON block under the same limits -----------------------------------------


@pytest.mark.parametrize("schema", [None, {}, {"type": "object"}, {"properties": {}}, True])
def test_without_properties_the_input_is_one_json_block(schema: Any) -> None:
    input = {"b": "two *x*", "a": [1, {"c": None}], "@here": "\u200b"}
    card = approval_card("T", input, parameters=schema)
    assert card == (
        f"{TITLE}\n```json\n{{\n"
        '  "b": "two *x*",\n'
        '  "a": [\n    1,\n    {\n      "c": null\n    }\n  ],\n'
        f'  "@{Z}here": "\\u200b"\n}}\n```'
    )


def test_a_json_block_is_cut_then_its_last_keys_dropped() -> None:
    input = {"a": "x" * 300, "b": 1}
    card = approval_card("T", input, limits=CardLimits(265, 50))
    assert card == f'{TITLE}\n```json\n{{\n  "a": "{"x" * 201}… [99 chars]",\n  "b": 1\n}}\n```'
    input = {"a": "x" * 60, "b": list(range(100)), "c": "y" * 100}
    card = approval_card("T", input, limits=CardLimits(200, 50))
    assert card == (
        f'{TITLE}\n```json\n{{\n  "a": "{"x" * 60}"\n}}\n```\n… 2 more fields not shown: `b`, `c`'
    )


def test_a_json_block_of_no_arguments_is_an_empty_object() -> None:
    assert approval_card("T", {}) == f"{TITLE}\n```json\n{{}}\n```"


def test_an_input_that_is_not_an_object_is_one_json_block() -> None:
    card = approval_card("T", ["a", 1], parameters={"properties": {"a": {}}})  # type: ignore[arg-type]
    assert card == f'{TITLE}\n```json\n[\n  "a",\n  1\n]\n```'


# --- files -----------------------------------------------------------------------------------


def test_files_are_listed_with_their_size_now(tmp_path: Path) -> None:
    (tmp_path / "big.bin").write_bytes(b"\0" * 1234)
    (tmp_path / "one").write_bytes(b"x")
    (tmp_path / "empty").write_bytes(b"")
    (tmp_path / "dir").mkdir()
    files: list[str | Path] = [
        tmp_path / "big.bin",
        str(tmp_path / "one"),
        tmp_path / "empty",
        tmp_path / "gone.txt",
        tmp_path / "one" / "under-a-file",
        tmp_path / "dir",
    ]
    card = approval_card("Upload", {"to": "s3"}, files=files)
    lines = card.split("\n")
    assert lines[-7:] == [
        "**Files**:",
        f"- `{tmp_path / 'big.bin'}` (1234 bytes)",
        f"- `{tmp_path / 'one'}` (1 byte)",
        f"- `{tmp_path / 'empty'}` (0 bytes)",
        f"- `{tmp_path / 'gone.txt'}` (missing)",
        f"- `{tmp_path / 'one' / 'under-a-file'}` (missing)",
        f"- `{tmp_path / 'dir'}` (a directory)",
    ]
    # The size is read when the card is rendered, never the bytes.
    (tmp_path / "one").write_bytes(b"xyz")
    assert f"- `{tmp_path / 'one'}` (3 bytes)" in approval_card("U", {}, files=[tmp_path / "one"])


def test_file_paths_cannot_format_the_card(tmp_path: Path) -> None:
    path = tmp_path / "a`b @here.txt"
    path.write_bytes(b"12")
    card = approval_card("U", {}, files=[str(path)])
    shown = str(path).replace("@", "@" + Z)
    assert card.endswith(f"**Files**:\n- `` {shown} `` (2 bytes)")


# --- the limits themselves -------------------------------------------------------------------


def test_card_limits() -> None:
    assert CardLimits() == CardLimits(total_chars=1500, value_chars=200)
    with pytest.raises(dataclasses.FrozenInstanceError):
        CardLimits().total_chars = 5  # type: ignore[misc]
    with pytest.raises(ValueError, match="total_chars must be at least 1"):
        CardLimits(total_chars=0)
