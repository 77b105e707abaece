"""The README's result tables, generated from committed files by the commands that print them.

Each table sits in a block

    <!-- generated: table post --results-dir results --machine xeon-2c-24g --with-2019 -->
    ...
    <!-- /generated -->

whose opening names a ``python -m dsib_tools`` command line. ``python -m dsib_tools readme``
runs every block's command and writes its output in; ``--check`` only says which blocks differ
(a test runs it, so the README cannot drift from the files it cites). A table of timings or
ratios outside such a block is typed, and ``typed_tables`` finds it.
"""

import contextlib
import difflib
import io
import os
import re
import shlex
import sys

OPEN = re.compile(r"<!-- generated: (.+?) -->\n")
CLOSE = "<!-- /generated -->"
# A Markdown table row that shows a measured figure: a time, a ratio or a speedup.
FIGURE = re.compile(r"\|[^|\n]*\d(?:\.\d+)?\s?(?:µs|ms|s|min|×|x)\b[^|\n]*\|")


class ReadmeError(Exception):
    pass


def blocks(text):
    """[(start, end, command)]: the span of each block's content and its command line."""
    found = []
    for match in OPEN.finditer(text):
        end = text.find(CLOSE, match.end())
        if end < 0:
            raise ReadmeError("the block of `%s` has no %s" % (match.group(1), CLOSE))
        found.append((match.end(), end, match.group(1)))
    return found


def run(command, main):
    """The output of ``main(COMMAND's arguments)``, the CLI's entry point run in this process;
    ReadmeError if it fails."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(shlex.split(command))
        except SystemExit as exc:  # argparse
            status = exc.code
    if status:
        raise ReadmeError("`python -m dsib_tools %s` exited %s: %s" % (command, status, err.getvalue().strip()))
    return out.getvalue().strip() + "\n"


def regenerate(text, main):
    """``text`` with every block's content replaced by its command's output (``main``: the CLI's
    entry point, ``dsib_tools.__main__.main``)."""
    pieces, last = [], 0
    for start, end, command in blocks(text):
        pieces += [text[last:start], run(command, main)]
        last = end
    return "".join(pieces + [text[last:]])


# A table that is not a result (how long a command took, say), exempt by a visible, reviewed line
# right above it: "<!-- typed: why -->".
TYPED = re.compile(r"<!-- typed: .+ -->")


def typed_tables(text):
    """Lines of Markdown tables outside every block that show a measured figure, unless the table
    is declared typed, with its reason, on the line above it."""
    inside = [(start, end) for start, end, _ in blocks(text)]
    typed, offset, exempt, previous = [], 0, False, ""
    for number, line in enumerate(text.splitlines(True), 1):
        if line.startswith("|"):
            exempt = exempt or bool(TYPED.match(previous))
            if FIGURE.search(line) and not exempt and not any(s <= offset < e for s, e in inside):
                typed.append("%d: %s" % (number, line.rstrip()))
        else:
            exempt = False
            previous = line
        offset += len(line)
    return typed


def diff(old, new, name="README.md"):
    return "".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True), name, name + " (generated)"))


def rewrite(path, check, main):
    """Rewrite the generated blocks of the Markdown file ``path`` (``check``: print how they differ
    instead) with ``main``, the CLI's entry point; its exit status. A table of figures outside a
    block fails either way."""
    with open(path) as f:
        text = f.read()
    try:
        new = regenerate(text, main)
    except ReadmeError as exc:
        print("error: %s: %s" % (path, exc), file=sys.stderr)
        return 2
    typed = typed_tables(new)
    if check:
        if new != text:
            print(diff(text, new, path))
            print("%s is not what its commands print: run python -m dsib_tools readme" % path, file=sys.stderr)
            return 1
    elif new != text:
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            f.write(new)
        os.replace(tmp, path)
        print("rewrote the generated tables of %s" % path)
    if typed:
        print(
            "%s: tables of measured figures outside a generated block (generate them, or say why above them "
            "with <!-- typed: ... -->):\n%s" % (path, "\n".join(typed)),
            file=sys.stderr,
        )
        return 1
    return 0
