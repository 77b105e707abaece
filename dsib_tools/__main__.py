"""The tools around the asv suite (the suite never imports them): each command below says what it
does, and python -m dsib_tools COMMAND --help how."""

import argparse
import sys

from .cli import gates, runs, site, tables

# The order of the commands in --help.
ORDER = (
    "table",
    "run",
    "config",
    "report",
    "site",
    "compare-versions",
    "compare",
    "compare-builds",
    "noise",
    "noise-table",
    "audit",
    "durations",
    "engine-durations",
    "servers",
    "hold-servers",
    "engines-table",
    "audit-table",
    "fidelity",
    "settings",
    "machine",
    "workspace",
    "merge-results",
    "record",
    "matrix-check",
    "select",
    "lock",
    "gate-cells",
    "watch-load",
    "speedups",
    "matrix-table",
    "readme",
    "publish",
    "fetch-go",
    "vendor-js",
    "advise",
    "budget",
    "budget-table",
)


def build_parser():
    """The parser of every command: each group's ``COMMANDS`` adds its own (see ``dsib_tools.cli``)."""
    parser = argparse.ArgumentParser(
        prog="python -m dsib_tools", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    adders = {}
    for group in (tables, site, runs, gates):
        adders.update(group.COMMANDS)
    if sorted(adders) != sorted(ORDER):
        raise AssertionError("ORDER lists %s; the groups add %s" % (sorted(ORDER), sorted(adders)))
    for name in ORDER:
        adders[name](sub)
    return parser


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    args.main = main  # readme runs the command of each generated block through it, in this process
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
