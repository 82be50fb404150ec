"""Tests of desk.repo_names: owner/repo names and the clone sources codedesk accepts."""

from __future__ import annotations

import dataclasses

import pytest

from desk.errors import DeskError, RemoteUrlError, RepoNameError
from desk.repo_names import RepoName, check_clone_source, clone_source_for, parse_repo_name

# --- parse_repo_name -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "owner", "name"),
    [
        ("octocat/hello-world", "octocat", "hello-world"),
        ("temporalio/sdk-python", "temporalio", "sdk-python"),
        ("octocat/.github", "octocat", ".github"),
        ("a/b", "a", "b"),
        ("A1_b-c.d/E2_f-g.h", "A1_b-c.d", "E2_f-g.h"),
        ("owner/repo.git", "owner", "repo.git"),
        ("owner/...", "owner", "..."),
        ("o" * 100 + "/" + "r" * 100, "o" * 100, "r" * 100),
        ("owner/lock", "owner", "lock"),
        ("owner/.lockfile", "owner", ".lockfile"),
        ("0/9", "0", "9"),
    ],
)
def test_parse_repo_name_accepts(text: str, owner: str, name: str) -> None:
    repo = parse_repo_name(text)
    assert repo == RepoName(owner=owner, name=name)
    assert str(repo) == text


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "it is empty"),
        ("octocat", "no '/'"),
        ("a\\b", "no '/'"),
        ("a/b/c", "more than one '/'"),
        ("a/../b", "more than one '/'"),
        ("/b", "the owner is empty"),
        ("a/", "the repo is empty"),
        ("/", "the owner is empty"),
        ("a\\x/b", "the owner has a character other than"),
        ("a/b\\c", "the repo has a character other than"),
        ("a /b", "the owner has a character"),
        (" a/b", "the owner has a character"),
        ("a/b ", "the repo has a character"),
        ("a/b\n", "the repo has a character"),
        ("a/b\t", "the repo has a character"),
        ("a/b\x00", "the repo has a character"),
        ("a:b/c", "the owner has a character"),
        ("a/b@c", "the repo has a character"),
        ("a/b~1", "the repo has a character"),
        ("ow\u00e9/b", "the owner has a character"),
        ("a/\uff42", "the repo has a character"),
        ("o" * 101 + "/b", "the owner is longer than 100 characters"),
        ("a/" + "r" * 101, "the repo is longer than 100 characters"),
        (".github/x", "the owner starts with '.'"),
        ("./b", "the owner is '.'"),
        ("../b", "the owner is '..'"),
        ("a/.", "the repo is '.'"),
        ("a/..", "the repo is '..'"),
        ("-a/b", "the owner starts with '-'"),
        ("a/-b", "the repo starts with '-'"),
        ("a/--upload-pack=x", "the repo has a character"),
        ("a/b.lock", "the repo ends in '.lock'"),
        ("a/B.LOCK", "the repo ends in '.lock'"),
        ("a.lock/b", "the owner ends in '.lock'"),
        ("a/.lock", "the repo ends in '.lock'"),
    ],
)
def test_parse_repo_name_refuses(text: str, reason: str) -> None:
    with pytest.raises(RepoNameError) as caught:
        parse_repo_name(text)
    message = str(caught.value)
    assert message.startswith(f"Repository name {text!r} is not owner/repo")
    assert reason in message
    assert "use letters, digits, '-', '_' and '.'" in message
    assert "no leading dot in the owner" in message
    assert message.endswith(".")


def test_parse_repo_name_error_is_a_desk_error() -> None:
    with pytest.raises(DeskError):
        parse_repo_name("nope")


def test_parse_repo_name_message_cuts_a_huge_input() -> None:
    with pytest.raises(RepoNameError) as caught:
        parse_repo_name("x" * 10_000)
    assert len(str(caught.value)) < 500
    assert "..." in str(caught.value)


def test_repo_name_is_frozen_and_hashable() -> None:
    repo = parse_repo_name("octocat/hello")
    with pytest.raises(dataclasses.FrozenInstanceError):
        repo.owner = "other"  # type: ignore[misc]
    assert {repo, parse_repo_name("octocat/hello")} == {repo}
    assert str(RepoName("o", "r")) == "o/r"


# --- check_clone_source: accepted ----------------------------------------------------------


@pytest.mark.parametrize(
    "source",
    [
        "https://github.com/octocat/hello.git",
        "https://github.com/octocat/hello",
        "HTTPS://github.com/octocat/hello.git",
        "http://git.example.com/repo.git",
        "https://git.example.com:8443/group/sub/repo.git",
        "http://[::1]:8080/repo.git",
        "git://git.kernel.org/pub/scm/git/git.git",
        "ssh://github.com/octocat/hello.git",
        "ssh://git@github.com/octocat/hello.git",
        "ssh://git@github.com:22/octocat/hello.git",
        "file:///srv/git/hello.git",
        "file://localhost/srv/git/hello.git",
        "git@github.com:octocat/hello.git",
        "github.com:octocat/hello.git",
        "deploy@git.example.com:repos/hello",
        "[git.example.com:2222]:repos/hello",
        "/srv/git/hello.git",
        "./hello",
        "../hello",
        "hello",
        "relative/dir/hello",
        "/path/with a space/repo",
        "/path/a::b",
        "./weird:name",
        "C:\\repos\\hello",
        "C:/repos/hello",
        "https://github.com/octocat/repo@v1",
    ],
)
def test_check_clone_source_accepts_unchanged(source: str) -> None:
    assert check_clone_source(source) is source


# --- check_clone_source: refused -----------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        ("-uhello", "starts with '-'"),
        ("--upload-pack=touch /tmp/x", "starts with '-'"),
        ("-", "starts with '-'"),
        ("ext::sh -c touch% /tmp/pwned", "remote-helper transport"),
        ("fd::17", "remote-helper transport"),
        ("EXT::sh", "remote-helper transport"),
        ("https::github.com/o/r", "remote-helper transport"),
        ("ftp://example.com/repo.git", "uses the scheme 'ftp'"),
        ("git+ssh://github.com/o/r", "uses the scheme 'git+ssh'"),
        ("s3://bucket/repo", "uses the scheme 's3'"),
        ("://host/repo", "uses the scheme ''"),
        ("https://github.com/o/r?ref=main", "has a query ('?') or fragment ('#')"),
        ("https://github.com/o/r#readme", "has a query ('?') or fragment ('#')"),
        ("ssh://github.com/o/r?x", "has a query"),
        ("file:///srv/r#x", "has a query"),
        ("https://", "has no host"),
        ("https:///o/r", "has no host"),
        ("ssh://git@/o/r", "has no host"),
        ("https://github.com:abc/o/r", "port that is not a number"),
        ("https://[::1/o/r", "malformed [IPv6] host"),
        ("https://[::1]x/o/r", "malformed [IPv6] host"),
        ("ssh://-oProxyCommand=touch%20x/o/r", "host starting with '-'"),
        ("ssh://-oProxyCommand=x@host/o/r", "starting with '-'"),
        ("ssh://@host/o/r", "empty user name"),
        ("-oProxyCommand=x:path", "starts with '-'"),
        ("host:-upload-pack", "path starting with '-'"),
        (":repo", "has no host"),
        ("@host:repo", "empty user name"),
        ("[host:repo", "malformed [host]"),
        ("bad\nhost:repo", "control character"),
        ("https://github.com/o/r\n", "control character"),
        ("/srv/repo\x00", "control character"),
    ],
)
def test_check_clone_source_refuses(source: str, reason: str) -> None:
    with pytest.raises(RemoteUrlError) as caught:
        check_clone_source(source)
    message = str(caught.value)
    assert message.startswith("Clone source ")
    assert reason in message
    assert message.endswith(".")


def test_check_clone_source_refuses_empty() -> None:
    with pytest.raises(RemoteUrlError, match=r"^Clone source is empty: give a URL like https://"):
        check_clone_source("")


@pytest.mark.parametrize(
    ("source", "shown", "secret"),
    [
        (
            "https://x-access-token:ghp_abcdefghijklmnopqrstuvwxyz0123456789@github.com/o/r.git",
            "'https://***@github.com/o/r.git'",
            "ghp_abcdefghij",
        ),
        ("https://hunter2:s3cret@github.com/o/r", "'https://***@github.com/o/r'", "s3cret"),
        ("http://alice:pa@ss@example.com/r", "'http://***@example.com/r'", "pa@ss"),
        ("git://bob:pw1234@example.com/r", "'git://***@example.com/r'", "pw1234"),
        ("ssh://git:hunter2@github.com/o/r", "'ssh://***@github.com/o/r'", "hunter2"),
        ("file://me:pw1234@localhost/srv/r", "'file://***@localhost/srv/r'", "pw1234"),
    ],
)
def test_check_clone_source_refuses_password_without_showing_it(
    source: str, shown: str, secret: str
) -> None:
    with pytest.raises(RemoteUrlError) as caught:
        check_clone_source(source)
    message = str(caught.value)
    assert secret not in message
    assert f"Clone source {shown} has a password in its user info" in message
    assert "credential helper" in message


@pytest.mark.parametrize(
    ("source", "shown", "secret"),
    [
        (
            "https://ghp_abcdefghijklmnopqrstuvwxyz0123456789@github.com/o/r.git",
            "'https://***@github.com/o/r.git'",
            "abcdefghijklmnop",
        ),
        ("https://oauth2@gitlab.com/g/r.git", "'https://***@gitlab.com/g/r.git'", "oauth2"),
        ("http://deploytoken@example.com/r", "'http://***@example.com/r'", "deploytoken"),
        ("git://someone@example.com/r", "'git://***@example.com/r'", "someone"),
        ("file://someone@localhost/srv/r", "'file://***@localhost/srv/r'", "someone"),
        ("HTTPS://tok123456@github.com/o/r", "'HTTPS://***@github.com/o/r'", "tok123456"),
    ],
)
def test_check_clone_source_refuses_user_info_without_showing_it(
    source: str, shown: str, secret: str
) -> None:
    with pytest.raises(RemoteUrlError) as caught:
        check_clone_source(source)
    message = str(caught.value)
    assert secret not in message
    assert f"Clone source {shown} has user info" in message
    assert "tokens belong in a credential helper, not the URL" in message


@pytest.mark.parametrize(
    ("source", "secret"),
    [
        ("https://github.com/o/r?access_token=abc123secret", "abc123secret"),
        ("https://github.com/o/r#tok=abc123secret", "abc123secret"),
        ("https://u:abc123secret@github.com/o/r?x=1", "abc123secret"),
        ("https://user:pa/ss@github.com/o/r", "pa/ss"),
        ("https://github.com/ghp_abcdefghijklmnopqrstuvwxyz0123?x", "abcdefghijklmnop"),
    ],
)
def test_check_clone_source_messages_never_show_the_secret(source: str, secret: str) -> None:
    with pytest.raises(RemoteUrlError) as caught:
        check_clone_source(source)
    assert secret not in str(caught.value)
    assert "***" in str(caught.value)


@pytest.mark.parametrize(
    "source",
    ["user:hunter2@github.com:o/r.git", "git:hunter2@github.com:o/r", "me:pw@host:repo"],
)
def test_check_clone_source_refuses_scp_like_password(source: str) -> None:
    with pytest.raises(RemoteUrlError) as caught:
        check_clone_source(source)
    message = str(caught.value)
    assert "hunter2" not in message
    assert "pw@" not in message
    assert "looks like it has a password" in message
    assert "***@" in message


def test_check_clone_source_scheme_message_lists_the_allowed_schemes() -> None:
    with pytest.raises(RemoteUrlError) as caught:
        check_clone_source("ftp://example.com/r")
    assert "file, git, http, https, ssh" in str(caught.value)


# --- clone_source_for ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("https://github.com/{repo}.git", "https://github.com/octocat/hello.git"),
        ("git@github.com:{repo}.git", "git@github.com:octocat/hello.git"),
        ("ssh://git@example.com/{repo}", "ssh://git@example.com/octocat/hello"),
        ("/srv/mirrors/{repo}", "/srv/mirrors/octocat/hello"),
        ("https://example.com/{repo}/{repo}", "https://example.com/octocat/hello/octocat/hello"),
    ],
)
def test_clone_source_for_fills_the_template(template: str, expected: str) -> None:
    assert clone_source_for(RepoName("octocat", "hello"), template) == expected


@pytest.mark.parametrize(
    "template", ["https://github.com/", "", "https://github.com/{owner}/{name}", "{REPO}"]
)
def test_clone_source_for_needs_the_placeholder(template: str) -> None:
    with pytest.raises(RemoteUrlError) as caught:
        clone_source_for(RepoName("o", "r"), template)
    message = str(caught.value)
    assert "has no {repo} placeholder" in message
    assert "https://github.com/{repo}.git" in message


def test_clone_source_for_template_message_hides_user_info() -> None:
    with pytest.raises(RemoteUrlError) as caught:
        clone_source_for(RepoName("o", "r"), "https://me:s3cret@github.com/")
    assert "s3cret" not in str(caught.value)
    assert "'https://***@github.com/'" in str(caught.value)


@pytest.mark.parametrize(
    ("template", "reason"),
    [
        ("https://tok123@github.com/{repo}", "has user info"),
        ("ftp://example.com/{repo}", "uses the scheme 'ftp'"),
        ("https://github.com/{repo}?x=1", "has a query"),
    ],
)
def test_clone_source_for_checks_the_result(template: str, reason: str) -> None:
    with pytest.raises(RemoteUrlError, match=reason.replace("?", r"\?")):
        clone_source_for(RepoName("o", "r"), template)


@pytest.mark.parametrize(
    ("source", "secret"),
    [
        ("https://github.com/ghp_abcdefghijklmnopqrstuvwxyz0123/r.git", "abcdefghijklmnop"),
        ("https://127.0.0.1:9/AKIAQ7XK2MZP4VNB8RTY/tool.git", "Q7XK2MZP4VNB8RTY"),
        ("/srv/git/xoxb-1234567890-abcdefghij/r.git", "1234567890-abcdefghij"),
        ("git@github.com:o/glpat-Ab12Cd34Ef56Gh78Ij90.git", "Ab12Cd34Ef56Gh78Ij90"),
    ],
)
def test_check_clone_source_refuses_a_token_anywhere(source: str, secret: str) -> None:
    with pytest.raises(RemoteUrlError) as caught:
        check_clone_source(source)
    assert secret not in str(caught.value)
    assert "holds a credential" in str(caught.value)
