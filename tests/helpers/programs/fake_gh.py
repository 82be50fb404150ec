#!/usr/bin/env python3
"""A stand-in for `gh` (the GitHub CLI) for the tests: records every call, keeps pull requests.

Its state folder is `$FAKE_GH_STATE` (the test's wrapper on PATH sets it): `calls.jsonl` gets
each call's arguments and working folder (and, for `pr create`, the body file's text and the
SHA the head branch was at on origin); `prs.json` the pull requests it opened, by branch.
Cues, as files in the folder: `logged-out` makes `auth status` fail; `die-after-create` makes
the next `pr create` open the pull request and then fail, as a gh killed before it answered.
Standard library only; `git` is run in the working folder to check the branch on origin.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def main(args: list[str]) -> int:
    state = Path(os.environ["FAKE_GH_STATE"])
    prs_file = state / "prs.json"
    prs: dict[str, dict[str, str]] = json.loads(prs_file.read_text()) if prs_file.exists() else {}
    call: dict[str, object] = {"args": args, "cwd": os.getcwd()}
    code = 0
    if args[:2] == ["auth", "status"]:
        if (state / "logged-out").exists():
            print(
                "You are not logged into any GitHub hosts. To log in, run: gh auth login",
                file=sys.stderr,
            )
            code = 1
        else:
            print("github.com\n  Logged in to github.com account tester")
    elif args[:2] == ["pr", "list"]:
        head = _option(args, "--head")
        print(prs.get(head, {}).get("url", ""))
    elif args[:2] == ["pr", "create"]:
        head = _option(args, "--head")
        at = subprocess.run(
            ["git", "ls-remote", "origin", f"refs/heads/{head}"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        call["body"] = Path(_option(args, "--body-file")).read_text()
        call["head_sha"] = at[0] if at else ""
        if not at:
            print("pull request create failed: Head sha can't be blank", file=sys.stderr)
            code = 1
        else:
            url = f"https://github.com/acme/api/pull/{len(prs) + 1}"
            prs[head] = {"url": url, "base": _option(args, "--base"), "sha": at[0]}
            prs_file.write_text(json.dumps(prs))
            dying = state / "die-after-create"
            if dying.exists():
                dying.unlink()
                code = 1
            else:
                print(url)
    else:
        print(f"fake gh: unknown command {args}", file=sys.stderr)
        code = 2
    with (state / "calls.jsonl").open("a") as calls:
        calls.write(json.dumps(call) + "\n")
    return code


def _option(args: list[str], name: str) -> str:
    return args[args.index(name) + 1]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
