"""A shell lexer: words, operators, redirections, quotes, substitutions and here-documents."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Iterator

from desk.shell.words import expand_braces, skip_quote, unquote

_META = frozenset(" \t\n;&|()<>")
_CONTROL = ("&&", "||", ";;&", ";;", ";&", "|&", "&", "|", ";", "(", ")", "\n")
_REDIR = re.compile(r"\d*(&>>|&>|>>|>\||>&|<<<|<<-|<<|<&|<>|>|<)")
_PLAIN_RUN = re.compile(r"[^\s;&|()<>\\'\"`$]+")
_PLAIN_QUOTED = re.compile(r"[^\\\"`$}]+")
_FLAT = re.compile(
    r"(?P<redir>\d*(?:&>>|&>|>>|>&|<<<|<<|<&|<>|>|<))|(?P<op>&&|\|\||[;&|()\n`])"
    r"|(?P<word>[^\s;&|()<>`]+)"
)


class Token:
    """A word, a control operator or a redirection operator."""

    __slots__ = ("kind", "text", "value", "subs", "heredoc", "process")

    def __init__(
        self,
        kind: str,
        text: str,
        value: str = "",
        subs: list[str] | None = None,
        heredoc: str | None = None,
        process: bool = False,
    ) -> None:
        self.kind = kind  # "word", "op" or "redir"
        self.text = text  # a word's source text, or the operator
        self.value = value  # a word with its quotes removed
        self.subs = subs if subs is not None else []  # command substitutions inside the word
        self.heredoc = heredoc  # the body, on the delimiter word of a here-document
        self.process = process  # a process substitution `<( )`: `subs` is its one command

    def __repr__(self) -> str:
        return f"Token({self.kind!r}, {self.text!r}, {self.value!r})"


class SimpleCommand:
    """One simple command: its words, its redirections and the control operator that ends it."""

    __slots__ = ("words", "redirs", "end")

    def __init__(self, words: list[Token], redirs: list[tuple[str, Token]], end: str) -> None:
        self.words = words
        self.redirs = redirs  # (operator, target word)
        self.end = end  # ";" after the last command of the text

    @property
    def argv(self) -> list[str]:
        """The words with their quotes removed."""
        return [w.value for w in self.words]


def lex(text: str) -> list[Token]:
    """Split shell text into words, control operators and redirections, minding quotes.

    Never raises on bad input: from an unclosed quote on, the rest is read with `flat_tokens`,
    once in place and once as a command of its own. Comments are dropped; process substitutions
    `<( )` and `>( )` become words with no text whose substitution is the inner text. Brace
    expansion (`{push,pull}`, `{1..3}`) makes one word per alternative, as the shell does.
    """
    toks: list[Token] = []
    heredocs: list[tuple[Token, bool]] = []
    delimiter_of: str | None = None
    i = 0
    while i < len(text):
        c = text[i]
        if c in " \t" or text.startswith("\\\n", i):
            i += 1 if c in " \t" else 2
        elif c == "#":
            j = text.find("\n", i)
            i = len(text) if j < 0 else j
        elif c in "<>" and text.startswith("(", i + 1):  # process substitution
            inner, i = _close_paren(text, i + 2)
            toks.append(Token("word", "", "", [inner], process=True))
        elif m := _REDIR.match(text, i):
            toks.append(Token("redir", m.group(1)))
            delimiter_of, i = m.group(1), m.end()
        elif op := next((o for o in _CONTROL if text.startswith(o, i)), None):
            toks.append(Token("op", op))
            i += len(op)
            if op == "\n":
                i = _read_heredocs(text, i, heredocs)
                heredocs = []
        else:
            raw, subs, i, broken = _word(text, i)
            if raw or subs:
                if delimiter_of in ("<<", "<<-"):
                    toks.append(Token("word", raw, unquote(raw), subs))
                    heredocs.append((toks[-1], delimiter_of == "<<-"))
                else:
                    alternatives = expand_braces(raw)
                    toks += [Token("word", w, unquote(w), subs) for w in alternatives]
            if broken:  # An open quote: read the rest plainly, once in place and once alone.
                rest = flat_tokens(text[i:])
                return [*toks, *rest, Token("op", ";"), *rest]
            delimiter_of = None
            continue
        if toks and toks[-1].kind != "redir":
            delimiter_of = None
    return toks


def flat_tokens(text: str) -> list[Token]:
    """Split text on white space and operators, ignoring quotes: the fallback reading."""
    toks = []
    for m in _FLAT.finditer(re.sub(r"[\"'\\]", "", text)):
        t = m.group()
        if m.lastgroup == "redir":
            toks.append(Token("redir", t.lstrip("0123456789")))
        elif m.lastgroup == "op":
            toks.append(Token("op", ";" if t == "`" else t))
        else:
            toks.append(Token("word", t, t))
    return toks


def simple_commands(tokens: Iterable[Token]) -> Iterator[SimpleCommand]:
    """Group tokens into simple commands, one per control operator, empty ones included.

    A redirection operator with no word after it is dropped.
    """
    words: list[Token] = []
    redirs: list[tuple[str, Token]] = []
    pending: str | None = None
    for tok in [*tokens, Token("op", ";")]:
        if tok.kind == "word" and pending is not None:
            redirs.append((pending, tok))
            pending = None
        elif tok.kind == "word":
            words.append(tok)
        elif tok.kind == "redir":
            pending = tok.text
        else:
            yield SimpleCommand(words, redirs, tok.text)
            words, redirs, pending = [], [], None


def split_words(text: str) -> list[str]:
    """Split text into words with their quotes removed; on an open quote, on white space."""
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


def _close_tick(s: str, i: int) -> tuple[str, int]:
    """The text of a backtick substitution opened before `i`, and where it ends."""
    j = i
    while j < len(s):
        if s[j] == "\\":
            j += 2
        elif s[j] == "`":
            return s[i:j].replace("\\`", "`"), j + 1
        else:
            j += 1
    return s[i:], len(s)


def _dquote(s: str, i: int, closing: str = '"') -> tuple[list[str], int, bool]:
    """Substitutions in a double-quoted string opened before `i`, its end, and if it closed."""
    subs: list[str] = []
    while i < len(s):
        if plain := _PLAIN_QUOTED.match(s, i):
            i = plain.end()
        if i >= len(s):
            break
        if s[i] == "\\":
            i += 2
        elif s[i] == closing:
            return subs, i + 1, True
        elif s.startswith("$(", i):
            inner, i = _close_paren(s, i + 2)
            subs.append(inner)
        elif s[i] == "`":
            inner, i = _close_tick(s, i + 1)
            subs.append(inner)
        else:
            i += 1
    return subs, len(s), False


def _close_paren(s: str, i: int) -> tuple[str, int]:
    """The text inside a parenthesis opened before `i`, and where it ends (unclosed: the rest)."""
    start, depth = i, 1
    while i < len(s):
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c == "'":
            j = s.find("'", i + 1)
            i = len(s) if j < 0 else j + 1
            continue
        if c == '"':
            i = _dquote(s, i + 1)[1]
            continue
        if c == "`":
            i = _close_tick(s, i + 1)[1]
            continue
        depth += (c == "(") - (c == ")")
        if depth == 0:
            return s[start:i], i + 1
        i += 1
    return s[start:], len(s)


def _word(s: str, i: int) -> tuple[str, list[str], int, bool]:
    """Read one word from `i`: its source, its substitutions, its end, whether a quote is open."""
    start, subs = i, list[str]()
    while i < len(s) and s[i] not in _META:
        c = s[i]
        if plain := _PLAIN_RUN.match(s, i):  # most of a word: no quote, escape or expansion
            i = plain.end()
        elif c == "\\":
            i += 2
        elif c == "'" or s.startswith("$'", i):
            j = skip_quote(s, i + (c != "'"), "'")
            if j > len(s):
                return s[start:i], subs, i + 1, True
            i = j
        elif c == '"':
            quoted, j, closed = _dquote(s, i + 1)
            subs += quoted
            if not closed:
                return s[start:i], subs, i + 1, True
            i = j
        elif c == "`":
            inner, i = _close_tick(s, i + 1)
            subs.append(inner)
        elif s.startswith("$(", i):
            inner, i = _close_paren(s, i + 2)
            subs.append(inner)
        elif s.startswith("${", i):  # a parameter expansion: `${x:-$(git push)}` runs its inside
            quoted, i, _ = _dquote(s, i + 2, closing="}")
            subs += quoted
        else:
            i += 1
    return s[start:i], subs, i, False


def _read_heredocs(s: str, i: int, pending: list[tuple[Token, bool]]) -> int:
    """Attach the bodies of the here-documents opened on the line ending before `i`."""
    for tok, strip_tabs in pending:
        lines: list[str] = []
        while i < len(s):
            j = s.find("\n", i)
            line, i = (s[i:], len(s)) if j < 0 else (s[i:j], j + 1)
            if (line.lstrip("\t") if strip_tabs else line) == tok.value:
                break
            lines.append(line)
        tok.heredoc = "\n".join(lines)
        if not any(q in tok.text for q in "'\"\\"):  # an unquoted delimiter expands its body
            tok.subs += _dquote(tok.heredoc, 0, closing="")[0]
    return i
