"""Tests of desk.scrub: credentials removed from diagnostic text, everything else kept."""

from __future__ import annotations

import pytest

from desk.scrub import SCRUBBED, scrub

GHP = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
PAT = "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEF"
GLPAT = "glpat-Ab12Cd34Ef56Gh78Ij90"
SLACK = "xoxb-1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dQw4w9WgXcQ-abc_123"


def test_scrubbed_marker() -> None:
    assert SCRUBBED == "***"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("https://user:tok@host/x", "https://***@host/x"),
        ("https://tok@host", "https://***@host"),
        ("https://tok@host/x", "https://***@host/x"),
        ("http://a:b@example.com:8080/r.git", "http://***@example.com:8080/r.git"),
        ("ssh://git:pw@github.com/o/r", "ssh://***@github.com/o/r"),
        ("https://user:p@ss@host/x", "https://***@host/x"),
        (f"https://x-access-token:{GHP}@github.com/o/r", "https://***@github.com/o/r"),
        (
            "fatal: unable to access 'https://bob:hunter2@git.example.com/r.git/': 403",
            "fatal: unable to access 'https://***@git.example.com/r.git/': 403",
        ),
        (
            'remote "https://u:p@a.com/x" and "https://v:q@b.com/y"',
            'remote "https://***@a.com/x" and "https://***@b.com/y"',
        ),
        ("<https://tok@host/x>", "<https://***@host/x>"),
        ("line1\nhttps://tok@host\nline3", "line1\nhttps://***@host\nline3"),
    ],
)
def test_scrub_removes_url_user_info(text: str, expected: str) -> None:
    assert scrub(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Authorization: Basic dXNlcjpwYXNz", "Authorization: ***"),
        ("authorization: token abc", "authorization: ***"),
        ("AUTHORIZATION:Bearer abc", "AUTHORIZATION:***"),
        ("Proxy-Authorization: Basic Zm9vOmJhcg==", "Proxy-Authorization: ***"),
        ("proxy-authorization: Negotiate YII", "proxy-authorization: ***"),
        (
            "=> Send header: Authorization: Basic eC1hY2Nlc3M=\n=> Send header: Accept: */*",
            "=> Send header: Authorization: ***\n=> Send header: Accept: */*",
        ),
        ("a\r\nAuthorization: secret value\r\nb", "a\r\nAuthorization: ***\r\nb"),
        ('{"Authorization": "Bearer abc"}', '{"Authorization": ***'),
        (
            "http.extraheader=AUTHORIZATION: basic Zm9v",
            "http.extraheader=AUTHORIZATION: ***",
        ),
        ("Authorization:\tBasic x y z", "Authorization:\t***"),
    ],
)
def test_scrub_removes_authorization_headers(text: str, expected: str) -> None:
    assert scrub(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"token {GHP} end", "token ghp_*** end"),
        ("gho_" + "a" * 36, "gho_***"),
        ("ghu_" + "B" * 20, "ghu_***"),
        ("ghs_" + "0" * 40, "ghs_***"),
        ("ghr_" + "x9" * 15, "ghr_***"),
        (f"GH_TOKEN={GHP}", "GH_TOKEN=ghp_***"),
        (f"'{GHP}'", "'ghp_***'"),
        (PAT, "github_pat_***"),
        (f"pat={PAT}.", "pat=github_pat_***."),
        (GLPAT, "glpat-***"),
        ("glpat-" + "a" * 20 + ".01.abcdef123", "glpat-***"),
        ("deploy gldt-" + "z" * 24, "deploy gldt-***"),
        (SLACK, "xoxb-***"),
        ("xoxp-1234567890-abcdef", "xoxp-***"),
        ("xoxa-2-abcdefghijk", "xoxa-***"),
        ("xoxr-abcdefghijk", "xoxr-***"),
        ("xoxs-abcdefghijk", "xoxs-***"),
        (f"Bearer {JWT}", "Bearer ***"),
        ("token=Bearer abc123def456", "token=Bearer ***"),
        ("bearer ABCDEFGHIJKLMNOPQRSTUVWXYZ", "bearer ***"),
        ("Bearer dGVzdDEyMzQ1Ng==", "Bearer ***"),
    ],
)
def test_scrub_removes_tokens(text: str, expected: str) -> None:
    assert scrub(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "",
        "plain text with nothing secret",
        "https://github.com/octocat/hello.git",
        "git@github.com:octocat/hello.git",
        "error: pathspec 'main' did not match any file(s) known to git\n",
        "mail me at someone@example.com",
        "https://github.com/o/r and someone@example.com",
        "https://github.com/o/r@v1",
        "ghp_short",
        "ghp_" + "a" * 19,
        "ghx_" + "a" * 40,
        "myghp_" + "a" * 40,
        "glpat-short",
        "xoxz-1234567890",
        "xoxb-123",
        "a bearer token is required",
        "Bearer authentication failed",
        "Bearer Token",
        "Authorization:",
        "Authorization:   \nnext",
        "Authorization required",
        "héllo wörld ✓ \t\r\n\x00 unicode and control characters",
        "C:\\Users\\me\\repo",
        "https://***@host/x",
    ],
)
def test_scrub_leaves_clean_text_identical(text: str) -> None:
    assert scrub(text) == text


@pytest.mark.parametrize(
    "text",
    [
        f"https://u:{GHP}@github.com/o/r Authorization: Bearer {JWT}",
        f"{PAT} {GLPAT} {SLACK} Bearer {JWT}",
        "Proxy-Authorization: Basic abc\nhttps://a:b@c/d",
    ],
)
def test_scrub_is_idempotent_and_leaves_no_secret(text: str) -> None:
    once = scrub(text)
    assert scrub(once) == once
    for secret in (GHP[4:], PAT[11:], GLPAT[6:], SLACK[5:], JWT, "Basic abc", "a:b@"):
        assert secret not in once


def test_scrub_handles_many_secrets_in_one_report() -> None:
    text = (
        "$ git clone https://bob:s3cret@git.example.com/r.git\n"
        "> Authorization: Basic Ym9iOnMzY3JldA==\n"
        f"env GITHUB_TOKEN={GHP} SLACK_TOKEN={SLACK}\n"
        "done\n"
    )
    assert scrub(text) == (
        "$ git clone https://***@git.example.com/r.git\n"
        "> Authorization: ***\n"
        "env GITHUB_TOKEN=ghp_*** SLACK_TOKEN=xoxb-***\n"
        "done\n"
    )


def test_scrub_is_fast_on_long_adversarial_input() -> None:
    # A long run of almost-matching text must not make the patterns backtrack for ages.
    text = "https://" + "a@" * 20_000 + " " + "Bearer " * 5_000 + "ghp_" + "a" * 19
    assert "https://***@ " in scrub(text)
    long_runs = "Bearer " + "a" * 100_000 + " https://" + "b" * 100_000 + " ghp_" + "c" * 100_000
    assert scrub(long_runs) == "Bearer *** https://" + "b" * 100_000 + " ghp_***"
