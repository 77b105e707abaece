"""The commands that judge a change by measuring it: ``compare commits`` (make compare: BASE..HEAD at
the pr profile), ``compare builds`` (two builds of one library) and the cells they compare
(``compare cells``); ``study noise`` (the gate's A/A floor, make noise) and ``study audit`` (the 2019
post's cases timed outside asv, make audit)."""

import os
import sys

# The repository: benchmarks/gate-cells.txt is written there, wherever the command runs from.
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def cmd_compare(args):
    from ..compare import counts_text, run
    from ..compare_gate import CompareError

    try:
        status, verdict = run(
            os.getcwd(),
            args.base,
            args.head,
            args.machine,
            args.factor,
            benchmarks=args.bench or None,
            results_dir=args.compare_results,
            env_dir=args.env_dir,
            summary=args.summary,
            profile=args.profile,
        )
    except CompareError as exc:
        print("error: %s" % exc, file=sys.stderr)
        return 2
    if verdict is not None:
        print(
            "dsib compare: %d cells compared at factor %.2f; %s"
            % (len(verdict["compared"]), args.factor, counts_text(verdict))
        )
    return status


def add_compare(sub):
    from ..compare import FACTOR
    from ..compare_gate import PROFILE

    p = sub.add_parser(
        "commits",
        help="asv continuous BASE..HEAD at the pr profile; non-zero if slower",
        description="asv continuous between two commits of the repository in the current "
        "directory, at the pr profile, on the cells of BASE's benchmarks/gate-cells.txt (see "
        "dsib_tools/compare.py). Exit status 1 when a case got significantly slower than FACTOR, "
        "a peak memory grew beyond MEMORY_FACTOR or a file beyond 1 %, or a cell the base "
        "measured fails, skips or is gone at the head.",
    )
    p.add_argument("base")
    p.add_argument("head", nargs="?", default="HEAD")
    p.add_argument("--machine", required=True)
    p.add_argument("--factor", type=float, default=FACTOR)
    p.add_argument(
        "--bench", action="append", metavar="REGEX", help="asv -b pattern instead of the gate's cells (repeatable)"
    )
    p.add_argument("--summary", help="append a Markdown summary to this file (e.g. $GITHUB_STEP_SUMMARY)")
    p.add_argument("--results-dir", dest="compare_results", help="default: .asv/results-compare")
    p.add_argument("--env-dir", help="default: asv.conf.json's")
    p.add_argument("--profile", default=PROFILE, help="data scale (default: %(default)s)")
    p.set_defaults(func=cmd_compare)


def cmd_compare_builds(args):
    from ..compare import counts_text
    from ..compare_builds import CompareError, run

    try:
        status, verdict = run(
            os.getcwd(),
            args.library,
            args.base,
            args.head,
            args.machine,
            args.factor,
            benchmarks=args.bench or None,
            results_dir=args.results_dir,
            env_dir=args.env_dir,
        )
    except CompareError as exc:
        print("error: %s" % exc, file=sys.stderr)
        return 2
    print(
        "dsib compare-builds: %d cells compared, judged by %s; %s"
        % (len(verdict["compared"]), verdict["judged"], counts_text(verdict))
    )
    return status


def add_compare_builds(sub):
    from ..compare import FACTOR

    p = sub.add_parser(
        "builds",
        help="the gate's cells in two builds of one library; non-zero if the second is slower",
        description="Two environments of the matrix's newest entry, LIBRARY pinned to BASE in one and "
        "to HEAD in the other (a release such as 25.0.1, or a wheel, archive or source directory pip "
        "can install), everything else alike; the gate's cells of this checkout in both, rounds "
        "interleaved, judged as make compare judges two commits.",
    )
    p.add_argument("library", help="a package the matrix pins, e.g. pyarrow or pandas")
    p.add_argument("base")
    p.add_argument("head")
    p.add_argument("--machine", required=True)
    p.add_argument("--factor", type=float, default=FACTOR)
    p.add_argument(
        "--bench", action="append", metavar="REGEX", help="asv -b pattern instead of the gate's cells (repeatable)"
    )
    p.add_argument("--results-dir", help="default: .asv/results-compare-builds")
    p.add_argument("--env-dir", help="default: asv.conf.json's")
    p.set_defaults(func=cmd_compare_builds)


def cmd_gate_cells(args):
    from ..compare_gate import GATE_FILE, gate_cells, gate_file_text

    path = os.path.join(ROOT, GATE_FILE)
    text = gate_file_text(gate_cells())
    committed = ""
    if os.path.exists(path):
        with open(path) as f:
            committed = f.read()
    if args.check:
        if committed != text:
            print("%s is not the cells the gate's patterns pick: run python -m dsib_tools compare cells" % GATE_FILE)
            return 1
        print("%s: %d cells" % (GATE_FILE, text.count("\n") - 1))
        return 0
    with open(path, "w") as f:
        f.write(text)
    print("wrote %s: %d cells" % (GATE_FILE, text.count("\n") - 1))
    return 0


def add_gate_cells(sub):
    p = sub.add_parser("cells", help="write the list of cells make compare compares (%s)" % "benchmarks/gate-cells.txt")
    p.add_argument("--check", action="store_true", help="exit 1 if the committed list is not the patterns' cells")
    p.set_defaults(func=cmd_gate_cells)


def cmd_noise(args):
    from .. import noise, noise_record, noise_tables

    try:
        slowdown = noise.parse_slowdown(args.slowdown or [])
    except ValueError as exc:
        print("error: %s" % exc, file=sys.stderr)
        return 2
    record = noise.measure(
        os.getcwd(),
        args.machine,
        args.runs,
        args.factor,
        args.profile,
        data_dir=args.data_dir,
        slowdown=slowdown,
        busy=args.busy,
    )
    output = args.output or os.path.join(
        "records",
        "noise",
        "%s-%s%s%s.json" % (args.machine, args.profile, "-slowdown" if slowdown else "", "-busy" if args.busy else ""),
    )
    noise_record.save(record, output)
    print(noise_tables.markdown(record))
    print("wrote %s" % output)
    if slowdown:
        return 0  # a measurement of what is caught: misses are its result, not a failure
    return 0 if all(not (r["worse"] or r["better"] or r["failed"] or r["dropped"]) for r in record["runs"]) else 1


def add_noise(sub):
    from ..compare import FACTOR
    from ..compare_gate import PROFILE

    p = sub.add_parser("noise", help="A/A (or injected slowdown) comparisons of make compare, to a JSON record")
    p.add_argument("--machine", required=True)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--factor", type=float, default=FACTOR)
    p.add_argument("--busy", type=int, default=0, help="processes that keep a core busy each during the runs")
    p.add_argument("--data-dir", help="where the profile's data is (default: data/)")
    p.add_argument("--profile", default=PROFILE, help="data scale (default: %(default)s)")
    p.add_argument(
        "--slowdown",
        nargs="+",
        metavar="FORMAT.SIDE=FACTOR",
        help="instead of A/A, make these adapters slower, e.g. csv.write=1.25 parquet.read=1.3",
    )
    p.add_argument("-o", "--output", help="default: records/noise/MACHINE-PROFILE[-slowdown][-busy].json")
    p.set_defaults(func=cmd_noise)


def cmd_audit(args):
    from .. import audit

    try:
        record = audit.measure(
            os.getcwd(),
            args.config,
            args.audit_results,
            args.machine,
            args.data_dir,
            args.profile,
            args.rounds,
            args.only,
        )
    except audit.AuditError as exc:
        print("error: %s" % exc, file=sys.stderr)
        return 2
    audit.save(record, args.output or os.path.join("records", "audits", "audit-%s.json" % args.machine))
    print(audit.markdown(record))
    return 0


def add_audit(sub):
    p = sub.add_parser(
        "audit",
        help="the 2019 post's cases timed outside asv, interleaved with asv (make audit)",
        description="Times each of the post's seven cases in turn with `asv run` and in fresh processes "
        "of asv's environment (the collector on, then off), and records every sample.",
    )
    p.add_argument("--config", required=True, help="the asv config of the profile (make writes .asv-default.conf.json)")
    p.add_argument(
        "--results-dir",
        dest="audit_results",
        required=True,
        metavar="RESULTS_DIR",
        help="where the audit's own asv runs write (not the run's results)",
    )
    p.add_argument("--machine", required=True)
    p.add_argument(
        "--data-dir",
        default=os.path.abspath(os.environ.get("DSIB_DATA_DIR") or "data"),
        help="where the profile's data is (default: $DSIB_DATA_DIR or data/)",
    )
    p.add_argument("--profile", default="default", help="the profile (default: %(default)s)")
    p.add_argument("--rounds", type=int, default=3, help="rounds of the three columns a case (default: %(default)s)")
    p.add_argument("--only", help="a regular expression: only the cases whose asv name it finds (e.g. parquet)")
    p.add_argument("-o", "--output", help="default: records/audits/audit-MACHINE.json")
    p.set_defaults(func=cmd_audit)


COMMANDS = {
    "compare commits": add_compare,
    "compare builds": add_compare_builds,
    "compare cells": add_gate_cells,
    "study noise": add_noise,
    "study audit": add_audit,
}
