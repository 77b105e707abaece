"""The tools around the asv suite (the suite never imports them): each command below says what it
does, and python -m dsib_tools COMMAND --help how (a group's: GROUP --help lists its commands)."""

import argparse
import sys

from .cli import gates, runs, site, tables

# The commands in --help, in this order: a command alone, or a group's (GROUP COMMAND).
ORDER = (
    "run",
    "report",
    "table post",
    "table speedups",
    "table engines",
    "table fidelity",
    "table settings",
    "table durations",
    "table engine-durations",
    "table audit",
    "table noise",
    "table matrix",
    "table steps",
    "table chains",
    "table budget",
    "readme",
    "site build",
    "site publish",
    "compare commits",
    "compare builds",
    "compare versions",
    "compare cells",
    "study noise",
    "study audit",
    "study budget",
    "study load",
    "study speed",
    "results workspace",
    "results merge",
    "results record",
    "results check",
    "setup config",
    "setup machine",
    "setup select",
    "setup fetch-go",
    "setup vendor-js",
    "servers install",
    "servers hold",
    "lock",
    "advise",
)
GROUPS = {
    "table": "the Markdown tables of results and records (the README's and docs/' generated blocks)",
    "site": "the published pages: dsib's pages beside asv's, and asv publish",
    "compare": "the pull-request gate and its kin: two commits, two builds of a library, two environments",
    "study": "the studies that write records: the gate's noise, the post's audit, a command's budget, the load",
    "results": "asv's results trees: this clone's workspace, shards merged, runs recorded, a matrix checked",
    "setup": "what a run needs: its asv config, the machine, a cell selection, the Go and JavaScript it fetches",
    "servers": "the engines' servers: install what they need, or hold them for a command",
}


def build_parser():
    """The parser of every command: each module of ``dsib_tools.cli`` adds its own (``COMMANDS``),
    a group's commands under the group's parser."""
    parser = argparse.ArgumentParser(
        prog="python -m dsib_tools", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    adders = {}
    for group in (tables, site, runs, gates):
        adders.update(group.COMMANDS)
    if sorted(adders) != sorted(ORDER):
        raise AssertionError("ORDER lists %s; the modules add %s" % (sorted(ORDER), sorted(adders)))
    groups = {}
    for path in ORDER:
        group, _, command = path.rpartition(" ")
        if group and group not in groups:
            found = sub.add_parser(group, help=GROUPS[group], description=GROUPS[group])
            groups[group] = found.add_subparsers(dest="subcommand", metavar="COMMAND")
            found.set_defaults(usage=found)
        adders[path](groups[group] if group else sub)
    return parser


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):  # no command, or a group without its command
        getattr(args, "usage", parser).print_help()
        return 2
    args.main = main  # readme runs the command of each generated block through it, in this process
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
