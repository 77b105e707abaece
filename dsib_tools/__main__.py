"""``python -m dsib_tools``: tools around the asv suite; benchmarks never import them.

table    print the 2019 post's comparison table from results/ as Markdown
report   print every format's cases (time, throughput, peak memory, size) as Markdown
fidelity print which pandas types survive which format
publish  asv publish from a copy of results/ without stale results or incomplete environments
site     write the dsib pages of html/ (report, releases) from results/ and link them from asv's dashboard
compare-versions  asv compare between two environments (library releases) at one commit
compare  asv continuous BASE..HEAD at the pr profile (make compare)
noise    A/A comparisons: the noise floor of compare (make noise); noise-table prints it
audit    the 2019 post's cases timed outside asv, interleaved with asv (make audit); audit-table prints it
config   write an asv config for another profile or results location
machine  record this machine's hardware for asv under a stable name
workspace  start build/results from the committed results (make bench writes there)
record   copy a machine's results from build/results into the committed results/ (make record)
merge-results  join the results trees of a sweep's shards into one (make merge-results)
matrix-check  every curated environment's run of the suite: cells run, skipped, failed
select   asv's -b regex for one format's or one source's cells (make bench FORMAT=... SOURCE=...),
         or for the release matrix's selection (--release)
lock     record each benchmark's series and measured code (benchmarks/series.lock)
fetch-go fetch a Go toolchain from the Go module proxy (make test builds actionlint with it)
vendor-js  fetch the site's pinned chart library (Vega-Lite) from the npm registry into dsib_tools/www/vendor
advise   quick measures of every format on your own table, ranked, with an HTML page (make advise FILE=...)
watch-load  run a command (asv run) and log the machine's load beside the results
speedups the post's cases in two environments, with spread (the README's 2018 -> 2026 table)
readme   rewrite the README's generated tables (--check: say which differ)
servers  install what the engines' servers need, where missing (make bench and make test run it)
hold-servers  run a command (asv run) with one PostgreSQL and one QuestDB held for all of it
durations  each benchmark's total duration in an asv results file, and their sum (a run's budget)
engine-durations  per engine, asv's duration of each of its benchmarks (one results file an engine)
"""

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
    sub = parser.add_subparsers(dest="command")
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
