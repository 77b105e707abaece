"""The commands that print Markdown tables from results and records, most of them generated into
README.md and docs/ (``readme`` rewrites those blocks)."""

import functools
import glob
import json
import os
import sys


def with_results(cmd):
    """``cmd`` run with ``args.results`` (machine, asv Results, param names) and ``args.load`` (its
    load logs), chosen by --results-dir, --machine, --env and --commit; exit 1 if there are none."""

    @functools.wraps(cmd)
    def run(args):
        from ..asv_results import NoResults
        from ..report_sections import results_of

        try:
            args.results, args.load = results_of(args.results_dir, args.machine, args.env, args.commit)
        except (NoResults, ValueError) as exc:  # no results, or an unreadable load log
            print("error: %s" % exc, file=sys.stderr)
            return 1
        return cmd(args)

    return run


@with_results
def cmd_table(args):
    from ..report import describe, markdown_table

    machine, res, names = args.results
    print(describe(machine, res, args.load))
    print()
    print(markdown_table(res, names, with_2019=args.with_2019, load=args.load))
    return 0


def add_table(sub):
    p = sub.add_parser("post", help="the post's Parquet vs CSV table from asv results")
    p.add_argument("--results-dir", default="results")
    p.add_argument("--machine", default=None, help="default: the machine with the newest result")
    p.add_argument("--env", default=None, help="substring of the asv environment name")
    p.add_argument("--commit", default=None, help="commit hash prefix")
    p.add_argument("--with-2019", action="store_true", help="add the post's 2019 numbers")
    p.set_defaults(func=cmd_table)


@with_results
def cmd_report(args):
    from ..report import describe
    from ..report_sections import report_blocks

    machine, res, names = args.results
    print(describe(machine, res, args.load))
    if args.studies:
        from ..report_engines import studies_report

        print()
        print(studies_report(res, names, args.source or "tsbs_cpu", args.load))
        return 0
    if args.store:
        from ..report_store import LEGEND, store_blocks

        for block in [LEGEND] + (store_blocks(res, names) or ["This run has no read from an object store."]):
            print()
            print(block)
        return 0
    for block in report_blocks(
        res, names, args.load, args.source, args.variant, args.engines, args.batches, args.dataset
    ):
        print()
        print(block)
    return 0


def add_report(sub):
    p = sub.add_parser("report", help="every format: rows are cases, columns are formats")
    p.add_argument("--results-dir", default="results")
    p.add_argument("--machine", default=None)
    p.add_argument("--env", default=None)
    p.add_argument("--commit", default=None)
    p.add_argument("--source", default=None, help="nyc_taxi, tsbs_cpu or rocklin (default: all)")
    p.add_argument("--variant", default=None)
    p.add_argument("--engines", action="store_true", help="the engines' blocks alone")
    p.add_argument(
        "--studies",
        action="store_true",
        help="the engines beside the studies alone: each pair of paths compared, both medians and their ratio",
    )
    p.add_argument(
        "--store",
        action="store_true",
        help="the reads from an object store alone: each cell's time at each delay a request, its requests and bytes",
    )
    p.add_argument(
        "--batches",
        action="store_true",
        help="the reads real work needs alone: three columns and batches beside the whole read, "
        "and the continuous read in batches",
    )
    p.add_argument(
        "--dataset",
        default=None,
        metavar="NAME",
        help="the block of a table you brought (make bench DATASET=NAME; --env DSIB_PROFILEbrought)",
    )
    p.set_defaults(func=cmd_report)


def cmd_fidelity(args):
    from dsib.formats import FORMATS

    from ..fidelity_table import markdown, versions

    print("Round trips with %s:" % versions())
    print()
    print(markdown(list(FORMATS.values())))
    return 0


def add_fidelity(sub):
    p = sub.add_parser("fidelity", help="which pandas types survive which format, from real round trips")
    p.set_defaults(func=cmd_fidelity)


def cmd_settings(args):
    from dsib.formats import FORMATS

    from ..settings_table import markdown

    print(markdown(FORMATS.values()))
    return 0


def add_settings(sub):
    p = sub.add_parser("settings", help="the options every format states, and the post's cases' defaults")
    p.set_defaults(func=cmd_settings)


def cmd_compare_versions(args):
    from ..compare_versions import SelectionError, compare

    try:
        compare(args.results_root, args.a, args.b, args.machine, args.commit, args.factor, args.only_changed)
    except SelectionError as exc:
        print("error: %s" % exc, file=sys.stderr)
        return 1
    return 0


def add_compare_versions(sub):
    p = sub.add_parser(
        "versions",
        help="asv compare between two environments at one commit",
        description="A and B are key=value[,key=value] filters on the result files' params "
        "and environment variables, e.g. pyarrow=25.0.1 pyarrow=26.0.1 (DSIB_PROFILE=default "
        "unless given). Both at the newest commit that has both, unless --commit.",
    )
    p.add_argument("a", metavar="A")
    p.add_argument("b", metavar="B")
    p.add_argument("--results-dir", dest="results_root", metavar="RESULTS_DIR", default="results")
    p.add_argument("--machine", default=None, help="default: the only machine in the results")
    p.add_argument("--commit", default=None, help="commit hash prefix; default: the newest with both")
    p.add_argument("--factor", type=float, default=1.1, help="ratio that counts as a change (asv's default)")
    p.add_argument("--only-changed", action="store_true")
    p.set_defaults(func=cmd_compare_versions)


def cmd_speedups(args):
    from ..compare_versions import SelectionError, default_machine, select
    from ..chains import text_change
    from ..release_data import release_label
    from ..asv_results import param_names
    from ..report import speedup_table

    try:
        machine = args.machine or default_machine(args.results_root)
        commit, before, after = select(args.results_root, machine, args.a, args.b, args.commit)
    except SelectionError as exc:
        print("error: %s" % exc, file=sys.stderr)
        return 1
    kinds = text_change(before.params, after.params)
    print(
        "machine `%s`, commit `%s`, profile `%s`: %s against %s%s."
        % (
            machine,
            commit[:8],
            (before.env_vars or {}).get("DSIB_PROFILE"),
            args.a,
            args.b,
            "; the str and cat rows compare two kinds of frame (%s)" % kinds if kinds else "",
        )
    )
    print()
    print(
        speedup_table(
            before, after, param_names(args.results_root), [release_label(before.params), release_label(after.params)]
        )
    )
    return 0


def add_speedups(sub):
    p = sub.add_parser(
        "speedups",
        help="the post's cases in two environments, with spread, and the speedup",
        description="A and B select environments as compare versions does (key=value filters).",
    )
    p.add_argument("a", metavar="A")
    p.add_argument("b", metavar="B")
    p.add_argument("--results-dir", dest="results_root", metavar="RESULTS_DIR", default="results")
    p.add_argument("--machine", default=None, help="default: the only machine in the results")
    p.add_argument("--commit", default=None, help="commit hash prefix; default: the newest with both")
    p.set_defaults(func=cmd_speedups)


def cmd_durations(args):
    from ..durations import durations_markdown, first_samples_markdown, floor_markdown

    if args.first_samples:
        print(first_samples_markdown(args.record))
    else:
        print(floor_markdown(args.record) if args.floor else durations_markdown(args.record, args.prefix))
    return 0


def add_durations(sub):
    p = sub.add_parser("durations", help="each benchmark's total duration in an asv results file, and their sum")
    p.add_argument("record")
    p.add_argument("--prefix", default="", help="only the benchmarks whose name starts so, e.g. engines.")
    p.add_argument(
        "--floor",
        action="store_true",
        help="a class a row: its time, its samples', the rest, and its samples' floor "
        "(three samples of a sub-second cell)",
    )
    p.add_argument(
        "--first-samples",
        action="store_true",
        help="a class a row: its timed cells whose first sample is the slowest, against chance, and "
        "its sub-second cells with fewer than three samples",
    )
    p.set_defaults(func=cmd_durations)


def cmd_engine_durations(args):
    from ..durations import engine_durations_markdown

    print(engine_durations_markdown(args.directory))
    return 0


def add_engine_durations(sub):
    p = sub.add_parser(
        "engine-durations",
        help="per engine, asv's duration of each of its benchmarks",
        description="DIRECTORY holds <engine>.json: asv's results file after make run ENGINE=<engine>.",
    )
    p.add_argument("directory")
    p.set_defaults(func=cmd_engine_durations)


def cmd_engines_table(args):
    from ..engines_table import markdown

    print(markdown())
    return 0


def add_engines_table(sub):
    p = sub.add_parser("engines", help="the README's list of the registered engines")
    p.set_defaults(func=cmd_engines_table)


def cmd_audit_table(args):
    from .. import audit

    print(audit.markdown(audit.load_record(args.record)))
    return 0


def add_audit_table(sub):
    p = sub.add_parser("audit", help="the README's audit table, from an audit record")
    p.add_argument("record")
    p.set_defaults(func=cmd_audit_table)


def cmd_noise_table(args):
    from .. import noise_record, noise_tables

    print(noise_tables.markdown(noise_record.load(args.record)))
    if args.published_results:
        print()
        print(noise_tables.published_markdown(args.published_results, args.machine))
    return 0


def add_noise_table(sub):
    p = sub.add_parser(
        "noise",
        help="the README's noise tables: a make noise record, and with "
        "--results-dir the spread of the published default run",
    )
    p.add_argument("record")
    p.add_argument("--results-dir", dest="published_results", metavar="RESULTS_DIR")
    p.add_argument("--machine")
    p.set_defaults(func=cmd_noise_table)


def cmd_matrix_table(args):
    from .. import matrix

    with open(args.record) as f:
        print(matrix.check_markdown(json.load(f)))
    return 0


def add_matrix_table(sub):
    p = sub.add_parser("matrix", help="the README's table of a results check record")
    p.add_argument("record")
    p.set_defaults(func=cmd_matrix_table)


def cmd_chains_table(args):
    from .. import chains
    from ..matrix import entries

    print(chains.markdown(entries(args.config)))
    return 0


def add_chains_table(sub):
    p = sub.add_parser("chains", help="a config's environments in chain order, each with the step that reaches it")
    p.add_argument("--config", default="asv.conf.json", help="asv.conf.json or asv.sweeps.conf.json")
    p.set_defaults(func=cmd_chains_table)


def cmd_steps_table(args):
    from .. import steps
    from ..matrix import entries

    judged, ran, _ = steps.judge_results(args.results_root, args.machine, args.config, args.profile)
    print(steps.markdown(judged, ran, entries(args.config)))
    return 0


def add_steps_table(sub):
    p = sub.add_parser(
        "steps",
        help="the steps of the release matrix's chains called beyond the environments' noise",
        description="Every pair of neighbours of the config's chains that both ran on MACHINE: each "
        "cell's change with its 99 %% interval, called where it lies beyond the range of the "
        "step's control cells (dsib_tools/steps.py).",
    )
    p.add_argument("--machine", required=True)
    p.add_argument("--results-dir", dest="results_root", metavar="RESULTS_DIR", default="results")
    p.add_argument("--config", default="asv.conf.json", help="the chains: asv.conf.json or asv.sweeps.conf.json")
    p.add_argument("--profile", default="default")
    p.set_defaults(func=cmd_steps_table)


def cmd_readme(args):
    """Every generated block of README.md and docs/*.md (or of the --path files given)."""
    from ..readme import rewrite

    paths = args.path or ["README.md"] + sorted(glob.glob(os.path.join("docs", "*.md")))
    return max(rewrite(path, args.check, args.main) for path in paths)


def add_readme(sub):
    p = sub.add_parser(
        "readme",
        help="rewrite the generated tables of the README and docs/ from the files they cite",
        description="Every <!-- generated: COMMAND --> block of README.md and docs/*.md gets COMMAND's "
        "output (python -m dsib_tools COMMAND); --check says which differ instead.",
    )
    p.add_argument("--check", action="store_true", help="exit 1, with a diff, where a block is not its output")
    p.add_argument("--path", action="append", help="a Markdown file (repeatable; default: README.md and docs/*.md)")
    p.set_defaults(func=cmd_readme)


def cmd_budget_table(args):
    from ..budget import table_markdown

    print(table_markdown(glob.glob(os.path.join(args.records, "*.json"))))
    return 0


def add_budget_table(sub):
    p = sub.add_parser("budget", help="the budget table: every budget record beside its target")
    p.add_argument("--records", default=os.path.join("records", "budget"), help="the folder of budget records")
    p.set_defaults(func=cmd_budget_table)


COMMANDS = {
    "table post": add_table,
    "report": add_report,
    "table fidelity": add_fidelity,
    "table settings": add_settings,
    "compare versions": add_compare_versions,
    "table speedups": add_speedups,
    "table durations": add_durations,
    "table engine-durations": add_engine_durations,
    "table engines": add_engines_table,
    "table audit": add_audit_table,
    "table noise": add_noise_table,
    "table matrix": add_matrix_table,
    "table steps": add_steps_table,
    "table chains": add_chains_table,
    "readme": add_readme,
    "table budget": add_budget_table,
}
