"""The command line: a dozen commands and groups, each group's commands under it, and every
invocation the README, docs/, the Makefile and the tools' own messages show names a real command."""

import glob
import os
import re

from dsib_tools.__main__ import GROUPS, ORDER, build_parser, main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOP = sorted(set(path.split(" ")[0] for path in ORDER))
INVOKED = re.compile(r"(?:python -m dsib_tools|\$\(DSIB\)|generated:) ([a-z][a-z-]*)(?: ([a-z][a-z-]*))?")


def _run(capsys, *argv):
    """``python -m dsib_tools ARGV`` in this process: (exit status, stdout, stderr)."""
    try:
        status = main(list(argv))
    except SystemExit as exc:  # --help, and argparse's errors
        status = exc.code
    out, err = capsys.readouterr()
    return status, out, err


def test_about_a_dozen_commands_and_each_group_lists_its_own(capsys):
    assert len(TOP) <= 13, TOP
    status, top_help, _ = _run(capsys, "--help")
    assert status == 0
    for name in TOP:
        assert re.search(r"^    %s\b" % re.escape(name), top_help, re.M), name
    for group in GROUPS:
        status, listed, _ = _run(capsys, group)
        assert status == 2, group
        commands = [path.split(" ", 1)[1] for path in ORDER if path.startswith(group + " ")]
        for command in commands:
            assert re.search(r"^    %s\b" % re.escape(command), listed, re.M), (group, command)
            assert _run(capsys, group, command, "--help")[0] == 0, (group, command)


def test_an_unknown_command_of_a_group_is_a_one_line_error(capsys):
    status, _, err = _run(capsys, "table", "no-such-table")
    assert status == 2 and "invalid choice: 'no-such-table'" in err


def test_every_invocation_the_documentation_shows_names_a_command():
    """A renamed command leaves no stale invocation: README.md, docs/, the Makefile, the
    provisioning script, the workflows and the tools' own help and messages."""
    parser_paths = set(ORDER)
    texts = [os.path.join(ROOT, n) for n in ("README.md", "Makefile")]
    texts += glob.glob(os.path.join(ROOT, "docs", "*.md")) + glob.glob(os.path.join(ROOT, "dsib_tools", "**", "*.py"))
    texts += glob.glob(os.path.join(ROOT, "dsib", "*.py")) + glob.glob(os.path.join(ROOT, "scripts", "*"))
    texts += glob.glob(os.path.join(ROOT, ".github", "workflows", "*.yml"))
    seen, stale = 0, []
    for path in texts:
        with open(path) as f:
            for number, line in enumerate(f, 1):
                for match in INVOKED.finditer(line):
                    first, second = match.groups()
                    seen += 1
                    named = "%s %s" % (first, second) if first in GROUPS else first
                    if named not in parser_paths:
                        stale.append("%s:%d: %s" % (os.path.relpath(path, ROOT), number, match.group(0)))
    assert seen > 40, seen
    assert not stale, "\n".join(stale)


def test_the_parser_is_built_from_every_modules_commands():
    parser = build_parser()
    args = parser.parse_args(["compare", "cells", "--check"])
    assert args.check and callable(args.func)
    args = parser.parse_args(["table", "post", "--with-2019"])
    assert args.with_2019 and callable(args.func)
