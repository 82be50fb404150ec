"""Tests of desk.scrub: credentials removed from diagnostic text, everything else kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from desk.holds.approvals import ClassifyInput, HoldRequest
from desk.holds.rules import CREDENTIAL, classify_call
from desk.scrub import SCRUBBED, StreamScrubber, scrub, scrub_data

GHP = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
PAT = "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEF"
GLPAT = "glpat-Ab12Cd34Ef56Gh78Ij90"
SLACK = "xoxb-1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dQw4w9WgXcQ-abc_123"
AKIA = "AKIAIOSFODNN7EXAMPLE"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
ANTHROPIC = "sk-ant-api03-" + "Zx9_" * 20 + "AA"
OPENAI = "sk-proj-" + "Ab3d-" * 30
OPENAI_LEGACY = "sk-" + "T3BlbkFJ" * 6
REAL_PAT = "github_pat_" + "1" * 22 + "_" + "Ab" * 29 + "c"
PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    + "MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB\n" * 3
    + "aGVsbG8=\n"
    "-----END RSA PRIVATE KEY-----"
)
KEY_BODY = "MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn"


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
        ("git+ssh://me:pw@host/r", "git+ssh://***@host/r"),
        ("see SSH://git@github.com:22/o/r", "see SSH://git@github.com:22/o/r"),
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
        ('{"Authorization": "Bearer abc"}', '{"Authorization": "***"}'),
        # Inside quotes the value ends at the quote: the rest of a held command stays visible.
        (
            "curl -H 'Authorization: token abc' https://x && git push",
            "curl -H 'Authorization: ***' https://x && git push",
        ),
        (
            'git -c http.extraheader="AUTHORIZATION: basic Zm9v" push',
            'git -c http.extraheader="AUTHORIZATION: ***" push',
        ),
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
        (f"AWS_ACCESS_KEY_ID={AKIA}", "AWS_ACCESS_KEY_ID=AKIA***"),
        ("ASIA" + "Q" * 16 + " session", "ASIA*** session"),
        (f"aws_secret_access_key = {AWS_SECRET}", "aws_secret_access_key = ***"),
        (f'"SecretAccessKey": "{AWS_SECRET}"', '"SecretAccessKey": "***"'),
        (f"AWS_SESSION_TOKEN={AWS_SECRET}xyz", "AWS_SESSION_TOKEN=***"),
        (f"key {ANTHROPIC} here", "key sk-ant-*** here"),
        (f"OPENAI_API_KEY={OPENAI}", "OPENAI_API_KEY=sk-proj-***"),
        (f"({OPENAI_LEGACY})", "(sk-***)"),
        ("sk-svcacct-" + "a1" * 15, "sk-svcacct-***"),
        (f"jwt={JWT} ok", "jwt=eyJ*** ok"),
        (REAL_PAT, "github_pat_***"),
        ("xapp-1-A0123456789-abcdef", "xapp-***"),
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
        "ssh://git@github.com/o/r.git",
        "task-abcdefghijklmnopqrstuvwxyz0123",
        "sk-learn is a library",
        "AKIA is a prefix",
        'eyJ is base64 for {"',
        "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8A\n-----END PUBLIC KEY-----",
        "aws_secret_access_key = ${AWS_SECRET}",
        "a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9 a commit sha",
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


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (PEM, "-----BEGIN RSA PRIVATE KEY-----\n***\n-----END RSA PRIVATE KEY-----"),
        (
            "before\n" + PEM + "\nafter: the key above.",
            "before\n-----BEGIN RSA PRIVATE KEY-----\n***\n-----END RSA PRIVATE KEY-----\n"
            "after: the key above.",
        ),
        # A service account file: the key is one JSON string with "\n" escapes.
        (
            '{"private_key": "' + PEM.replace("\n", "\\n") + '\\n", "x": 1}',
            '{"private_key": "-----BEGIN RSA PRIVATE KEY-----\\n***\\n'
            '-----END RSA PRIVATE KEY-----\\n", "x": 1}',
        ),
        # A log cut before the END line: everything key-like after BEGIN goes.
        (
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n",
            "-----BEGIN OPENSSH PRIVATE KEY-----\n***",
        ),
        (
            "-----BEGIN ENCRYPTED PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n"
            "DEK-Info: AES-128-CBC,ABC\n\nMIIE\n-----END ENCRYPTED PRIVATE KEY-----",
            "-----BEGIN ENCRYPTED PRIVATE KEY-----\n***\n-----END ENCRYPTED PRIVATE KEY-----",
        ),
    ],
)
def test_scrub_removes_private_key_blocks(text: str, expected: str) -> None:
    assert scrub(text) == expected
    assert scrub(expected) == expected


def test_a_token_wrapped_over_lines_is_one_token() -> None:
    wrapped = "token: " + GHP[:20] + "\n" + GHP[20:] + "\nnext line"
    assert scrub(wrapped) == "token: ghp_***\nnext line"
    crlf = AKIA[:9] + "\r\n" + AKIA[9:] + " end"
    assert scrub(crlf) == "AKIA*** end"
    pat = REAL_PAT[:50] + "\n" + REAL_PAT[50:80] + "\n" + REAL_PAT[80:] + "\n" + REAL_PAT
    assert scrub(pat) == "github_pat_***\ngithub_pat_***"
    # Short runs that do not add up to a token are left as they are.
    assert scrub("ghp_abc\ndef") == "ghp_abc\ndef"
    # A whole token on its line keeps the next line whole.
    assert scrub(GHP + "\nabcdef") == "ghp_***\nabcdef"


def test_scrub_data_scrubs_every_string_in_a_call() -> None:
    call = {"command": f"git push https://x:{GHP}@github.com/o/r", "n": 1, "env": [AKIA, None]}
    assert scrub_data(call) == {
        "command": "git push https://***@github.com/o/r",
        "n": 1,
        "env": ["AKIA***", None],
    }


def _streamed(pieces: list[str], hold: int = 1 << 16) -> list[str]:
    stream = StreamScrubber(hold=hold)
    return [stream.feed(piece) for piece in pieces] + [stream.flush()]


def test_the_stream_shows_plain_lines_at_once() -> None:
    assert _streamed(["one\n", "two\n", "three"]) == ["one\n", "two\n", "three", ""]


def test_the_stream_holds_a_wrapped_token_until_it_is_whole() -> None:
    shown = _streamed(["log " + GHP[:20] + "\n", GHP[20:] + "\n", "done\n"])
    assert shown == ["", "log ghp_***\n", "done\n", ""]


def test_the_stream_holds_a_key_block_until_its_end() -> None:
    lines = [line + "\n" for line in ("start", *PEM.split("\n"), "after")]
    shown = _streamed(lines)
    assert "".join(shown) == scrub("".join(lines))
    assert KEY_BODY not in "".join(shown)
    assert shown[0] == "start\n"


def test_a_key_block_longer_than_the_hold_is_dropped_line_by_line() -> None:
    lines = ["-----BEGIN PRIVATE KEY-----\n"] + [KEY_BODY + "\n"] * 20
    lines += ["-----END PRIVATE KEY-----\n", "after\n"]
    shown = "".join(_streamed(lines, hold=100))
    assert KEY_BODY not in shown
    assert shown.endswith("-----END PRIVATE KEY-----\nafter\n")


def test_the_stream_scrubs_what_it_shows() -> None:
    shown = _streamed([f"Authorization: Bearer {JWT}\n", f"key {ANTHROPIC}\n"])
    assert "".join(shown) == "Authorization: ***\nkey sk-ant-***\n"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("echo Authorization: x; git push", "echo Authorization: ***; git push"),
        ("echo Authorization: x && git push", "echo Authorization: ***&& git push"),
        ('curl -H "Authorization: x $(git push)"', 'curl -H "Authorization: ***$(git push)"'),
        ("echo Authorization: x | sh", "echo Authorization: ***| sh"),
        (
            "echo -----BEGIN PRIVATE KEY-----\ngit push origin main\n-----END PRIVATE KEY-----",
            "echo -----BEGIN PRIVATE KEY-----\ngit push origin main\n-----END PRIVATE KEY-----",
        ),
        (
            "-----BEGIN PRIVATE KEY-----\nProc-Type: 4; git push\nMIIE",
            "-----BEGIN PRIVATE KEY-----\nProc-Type: 4; git push\nMIIE",
        ),
        (
            "-----BEGIN PRIVATE KEY----- ; git push ; -----END PRIVATE KEY-----",
            "-----BEGIN PRIVATE KEY----- ; git push ; -----END PRIVATE KEY-----",
        ),
    ],
)
def test_scrubbing_hides_no_command_after_a_secret(text: str, expected: str) -> None:
    # A held command is scrubbed before it is classified and shown: what runs after a header
    # or a key's BEGIN line must stay in view (and a scrubbed call is held anyway).
    assert scrub(text) == expected
    assert scrub(expected) == expected


def test_a_flattened_key_block_is_scrubbed() -> None:
    flat = "-----BEGIN EC PRIVATE KEY----- MHcCAQEEI abc+/= -----END EC PRIVATE KEY-----"
    assert scrub(flat) == "-----BEGIN EC PRIVATE KEY-----\n***\n-----END EC PRIVATE KEY-----"


def test_a_hold_request_with_a_credential_is_scrubbed_and_marked(tmp_path: Path) -> None:
    command = f"curl -H 'Authorization: token abc' https://example.com/{GHP}"
    request = HoldRequest(tool="Bash", input={"command": command})
    assert request.input == {"command": "curl -H 'Authorization: ***' https://example.com/ghp_***"}
    assert request.scrubbed
    again = HoldRequest.model_validate_json(request.model_dump_json())
    assert again.scrubbed and again.input == request.input
    assert not HoldRequest(tool="Bash", input={"command": "ls"}).scrubbed


def test_a_call_that_held_a_credential_waits_for_a_person(tmp_path: Path) -> None:
    # What the rule sees is scrubbed: it cannot vouch for what runs, so a person decides.
    def classes(command: str, hold_classes: list[str]) -> list[str]:
        request = HoldRequest(tool="Bash", input={"command": command})
        found = classify_call(
            ClassifyInput(
                tool=request.tool,
                input=request.input,
                workspace=str(tmp_path),
                hold_classes=hold_classes,
                scrubbed=request.scrubbed,
            )
        )
        return found.classes

    assert classes("ls -la", []) == []
    assert classes("git status", ["push"]) == []
    assert CREDENTIAL in classes(f"git status {GHP}", ["push"])
    assert CREDENTIAL in classes("echo -----BEGIN PRIVATE KEY-----\nMIIE\nreboot", [])


def test_thousands_of_tokens_line_after_line_are_each_scrubbed() -> None:
    lines = "\n".join([REAL_PAT, "AKIA" + "B" * 16, GHP] * 2000)
    assert scrub(lines) == "\n".join(["github_pat_***", "AKIA***", "ghp_***"] * 2000)
