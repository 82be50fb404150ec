"""Property tests of repository names and clone sources: no path off the shelf, no credential shown.

Any text is read as `owner/repo` (accepted or refused with a RepoNameError); an accepted name's
clone and worktree stay on the shelf. A clone source carrying a credential (a password or token
in the user info, a token of a known shape, a query or fragment) is refused, and neither the
returned source nor any error text holds the credential.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st

from activities.shelf_paths import WORKTREES_DIR, clone_path, worktree_path
from desk.config.settings import DeskSettings, load_settings
from desk.errors import RemoteUrlError, RepoNameError
from desk.repo_names import check_clone_source, clone_source_for, parse_repo_name

NAME_PIECES = [
    *"aZ09._-/\\~@:%$ \t\n\x00é\u202e\uff0f",
    "..",
    ".lock",
    "--upload-pack=x",
    "%2e%2e",
    "/..",
    "../",
    "/etc",
]
names = st.one_of(
    st.text(max_size=120), st.lists(st.sampled_from(NAME_PIECES), max_size=12).map("".join)
)


@pytest.fixture(scope="module")
def shelf_settings() -> Iterator[DeskSettings]:
    """A shelf of its own (module scope: hypothesis runs many examples on one)."""
    with tempfile.TemporaryDirectory() as base:
        yield load_settings(home=Path(base) / "home")


@given(names)
@example("../x")
@example("a/..")
@example("./.")
@example("-/x")
def test_any_name_is_refused_or_stays_on_the_shelf(shelf_settings: DeskSettings, text: str) -> None:
    try:
        name = parse_repo_name(text)
    except RepoNameError as error:
        assert str(error).startswith("Repository name ")
        assert len(str(error)) < 700  # a huge name is cut in the message
        return
    assert str(name) == text
    shelf = shelf_settings.shelf_dir.resolve()
    clone = clone_path(shelf_settings, name)
    assert clone.parent.parent == shelf and clone.resolve().is_relative_to(shelf)
    assert clone.name not in ("", ".", "..") and clone.parent.name not in ("", ".", "..")
    tree = worktree_path(shelf_settings, text, 7)
    assert tree.resolve().parent.parent.parent == shelf / WORKTREES_DIR
    assert tree.resolve() == tree


# --- clone sources and credentials --------------------------------------------------------

SECRET = "Zq8Secret"
"""Every generated credential holds this, so a test can look for it in what comes out."""

ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
TOKENS = {
    "ghp_": (ALNUM, 36),
    "github_pat_": (ALNUM + "_", 82),
    "glpat-": (ALNUM, 24),
    "xoxb-": (ALNUM, 24),
    "AKIA": (ALNUM[:26] + ALNUM[-10:], 16),
}
"""Token prefixes the scrubber knows, with the characters and length of a token's body."""


@st.composite
def credentials(draw: st.DrawFn) -> str:
    """A password (free text holding a marker) or a token of a shape the scrubber knows."""
    if draw(st.booleans()):
        prefix = draw(st.sampled_from(sorted(TOKENS)))
        chars, size = TOKENS[prefix]
        return prefix + draw(st.text(chars, min_size=size, max_size=size))
    return draw(st.text(st.characters(blacklist_characters="@/?#\x00\n"), max_size=12)) + SECRET


def hidden_part(credential: str) -> str:
    """What must never be shown: a token's body (its prefix may stay), or the whole password."""
    prefix = next((p for p in TOKENS if credential.startswith(p)), "")
    return credential[len(prefix) :]


HOSTS = ["github.com", "gitlab.example:2222", "[::1]", "host", "-oProxyCommand=x", ""]
SCHEMES = ["https", "http", "ssh", "git", "file", "HTTPS", "ext", "git+ssh", "fd"]
PATHS = ["/acme/api.git", "acme/api", "/", "", "/~user/repo", "/a b/c", ":x"]


@st.composite
def sources_with_a_credential(draw: st.DrawFn) -> tuple[str, str]:
    """(source, credential): a URL or scp-like source with the credential somewhere in it."""
    secret = draw(credentials())
    user = draw(st.sampled_from(["git", "user", "x-access-token", "", "-u"]))
    host = draw(st.sampled_from(HOSTS))
    path = draw(st.sampled_from(PATHS))
    scheme = draw(st.sampled_from(SCHEMES))
    form = draw(st.sampled_from(["password", "token-user", "query", "fragment", "scp", "path"]))
    if form == "password":
        source = f"{scheme}://{user}:{secret}@{host}{path}"
    elif form == "token-user" and scheme.lower() != "ssh":
        source = f"{scheme}://{secret}@{host}{path}"
    elif form == "query":
        source = f"{scheme}://{host}{path}?token={secret}"
    elif form == "fragment":
        source = f"{scheme}://{host}{path}#{secret}"
    elif form == "scp":
        source = f"{user}:{secret}@{host}:{path.lstrip('/') or 'r'}"
    else:
        assume(secret.startswith(tuple(TOKENS)))
        source = f"{scheme}://{host}/{secret}{path}"
    tail = draw(st.sampled_from(["", "\n", "://x", " ", "\x7f"]))
    return source + tail, secret


@given(sources_with_a_credential())
@example(("user:Zq8Secret@host:r://x", "Zq8Secret"))  # the scheme message showed it
@example(("https://u:Zq8Secret@host/a\n", "Zq8Secret"))
def test_a_source_with_a_credential_is_refused_without_showing_it(
    case: tuple[str, str],
) -> None:
    source, secret = case
    with pytest.raises(RemoteUrlError) as caught:
        check_clone_source(source)
    message = str(caught.value)
    assert hidden_part(secret) not in message, message
    assert message.startswith("Clone source ")


@given(st.text(max_size=200))
@example("ext::sh -c touch% /tmp/pwned")
@example("--upload-pack=touch /tmp/pwned")
def test_any_source_is_refused_with_a_reason_or_taken_unchanged(source: str) -> None:
    try:
        accepted = check_clone_source(source)
    except RemoteUrlError as error:
        assert str(error).startswith("Clone source ")
        return
    assert accepted == source
    assert not source.startswith("-") and "::" not in source.split("/", 1)[0]
    assert not any(ord(c) < 0x20 or c == "\x7f" for c in source)


@given(sources_with_a_credential(), names)
def test_a_template_with_a_credential_is_refused_without_showing_it(
    case: tuple[str, str], repo: str
) -> None:
    template, secret = case
    try:
        name = parse_repo_name(repo)
    except RepoNameError:
        name = parse_repo_name("acme/api")
    with pytest.raises(RemoteUrlError) as caught:
        clone_source_for(name, template + "{repo}" if repo else template)
    assert hidden_part(secret) not in str(caught.value)
