"""Tests of desk.shell_rule.rule: the shell rule's hold classes, table-driven over every form it
reads."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from desk.shell_rule import rule as policy
from desk.shell_rule.rule import HoldClass, shell_hold_classes

PUSH = HoldClass.PUSH
DESTRUCTIVE = HoldClass.DESTRUCTIVE
PRIVILEGED = HoldClass.PRIVILEGED
OUTSIDE = HoldClass.OUTSIDE_WORKSPACE
NONE: frozenset[HoldClass] = frozenset()


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A workspace with a subdirectory, a sibling outside it, and symlinks pointing out."""
    ws = tmp_path / "ws"
    (ws / "build").mkdir(parents=True)
    (ws / "src").mkdir()
    (ws / "out.txt").write_text("x")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("x")
    (ws / "escape").symlink_to(outside)
    (ws / "escape_file").symlink_to(outside / "secret.txt")
    (ws / "inner").symlink_to(ws / "build")
    return ws


def classes(command: str, workspace: Path) -> frozenset[HoldClass]:
    """The classes of `command`, with {ws} and {out} standing for the workspace and a sibling."""
    outside = workspace.parent / "outside"
    command = command.replace("{ws}", str(workspace)).replace("{out}", str(outside))
    return shell_hold_classes(command, str(workspace))


def cases(*rows: tuple[str, str, frozenset[HoldClass] | HoldClass]) -> list[object]:
    return [
        pytest.param(cmd, want if isinstance(want, frozenset) else frozenset({want}), id=row_id)
        for row_id, cmd, want in rows
    ]


PUSHES = cases(
    ("plain", "git push", PUSH),
    ("with-remote", "git push origin main", PUSH),
    ("git-C", "git -C /some/other/repo push", PUSH),
    ("git-C-relative", "git -C src push origin HEAD", PUSH),
    ("git-c", "git -c http.extraHeader=x push", PUSH),
    ("git-c-and-C", "git -c core.x=1 -C . --no-pager push", PUSH),
    ("git-dir", "git --git-dir=.git --work-tree=. push", PUSH),
    ("env", "env X=1 git push", PUSH),
    ("env-options", "env -i -u HOME PATH=/usr/bin git push", PUSH),
    ("env-split-string", "env -S 'git push'", PUSH),
    ("assignment", "GIT_TRACE=1 git push", PUSH),
    ("bash-c", 'bash -c "git push"', PUSH),
    ("sh-c", "sh -c 'git push origin main'", PUSH),
    ("bash-lc", "bash -lc 'git status && git push'", PUSH),
    ("bash-o-c", "bash -o pipefail -c 'git push'", PUSH),
    ("zsh-c", "zsh -c 'git push'", PUSH),
    ("busybox-sh-c", "busybox sh -c 'git push'", PUSH),
    ("nested-bash-c", """bash -c "sh -c 'git push'" """, PUSH),
    ("and", "git status && git push", PUSH),
    ("or", "false || git push", PUSH),
    ("semicolon", "git add -A; git commit -m x; git push", PUSH),
    ("no-spaces", "git status;git push", PUSH),
    ("newline", "git status\ngit push", PUSH),
    ("pipe", "git push 2>&1 | tee push.log", PUSH),
    ("after-pipe", "echo hi | git push", PUSH),
    ("background", "git push &", PUSH),
    ("subshell", "(git push)", PUSH),
    ("subshell-cd", "(cd src && git push)", PUSH),
    ("brace-group", "{ git push; }", PUSH),
    ("dollar-paren", "echo $(git push)", PUSH),
    ("dollar-paren-quoted", 'echo "result: $(git push)"', PUSH),
    ("dollar-paren-nested", "echo $(echo $(git push))", PUSH),
    ("backticks", "echo `git push`", PUSH),
    ("backticks-quoted", 'echo "`git push`"', PUSH),
    ("assignment-subst", "OUT=$(git push origin main)", PUSH),
    ("process-subst", "cat <(git push)", PUSH),
    ("command", "command git push", PUSH),
    ("exec", "exec git push", PUSH),
    ("abs-path", "/usr/bin/git push", PUSH),
    ("backslash", "\\git push", PUSH),
    ("quoted-name", "'git' \"push\"", PUSH),
    ("nohup-time-nice", "nohup time nice -n 5 git push", PUSH),
    ("timeout", "timeout -s KILL 60 git push", PUSH),
    ("xargs", "echo origin | xargs git push", PUSH),
    ("eval", "eval 'git push'", PUSH),
    ("if-then", "if true; then git push; fi", PUSH),
    ("while-do", "while true; do git push; done", PUSH),
    ("pipe-to-shell", "echo 'git push' | bash", PUSH),
    ("printf-to-shell", "printf '%s\\n' 'git push' | sh", PUSH),
    ("watch", "watch -n 5 git push", PUSH),
    ("here-string-shell", "bash <<< 'git push'", PUSH),
    ("heredoc-shell", "bash <<'EOF'\ngit push\nEOF", PUSH),
    ("heredoc-subst", "cat <<EOF\n$(git push)\nEOF", PUSH),
    ("git-alias", "git -c alias.p=push p", PUSH),
    ("git-alias-shell", "git -c 'alias.p=!git push' p", PUSH),
    ("git-dash-push", "/usr/lib/git-core/git-push origin", PUSH),
    ("submodule-foreach", "git submodule foreach --recursive 'git push'", PUSH),
    ("rebase-exec", "git rebase -x 'git push' main", PUSH),
    ("find-exec", "find . -maxdepth 0 -exec git push ';'", PUSH),
    ("gh-pr-merge", "gh pr merge 12 --squash", PUSH),
    ("gh-pr-merge-repo", "gh pr -R owner/repo merge 12", PUSH),
    ("gh-release-create", "gh release create v1.0 --notes x", PUSH),
    ("gh-api-put", "gh api -X PUT repos/o/r/pulls/1/merge", PUSH),
    ("gh-api-field", "gh api repos/o/r/issues -f title=x", PUSH),
    ("gh-api-mutation", "gh api graphql -f query='mutation { x }'", PUSH),
    ("sudo-git-push", "sudo git push", frozenset({PUSH, PRIVILEGED})),
)

DESTROYS = cases(
    ("push-force", "git push --force", frozenset({PUSH, DESTRUCTIVE})),
    ("push-f", "git push -f origin main", frozenset({PUSH, DESTRUCTIVE})),
    ("push-fu", "git push -fu origin main", frozenset({PUSH, DESTRUCTIVE})),
    ("push-lease", "git push --force-with-lease", frozenset({PUSH, DESTRUCTIVE})),
    ("push-lease-ref", "git push --force-with-lease=main:abc", frozenset({PUSH, DESTRUCTIVE})),
    ("push-plus-refspec", "git push origin +main", frozenset({PUSH, DESTRUCTIVE})),
    ("push-delete", "git push origin --delete topic", frozenset({PUSH, DESTRUCTIVE})),
    ("push-colon-delete", "git push origin :topic", frozenset({PUSH, DESTRUCTIVE})),
    ("push-force-hidden", "bash -c 'git -C x push -f'", frozenset({PUSH, DESTRUCTIVE})),
    ("reset-hard", "git reset --hard", DESTRUCTIVE),
    ("reset-hard-ref", "git reset --hard origin/main", DESTRUCTIVE),
    ("clean-f", "git clean -f", DESTRUCTIVE),
    ("clean-fd", "git clean -fd", DESTRUCTIVE),
    ("clean-xdf", "git clean -xdf", DESTRUCTIVE),
    ("clean-split", "git clean -d -x -f", DESTRUCTIVE),
    ("clean-force-long", "git clean --force", DESTRUCTIVE),
    ("branch-D", "git branch -D topic", DESTRUCTIVE),
    ("branch-delete-force", "git branch --delete --force topic", DESTRUCTIVE),
    ("branch-df", "git branch -df topic", DESTRUCTIVE),
    ("rm-rf-root-slash", "rm -rf /", DESTRUCTIVE),
    ("rm-rf-star-at-fs-root", "rm -rf /*", DESTRUCTIVE),
    ("rm-rf-home", "rm -rf ~", DESTRUCTIVE),
    ("rm-rf-home-dir", "rm -rf ~/projects", DESTRUCTIVE),
    ("rm-rf-var", "rm -rf $HOME/x", DESTRUCTIVE),
    ("rm-rf-tmp", "rm -rf /tmp/elsewhere", DESTRUCTIVE),
    ("rm-r-parent", "rm -r ../sibling", DESTRUCTIVE),
    ("rm-f-escape", "rm -f build/../../x", DESTRUCTIVE),
    ("rm-rf-dot", "rm -rf .", DESTRUCTIVE),
    ("rm-rf-dot-slash", "rm -rf ./", DESTRUCTIVE),
    ("rm-rf-star", "rm -rf *", DESTRUCTIVE),
    ("rm-rf-dotstar", "rm -rf .* *", DESTRUCTIVE),
    ("rm-rf-ws-abs", "rm -rf {ws}", DESTRUCTIVE),
    ("rm-rf-ws-via-parent", "rm -rf ../ws", DESTRUCTIVE),
    ("rm-rf-pwd", 'rm -rf "$PWD"', DESTRUCTIVE),
    ("rm-R", "rm -R /opt/thing", DESTRUCTIVE),
    ("rm-recursive-long", "rm --recursive /srv/data", DESTRUCTIVE),
    ("rm-force-long", "rm --force /srv/file", DESTRUCTIVE),
    ("rm-options-last", "rm /srv/data -rf", DESTRUCTIVE),
    ("rm-after-cd", "cd /tmp && rm -rf build", DESTRUCTIVE),
    ("rm-after-cd-up", "cd .. && rm -rf ws", DESTRUCTIVE),
    ("rm-link-slash", "rm -rf escape/", DESTRUCTIVE),
    ("rm-in-bash-c", "bash -c 'rm -rf /'", DESTRUCTIVE),
    ("find-delete-outside", "find /tmp -name '*.x' -delete", DESTRUCTIVE),
    ("find-exec-rm", "find / -exec rm -rf {} +", DESTRUCTIVE),
    ("xargs-rm", "find /tmp -name '*.x' | xargs rm -rf", DESTRUCTIVE),
    ("xargs-rm-unknown-input", "cat list.txt | xargs rm -rf", DESTRUCTIVE),
)

PRIVILEGES = cases(
    ("sudo", "sudo apt-get install x", PRIVILEGED),
    ("sudo-options", "sudo -u root -E ls", PRIVILEGED),
    ("sudo-rm", "sudo rm -rf /", frozenset({PRIVILEGED, DESTRUCTIVE})),
    ("su", "su -", PRIVILEGED),
    ("su-c", "su -c 'git push' root", frozenset({PRIVILEGED, PUSH})),
    ("doas", "doas reboot", PRIVILEGED),
    ("pkexec", "pkexec visudo", PRIVILEGED),
    ("sudo-in-chain", "make && sudo make install", PRIVILEGED),
    ("sudo-subst", "echo $(sudo cat /etc/shadow)", PRIVILEGED),
    ("chmod-etc", "chmod 777 /etc/passwd", PRIVILEGED),
    ("chmod-root", "chmod -R 755 /", PRIVILEGED),
    ("chmod-usr", "chmod +x /usr/local/bin/tool", PRIVILEGED),
    ("chmod-dash-mode", "chmod -x /usr/bin/python3", PRIVILEGED),
    ("chown-var", "chown -R me:me /var/www", PRIVILEGED),
    ("chgrp-opt", "chgrp staff /opt/app", PRIVILEGED),
    ("chmod-lib64", "chmod 644 /lib64/ld.so", PRIVILEGED),
    ("chmod-boot", "chmod 600 /boot/grub", PRIVILEGED),
    ("chmod-dev", "chmod 666 /dev/sda", PRIVILEGED),
    ("chmod-root-home", "chown me /root", PRIVILEGED),
    ("chmod-reference", "chmod --reference=a.txt /etc/hosts", PRIVILEGED),
    ("chmod-via-dotdot", "chmod 777 ../../../../../../../../etc", PRIVILEGED),
)

OUTSIDE_WRITES = cases(
    ("redirect", "echo hi > /tmp/x", OUTSIDE),
    ("append", "echo hi >> /tmp/x", OUTSIDE),
    ("both-streams", "make &> /tmp/build.log", OUTSIDE),
    ("both-streams-append", "make &>> /tmp/build.log", OUTSIDE),
    ("stderr", "make 2> /tmp/err.log", OUTSIDE),
    ("stderr-no-space", "make 2>/tmp/err.log", OUTSIDE),
    ("clobber", "echo x >| /tmp/x", OUTSIDE),
    ("dup-to-file", "make >& /tmp/all.log", OUTSIDE),
    ("redirect-first", "> /tmp/x echo hi", OUTSIDE),
    ("redirect-dotdot", "echo hi > ../x", OUTSIDE),
    ("redirect-dotdot-deep", "echo hi > build/../../x", OUTSIDE),
    ("redirect-home", "echo x >> ~/.bashrc", OUTSIDE),
    ("redirect-var", 'echo x > "$HOME/.profile"', OUTSIDE),
    ("redirect-sibling-abs", "echo x > {out}/new.txt", OUTSIDE),
    ("redirect-in-subst", "echo $(echo x > /tmp/y)", OUTSIDE),
    ("heredoc-to-file", "cat > /tmp/x <<'EOF'\nhello\nEOF", OUTSIDE),
    ("tee", "echo x | tee /tmp/x", OUTSIDE),
    ("tee-a", "echo x | tee -a out.txt ~/.ssh/authorized_keys", OUTSIDE),
    ("sudo-tee", "echo x | sudo tee /etc/hosts", frozenset({PRIVILEGED, OUTSIDE})),
    ("cp", "cp out.txt /tmp/", OUTSIDE),
    ("cp-r", "cp -r src ../copy", OUTSIDE),
    ("cp-target-dir", "cp -t /tmp out.txt", OUTSIDE),
    ("cp-target-long", "cp --target-directory=/tmp out.txt src", OUTSIDE),
    ("mv", "mv out.txt ../moved.txt", OUTSIDE),
    ("mv-source-outside", "mv /tmp/x ./x", OUTSIDE),
    ("install", "install -m 755 tool /usr/local/bin/tool", OUTSIDE),
    ("install-d", "install -d /tmp/newdir", OUTSIDE),
    ("ln", "ln -sf {ws}/tool /usr/local/bin/tool", OUTSIDE),
    ("touch", "touch /tmp/flag", OUTSIDE),
    ("touch-d", "touch -d yesterday ../stamp", OUTSIDE),
    ("mkdir", "mkdir -p /tmp/a/b", OUTSIDE),
    ("mkdir-m", "mkdir -m 700 ~/.secret", OUTSIDE),
    ("dd", "dd if=/dev/zero of=/tmp/disk.img bs=1M count=1", OUTSIDE),
    ("sed-i", "sed -i 's/a/b/' /tmp/config", OUTSIDE),
    ("sed-i-suffix", "sed -i.bak -e 's/a/b/' ../config", OUTSIDE),
    ("sed-in-place-long", "sed --in-place -e s/a/b/ /tmp/x", OUTSIDE),
    ("sed-ni", "sed -ni 's/a/b/p' /tmp/x", OUTSIDE),
    ("truncate", "truncate -s 0 /var/log/app.log", OUTSIDE),
    ("rm-plain-outside", "rm /tmp/file", OUTSIDE),
    ("chmod-outside-non-system", "chmod 600 ~/.ssh/config", OUTSIDE),
    ("write-after-cd", "cd /tmp; echo x > y", OUTSIDE),
    ("write-after-cd-var", "cd $SOMEWHERE && touch x", OUTSIDE),
    ("write-in-bash-c", "bash -c 'echo x > /tmp/x'", OUTSIDE),
    ("cd-in-subshell-does-not-leak", "(cd build) && echo x > ../x", OUTSIDE),
    ("dev-sda", "dd if=x of=/dev/sda", OUTSIDE),
)

SYMLINKS = cases(
    ("redirect-through-link", "echo x > escape/new.txt", OUTSIDE),
    ("redirect-onto-link", "echo x > escape_file", OUTSIDE),
    ("tee-link", "echo x | tee escape/log", OUTSIDE),
    ("cp-into-link", "cp out.txt escape/", OUTSIDE),
    ("touch-link", "touch escape/flag", OUTSIDE),
    ("sed-i-link", "sed -i s/a/b/ escape_file", OUTSIDE),
    ("mkdir-link", "mkdir -p escape/sub", OUTSIDE),
    ("rm-rf-through-link", "rm -rf escape/secret.txt", DESTRUCTIVE),
    ("rm-rf-link-slash", "rm -rf escape/", DESTRUCTIVE),
    ("chmod-link", "chmod 600 escape_file", OUTSIDE),
    ("link-inside-stays-inside", "echo x > inner/log.txt", NONE),
    ("rm-the-link-itself", "rm -f escape", NONE),
    ("rm-rf-the-link-itself", "rm -rf escape_file", NONE),
)

HARMLESS = cases(
    ("git-status", "git status", NONE),
    ("git-log", "git log --oneline -n 5", NONE),
    ("git-log-grep-push", "git log --grep push", NONE),
    ("git-diff", "git diff HEAD~1", NONE),
    ("git-commit-mentions-push", 'git commit -m "git push later; rm -rf /"', NONE),
    ("git-fetch-pull", "git fetch origin && git pull --rebase", NONE),
    ("git-reset-soft", "git reset --soft HEAD~1", NONE),
    ("git-clean-dry-run", "git clean -nd", NONE),
    ("git-clean-force-dry-run", "git clean -fn", NONE),
    ("git-branch-d", "git branch -d merged", NONE),
    ("git-branch-list", "git branch -a", NONE),
    ("echo-git-push", "echo git push", NONE),
    ("echo-quoted-and", "echo '&& git push'", NONE),
    ("grep-git-push", "grep -rn 'git push' .", NONE),
    ("comment", "ls # git push", NONE),
    ("heredoc-body-is-text", "cat > notes.md <<'EOF'\nrun git push and rm -rf /\nEOF", NONE),
    ("heredoc-dash", "cat <<-EOF > notes.md\n\tgit push\n\tEOF", NONE),
    ("gh-pr-view", "gh pr view 12", NONE),
    ("gh-pr-create", "gh pr list --state open", NONE),
    ("gh-api-get", "gh api repos/o/r/pulls", NONE),
    ("gh-api-graphql-query", "gh api graphql -f query='query { viewer { login } }'", NONE),
    ("ls", "ls -la", NONE),
    ("ls-outside", "ls -la /etc /tmp ~", NONE),
    ("cat-passwd", "cat /etc/passwd", NONE),
    ("read-redirect", "wc -l < /etc/passwd", NONE),
    ("grep-outside", "grep -r TODO /usr/share/doc | head", NONE),
    ("cp-from-outside", "cp /etc/hosts ./hosts", NONE),
    ("rm-rf-build", "rm -rf build/", NONE),
    ("rm-rf-build-no-slash", "rm -rf build", NONE),
    ("rm-rf-nested", "rm -rf src/__pycache__ build/*.o", NONE),
    ("rm-rf-glob-in-dir", "rm -rf build/*", NONE),
    ("rm-f-root-glob-with-name", "rm -f *.log", NONE),
    ("rm-rf-abs-inside", "rm -rf {ws}/build", NONE),
    ("rm-rf-pwd-sub", 'rm -rf "$PWD/build"', NONE),
    ("rm-after-cd-inside", "cd src && rm -rf ../build", NONE),
    ("rm-plain-inside", "rm out.txt", NONE),
    ("echo-to-file", "echo hi > out.txt", NONE),
    ("append-to-file", "echo hi >> logs/new.txt", NONE),
    ("write-abs-inside", "echo hi > {ws}/out.txt", NONE),
    ("dev-null", "make > /dev/null 2>&1", NONE),
    ("dev-null-both", "make &> /dev/null", NONE),
    ("stderr-to-null", "ls nothing 2>/dev/null", NONE),
    ("dup-stderr", "echo oops >&2", NONE),
    ("dup-stdout", "echo x 1>&2 2>&1", NONE),
    ("dev-stdout", "echo x > /dev/stdout", NONE),
    ("dev-stderr", "echo x > /dev/stderr", NONE),
    ("dev-fd", "echo x > /dev/fd/1; echo y > /dev/fd/2", NONE),
    ("tee-dev-null", "echo x | tee /dev/null", NONE),
    ("tee-inside", "pytest | tee test.log", NONE),
    ("cp-inside", "cp -r src build/src", NONE),
    ("mv-inside", "mv out.txt build/", NONE),
    ("mkdir-inside", "mkdir -p build/a/b", NONE),
    ("touch-inside", "touch src/__init__.py", NONE),
    ("sed-no-i-outside", "sed 's/a/b/' /etc/hosts", NONE),
    ("sed-i-inside", "sed -i 's/a/b/' src/x.py", NONE),
    ("sed-e-script-outside-looking", "sed -e 's|/tmp|/var|' -i src/x.py", NONE),
    ("chmod-inside", "chmod +x src/run.sh", NONE),
    ("chmod-dash-x-inside", "chmod -x src/run.sh", NONE),
    ("dd-read-outside", "dd if=/dev/urandom of=build/rand bs=1 count=8", NONE),
    ("ln-from-outside", "ln -s /usr/share/dict/words words", NONE),
    ("find-delete-inside", "find . -name '*.pyc' -delete", NONE),
    ("find-exec-rm-inside", "find build -name '*.o' -exec rm -f {} ';'", NONE),
    ("xargs-rm-found-inside", "find build -name '*.o' | xargs rm -f", NONE),
    ("command-v", "command -v git", NONE),
    ("pytest", "python -m pytest -q tests/", NONE),
    ("bash-script", "bash scripts/test.sh", NONE),
    ("bash-c-harmless", "bash -c 'ls && echo ok > log.txt'", NONE),
    ("empty", "", NONE),
    ("whitespace", "   \n\t ", NONE),
    ("cd-inside-write", "cd build && echo x > out.log", NONE),
    ("for-loop", "for f in *.py; do echo $f; done", NONE),
    ("pipes-and-reads", "cat /etc/os-release | grep ID | sort | uniq", NONE),
)


@pytest.mark.parametrize(("command", "expected"), PUSHES)
def test_push(workspace: Path, command: str, expected: frozenset[HoldClass]) -> None:
    assert classes(command, workspace) == expected


@pytest.mark.parametrize(("command", "expected"), DESTROYS)
def test_destructive(workspace: Path, command: str, expected: frozenset[HoldClass]) -> None:
    assert classes(command, workspace) == expected


@pytest.mark.parametrize(("command", "expected"), PRIVILEGES)
def test_privileged(workspace: Path, command: str, expected: frozenset[HoldClass]) -> None:
    assert classes(command, workspace) == expected


@pytest.mark.parametrize(("command", "expected"), OUTSIDE_WRITES)
def test_outside_workspace(workspace: Path, command: str, expected: frozenset[HoldClass]) -> None:
    assert classes(command, workspace) == expected


@pytest.mark.parametrize(("command", "expected"), SYMLINKS)
def test_symlink_escapes(workspace: Path, command: str, expected: frozenset[HoldClass]) -> None:
    assert classes(command, workspace) == expected


@pytest.mark.parametrize(("command", "expected"), HARMLESS)
def test_harmless(workspace: Path, command: str, expected: frozenset[HoldClass]) -> None:
    assert classes(command, workspace) == expected


@pytest.mark.parametrize(
    ("command", "expected"),
    cases(
        ("open-double-quote", 'echo "unterminated; git push', PUSH),
        ("open-single-quote", "echo 'it is && git push", PUSH),
        ("open-quote-in-bash-c", 'bash -c "git push', PUSH),
        ("open-quote-rm", 'rm -rf "/etc', DESTRUCTIVE),
        ("open-quote-redirect", "echo 'x > /tmp/x", OUTSIDE),
        ("open-subst", "echo $(git push", PUSH),
        ("open-backtick", "echo `git push", PUSH),
        ("stray-close-paren", "git status ) ) ; git push", PUSH),
        ("stray-open-paren", "( ( git push", PUSH),
        ("dangling-redirect", "echo hi >", NONE),
        ("dangling-operators", "&& || ; | git push", PUSH),
        ("lone-quote", "'", NONE),
        ("lone-backslash", "\\", NONE),
        ("unterminated-heredoc", "cat <<EOF\ngit push", NONE),
        ("null-byte", "echo x > /tmp/a\x00b", OUTSIDE),
        ("binary-junk", "\x00\x01\x02; git push \xff", PUSH),
    ),
)
def test_unparseable_input_never_raises(
    workspace: Path, command: str, expected: frozenset[HoldClass]
) -> None:
    assert classes(command, workspace) == expected


@pytest.mark.parametrize("levels", [1, 8, 9, 12])
def test_deep_bash_c_nesting_is_still_read(workspace: Path, levels: int) -> None:
    command = "git push"
    for _ in range(levels):
        command = f"bash -c {shlex.quote(command)}"
    assert classes(command, workspace) == {PUSH}


def test_deep_substitution_nesting_is_still_read(workspace: Path) -> None:
    command = "echo " + "$(echo " * 300 + "$(git push)" + ")" * 300
    assert classes(command, workspace) == {PUSH}


def test_absurd_nesting_holds_for_everything(workspace: Path) -> None:
    assert classes("eval " * 100 + "true", workspace) == frozenset(HoldClass)


def test_parser_failure_falls_back_to_a_plain_reading(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(text: str) -> list[object]:
        raise RuntimeError("parser bug")

    monkeypatch.setattr(policy, "lex", broken)
    assert classes("git status && sudo git push > /tmp/x", workspace) == {
        PUSH,
        PRIVILEGED,
        OUTSIDE,
    }


def test_total_failure_holds_for_everything(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(text: str) -> list[object]:
        raise RuntimeError("parser bug")

    monkeypatch.setattr(policy, "lex", broken)
    monkeypatch.setattr(policy, "flat_tokens", broken)
    assert classes("ls", workspace) == frozenset(HoldClass)


def test_relative_paths_are_relative_to_the_workspace_not_the_process(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir("/")
    assert classes("echo x > out.txt && rm -rf build", workspace) == NONE
    assert classes("rm -rf etc", workspace) == NONE


def test_workspace_under_a_system_directory_is_not_privileged() -> None:
    assert shell_hold_classes("chmod +x run.sh && chmod 644 src/x", "/var/lib/codedesk/ws") == NONE
    assert shell_hold_classes("chmod 644 /var/log/syslog", "/var/lib/codedesk/ws") == {PRIVILEGED}


def test_hold_class_values() -> None:
    assert [c.value for c in HoldClass] == [
        "push",
        "destructive",
        "privileged",
        "outside_workspace",
    ]
    assert HoldClass("push") is PUSH
    assert str(OUTSIDE) == "outside_workspace"
