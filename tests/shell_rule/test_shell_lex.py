"""Tests of desk.shell.lex: word and operator boundaries, quotes, substitutions, here-documents."""

from __future__ import annotations

import pytest

from desk.shell.lex import SimpleCommand, Token, flat_tokens, lex, simple_commands, split_words
from desk.shell.words import expand_braces, unquote


def kinds(tokens: list[Token]) -> list[tuple[str, str]]:
    return [(t.kind, t.value if t.kind == "word" else t.text) for t in tokens]


def commands(text: str) -> list[SimpleCommand]:
    return list(simple_commands(lex(text)))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("git push", [("word", "git"), ("word", "push")]),
        ("a&&b||c", [("word", "a"), ("op", "&&"), ("word", "b"), ("op", "||"), ("word", "c")]),
        ("a;b|&c", [("word", "a"), ("op", ";"), ("word", "b"), ("op", "|&"), ("word", "c")]),
        ("(cd x)", [("op", "("), ("word", "cd"), ("word", "x"), ("op", ")")]),
        ("echo x 2>>log", [("word", "echo"), ("word", "x"), ("redir", ">>"), ("word", "log")]),
        (
            "echo x &>/dev/null",
            [("word", "echo"), ("word", "x"), ("redir", "&>"), ("word", "/dev/null")],
        ),
        ("echo a \\\n b # git push", [("word", "echo"), ("word", "a"), ("word", "b")]),
    ],
)
def test_words_and_operators(text: str, expected: list[tuple[str, str]]) -> None:
    assert kinds(lex(text)) == expected


def test_quotes_are_removed_and_keep_operators_inside_one_word() -> None:
    [echo, word] = lex("echo 'a; b'\"&& c\"\\ d")
    assert echo.value == "echo"
    assert word.text == "'a; b'\"&& c\"\\ d"
    assert word.value == "a; b&& c d"


def test_command_substitutions_are_found_in_words_and_double_quotes() -> None:
    [_, word] = lex('echo "x $(git push) y"`rm -rf /`$(a $(b))')
    assert word.subs == ["git push", "rm -rf /", "a $(b)"]


def test_single_quotes_hide_substitutions() -> None:
    assert lex("echo '$(git push)'")[1].subs == []


def test_process_substitution_is_a_word_with_only_a_substitution() -> None:
    [_, sub] = lex("cat <(git push)")
    assert (sub.kind, sub.text, sub.subs) == ("word", "", ["git push"])


def test_here_document_body_is_attached_to_its_delimiter() -> None:
    toks = lex("bash <<EOF\ngit push\n$(rm x)\nEOF\nls")
    delimiter = toks[2]
    assert delimiter.heredoc == "git push\n$(rm x)"
    assert delimiter.subs == ["rm x"]
    assert kinds(toks[3:]) == [("op", "\n"), ("word", "ls")]


def test_quoted_here_document_delimiter_does_not_expand() -> None:
    toks = lex("cat <<-'EOF'\n\t$(git push)\n\tEOF\n")
    assert toks[2].heredoc == "\t$(git push)"
    assert toks[2].subs == []


def test_unclosed_quote_reads_the_rest_plainly_twice() -> None:
    assert kinds(lex("echo 'git push")) == [
        ("word", "echo"),
        ("word", "git"),
        ("word", "push"),
        ("op", ";"),
        ("word", "git"),
        ("word", "push"),
    ]


def test_flat_tokens_ignore_quotes() -> None:
    assert kinds(flat_tokens("a 'b;c' `d` 2>e")) == [
        ("word", "a"),
        ("word", "b"),
        ("op", ";"),
        ("word", "c"),
        ("op", ";"),
        ("word", "d"),
        ("op", ";"),
        ("redir", ">"),
        ("word", "e"),
    ]


def test_simple_commands_split_on_operators_and_pair_redirections() -> None:
    [first, second] = commands("a 'b c' > out | d < in")
    assert (first.argv, [(op, t.value) for op, t in first.redirs], first.end) == (
        ["a", "b c"],
        [(">", "out")],
        "|",
    )
    assert (second.argv, [(op, t.value) for op, t in second.redirs], second.end) == (
        ["d"],
        [("<", "in")],
        ";",
    )


def test_simple_commands_keep_empty_commands_and_drop_a_dangling_redirection() -> None:
    assert [(c.argv, c.end) for c in commands("(a)")] == [([], "("), (["a"], ")"), ([], ";")]
    [only] = commands("echo >")
    assert (only.argv, only.redirs) == (["echo"], [])


def test_split_words_removes_quotes_and_falls_back_to_white_space() -> None:
    assert split_words("push 'a b' \"c\"") == ["push", "a b", "c"]
    assert split_words("push 'a b") == ["push", "'a", "b"]


@pytest.mark.parametrize(
    ("raw", "value"),
    [
        ("$'push'", "push"),
        ("$'\\x70\\165sh'", "push"),
        ("$'a\\'b'", "a'b"),
        ('$"push"', "push"),
        ("'a'\"b\"\\c", "abc"),
        ('"a\\"b\\$c\\d"', 'a"b$c\\d'),
        ("$x", "$x"),
    ],
)
def test_quotes_are_removed_as_the_shell_removes_them(raw: str, value: str) -> None:
    assert unquote(raw) == value


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        ("{push,pull}", ["push", "pull"]),
        ("a{b,c}d", ["abd", "acd"]),
        ("{st{a,u}tus,p{u,o}sh}", ["status", "stutus", "push", "posh"]),
        ("{1..3}", ["1", "2", "3"]),
        ("{c..a}", ["c", "b", "a"]),
        ("{0..10..5}", ["0", "5", "10"]),
        ("'{a,b}'", ["'{a,b}'"]),
        ('"{a,b}"x', ['"{a,b}"x']),
        ("${a,b}", ["${a,b}"]),
        ("{}", ["{}"]),
        ("{a}", ["{a}"]),
        ("HEAD@{1}", ["HEAD@{1}"]),
        ("{a,b", ["{a,b"]),
    ],
)
def test_brace_expansion(raw: str, words: list[str]) -> None:
    assert expand_braces(raw) == words


def test_brace_expansion_past_the_limit_is_left_whole() -> None:
    raw = "{a,b}" * 20
    assert expand_braces(raw) == [raw]


def test_brace_expansion_makes_words_in_the_lexer() -> None:
    assert [t.value for t in lex("git {push,status} x")] == ["git", "push", "status", "x"]


def test_substitutions_inside_parameter_expansions_are_found() -> None:
    assert lex("echo ${x:-$(git push)}")[1].subs == ["git push"]


def test_process_substitutions_are_marked() -> None:
    [_, sub] = lex("bash <(echo git push)")
    assert (sub.process, sub.subs) == (True, ["echo git push"])
