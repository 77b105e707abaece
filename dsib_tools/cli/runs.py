"""The commands around a run of the suite: its asv config, the machine it records under, the
servers it needs, what it selects, its load, and where its results go (``make bench``, ``make
record`` and friends call them)."""

import argparse
import json
import os
import sys


def _shard(text, part="shard"):
    from ..matrix import parse_shard

    try:
        return parse_shard(text, part)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(exc.args[0])


def _block(text):
    return _shard(text, "block")


def cmd_config(args):
    from ..config import derive_config

    with open(args.base) as f:
        base = json.load(f)
    try:
        conf = derive_config(
            base,
            args.profile,
            args.results_dir,
            args.html_dir,
            args.env_dir,
            args.repo,
            args.benchmark_dir,
            args.envs,
            args.dataset,
            args.data_dir,
            args.shard,
        )
    except ValueError as exc:
        print("error: %s" % exc, file=sys.stderr)
        return 2
    text = json.dumps(conf, indent=4) + "\n"
    if args.output == "-":
        sys.stdout.write(text)
    else:
        with open(args.output, "w") as f:
            f.write(text)
    return 0


def add_config(sub):
    p = sub.add_parser(
        "config",
        help="derive an asv config from asv.conf.json",
        description="asv runs from its config file's directory (plugins and relative "
        "paths resolve there), so write the derived config beside asv.conf.json.",
    )
    p.add_argument("--base", default="asv.conf.json")
    p.add_argument("--profile", help="data profile recorded in the environment name (DSIB_PROFILE)")
    p.add_argument("--results-dir")
    p.add_argument("--html-dir")
    p.add_argument("--env-dir")
    p.add_argument("--repo")
    p.add_argument("--benchmark-dir")
    p.add_argument(
        "--envs",
        choices=("all", "newest"),
        default="all",
        help="every include entry of the base config, or the newest pyarrow/pandas only",
    )
    p.add_argument(
        "--dataset",
        default=None,
        metavar="NAME",
        help="a table you brought: its name and contents' digest go into every environment's name",
    )
    p.add_argument("--data-dir", default=None, help="where the table is (default: data_prep's)")
    p.add_argument(
        "--shard",
        type=_shard,
        metavar="I/N",
        help="only shard I of N of the environments (1-based; each environment in exactly one shard)",
    )
    p.add_argument("-o", "--output", default="-")
    p.set_defaults(func=cmd_config)


def save_machine(name, known_results):
    """Record this machine's hardware for asv under ``name``; 2 (the reason said) where
    ``known_results`` has results of another machine under that name, else 0."""
    # `asv machine --yes --machine NAME` stores no hardware fields in asv 0.6.6 unless every one is
    # given, so record asv's own detected defaults under the chosen name.
    from asv.machine import MachineCollection

    from ..workspace import hardware_refusal, machine_info

    info = machine_info(name)
    refusal = hardware_refusal(known_results, name, info)
    if refusal:
        sys.stderr.write("error: %s\n" % refusal)
        return 2
    MachineCollection.save(name, info)
    print("asv machine %(machine)s: %(cpu)s, %(num_cpu)s cpus, %(ram)s kB RAM, %(os)s %(arch)s" % info)
    return 0


def cmd_machine(args):
    return save_machine(args.name, args.known_results)


def add_machine(sub):
    p = sub.add_parser("machine", help="record this machine's hardware for asv under NAME")
    p.add_argument("name")
    p.add_argument(
        "--results-dir",
        dest="known_results",
        default="results",
        metavar="RESULTS_DIR",
        help="refuse NAME if RESULTS_DIR/NAME/machine.json records other hardware",
    )
    p.set_defaults(func=cmd_machine)


def cmd_workspace(args):
    from ..workspace import seed

    copied = seed(args.committed, args.local)
    print(
        "%s: %d committed results files copied in (this run writes here, not to %s)"
        % (args.local, copied, args.committed)
    )
    return 0


def add_workspace(sub):
    p = sub.add_parser("workspace", help="copy the committed results into this clone's own results directory")
    p.add_argument("--committed", default="results")
    p.add_argument("--local", default=os.path.join("build", "results"))
    p.set_defaults(func=cmd_workspace)


def cmd_merge_results(args):
    from ..merge import MergeError, merge

    try:
        pairs = merge(args.trees, args.into, args.machine)
    except MergeError as exc:
        print("error: %s" % exc, file=sys.stderr)
        return 1
    print(
        "%s: %d shards of machine %s merged, %d files copied" % (args.into, len(args.trees), args.machine, len(pairs))
    )
    return 0


def add_merge_results(sub):
    p = sub.add_parser("merge", help="join the results trees of a sweep's shards (one machine) into one")
    p.add_argument("--machine", required=True)
    p.add_argument("--into", required=True, help="the merged tree (e.g. build/results, seeded by make workspace)")
    p.add_argument("trees", nargs="+", metavar="SHARD_TREE", help="a shard's results tree (its build/results)")
    p.set_defaults(func=cmd_merge_results)


def cmd_record(args):
    from ..workspace import record

    try:
        pairs, left_out = record(
            args.local, args.committed, args.machine, allow_load=args.allow_load, leave_out=args.leave_out
        )
    except (LookupError, ValueError) as exc:
        print("error: %s" % exc.args[0], file=sys.stderr)
        return 1
    for source, target in pairs:
        print("recorded %s" % target)
        if target in left_out:
            print(
                "  without %d benchmarks (of an earlier series, or --leave-out): %s"
                % (len(left_out[target]), ", ".join(left_out[target]))
            )
    if not pairs:
        print(
            "nothing to record: %s holds every result of machine %s in %s" % (args.committed, args.machine, args.local)
        )
    return 0


def add_record(sub):
    p = sub.add_parser("record", help="copy MACHINE's new or changed results into the committed history")
    p.add_argument("--machine", required=True)
    p.add_argument("--local", default=os.path.join("build", "results"))
    p.add_argument("--committed", default="results")
    p.add_argument(
        "--allow-load", action="store_true", help="record results taken under load, or without a load log, all the same"
    )
    p.add_argument(
        "--leave-out",
        metavar="REGEX",
        help="benchmarks not to record, as a decision (results measured with code their series does not name)",
    )
    p.set_defaults(func=cmd_record)


def cmd_matrix_check(args):
    from .. import matrix
    from ..compare import resolve
    from ..compare_gate import CompareError

    try:
        commit = resolve(os.getcwd(), args.commit)
    except CompareError as exc:
        print("error: %s" % exc, file=sys.stderr)
        return 2
    record = matrix.run_check(args.results_dir_, args.machine, commit, args.profile)
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    with open(args.output, "w") as f:
        json.dump(record, f, indent=1, sort_keys=True)
        f.write("\n")
    print(matrix.check_markdown(record))
    print("wrote %s" % args.output)
    ok = all(e["found"] and not e["failed"] for e in record["environments"])
    return 0 if ok else 1


def add_matrix_check(sub):
    p = sub.add_parser("check", help="did every curated environment run the suite, and which cells failed")
    p.add_argument("--results-dir", dest="results_dir_", default=os.path.join("build", "results"))
    p.add_argument("--machine", required=True)
    p.add_argument("--profile", default="tiny")
    p.add_argument("--commit", default="HEAD")
    p.add_argument("-o", "--output", required=True)
    p.set_defaults(func=cmd_matrix_check)


def cmd_select(args):
    from ..selection import select_regex

    try:
        regex = (
            select_regex(args.format or None, args.source or None, args.engine or None)
            if args.format or args.source or args.engine
            else None
        )
    except KeyError as exc:
        print("error: %s" % exc.args[0], file=sys.stderr)
        return 2
    if args.release:
        from ..matrix import release_regex

        regex = release_regex(within=regex)
    if regex is None:
        print("error: select what? --format, --source, --engine and/or --release", file=sys.stderr)
        return 2
    if args.output:
        with open(args.output, "w") as f:
            f.write(regex)
    else:
        print(regex)
    return 0


def add_select(sub):
    from ..selection import ALL_ENGINES

    p = sub.add_parser("select", help="asv's -b regex for one format's (or engine's) and/or one source's cells")
    p.add_argument("--format", default="")
    p.add_argument("--engine", default="", help="an engine's name, or %s: every engine's cells" % ALL_ENGINES)
    p.add_argument("--source", default="")
    p.add_argument(
        "--release",
        action="store_true",
        help="the release matrix's selection (dsib_tools/matrix.py: RELEASE), within the others",
    )
    p.add_argument("-o", "--output")
    p.set_defaults(func=cmd_select)


def cmd_run(args):
    import subprocess

    from .. import run

    try:
        changes = run.measured_code_changes(args.commit)
    except subprocess.CalledProcessError:
        print("error: COMMIT %s is not a commit of this clone" % args.commit, file=sys.stderr)
        return 2
    if changes:
        print(
            "error: this clone's measured code differs from COMMIT %s in %s (asv would run these benchmarks "
            "against that commit's dsib); check out %s or commit the change"
            % (args.commit, ", ".join(changes), args.commit),
            file=sys.stderr,
        )
        return 2
    status = save_machine(args.machine, args.results_dir)
    if status:
        return status
    try:
        selected = run.selection(
            args.format, args.source, args.engine, release=args.selection == "release", bench=args.bench
        )
        if args.block and (args.shard or not args.matrix):
            raise ValueError("--block takes --matrix, and not --shard")
        config = (
            run.matrix_config(
                args.matrix, args.profile, args.results_dir, args.html_dir, args.env_dir, args.shard, args.block
            )
            if args.matrix
            else args.config
        )
    except (KeyError, ValueError) as exc:
        print("error: %s" % exc.args[0], file=sys.stderr)
        return 2
    if args.block:
        commands = run.block_commands(config, args.machine, args.commit, selected, run.environment_names(config))
        return run.run_passes(commands, args.results_dir, args.machine, selected)
    command = run.asv_command(config, args.machine, args.profile, args.commit, selected, matrix=bool(args.matrix))
    return run.run(command, args.results_dir, args.machine, selected)


def add_run(sub):
    from ..selection import ALL_ENGINES

    p = sub.add_parser(
        "run",
        help="asv's run of the suite: the newest environment (--config) or a matrix, servers held, load logged",
        description="Records the machine, selects the cells (FORMAT, SOURCE, ENGINE; a matrix's release "
        "selection), and runs asv with the servers its selected cells work in held for the run and the "
        "machine's load logged beside the results.",
    )
    p.add_argument("--config", help="the asv config of a run of the newest environment")
    p.add_argument("--matrix", choices=("curated", "sweeps"), help="run this matrix instead, writing its config")
    p.add_argument("--shard", type=_shard, metavar="I/N", help="with --matrix: shard I of N of its environments")
    p.add_argument(
        "--block",
        type=_block,
        metavar="I/N",
        help="with --matrix: block I of N, a run of neighbouring environments, measured forward then backward",
    )
    p.add_argument(
        "--selection",
        choices=("release", "all"),
        default="all",
        help="release: the release-tracking cells only (matrix.RELEASE), within the others",
    )
    p.add_argument("--profile", required=True)
    p.add_argument("--machine", required=True)
    p.add_argument("--commit", default="HEAD")
    p.add_argument("--results-dir", default=os.path.join("build", "results"))
    p.add_argument("--html-dir", default=os.path.join("build", "html"))
    p.add_argument("--env-dir", default=os.path.join(".asv", "env"))
    p.add_argument("--format", default="")
    p.add_argument("--source", default="")
    p.add_argument("--engine", default="", help="an engine's name, or %s: every engine's cells" % ALL_ENGINES)
    p.add_argument("--bench", default="", help="a regex of the benchmarks' names (asv's -b), within the others")
    p.set_defaults(func=cmd_run)


def cmd_lock(args):
    from .. import lock

    if args.check:
        found = lock.problems()
        for line in found:
            print(line)
        if not found:
            print("%s records every benchmark's series and measured code" % lock.LOCK)
        return 1 if found else 0
    for line in lock.write() or ["nothing changed"]:
        print(line)
    return 0


def add_lock(sub):
    p = sub.add_parser(
        "lock",
        help="record each benchmark's series and measured code in benchmarks/series.lock",
        description="A change to the code a benchmark measures forces a decision: bump its "
        "series (version = series(N + 1)) or record that the series continues. Run this to "
        "record; --check says what is not recorded yet.",
    )
    p.add_argument("--check", action="store_true", help="exit 1 and say what the lock does not record")
    p.set_defaults(func=cmd_lock)


def _command(argv):
    """The command after ``--``, or None (an error said) if there is none."""
    command = argv[1:] if argv[:1] == ["--"] else argv
    if not command:
        print("error: give the command to run after --", file=sys.stderr)
    return command or None


def cmd_watch_load(args):
    from ..machine_load import main as watch

    command = _command(args.argv)
    return 2 if command is None else watch(args.results_dir, args.machine, command)


def cmd_speed(args):
    from ..machine_load import print_sittings

    return print_sittings(args.logs)


def add_speed(sub):
    from ..machine_speed import SAME_MACHINE

    p = sub.add_parser(
        "speed",
        help="how fast the machine was in each watched run: its sittings compared",
        description="For each load log given (in the order of the sittings), the machine's speed "
        "before and after its command (page faults, memory copies, the interpreter: "
        "dsib_tools.machine_speed), and each figure more than %gx either way of the first run's "
        "start. Exits 1 where a run's machine was of another speed." % SAME_MACHINE,
    )
    p.add_argument("logs", nargs="+", help="load logs (RESULTS_DIR/MACHINE/load/*.jsonl), the first sitting first")
    p.set_defaults(func=cmd_speed)


def add_watch_load(sub):
    p = sub.add_parser(
        "load",
        help="run a command (asv run) and log the machine's load beside its results",
        description="Every second, the machine's CPU counters and the command's own process "
        "tree's CPU time, into RESULTS_DIR/MACHINE/load/*.jsonl: other processes' CPU and steal "
        "while each benchmark ran. Exits with the command's status.",
    )
    p.add_argument("--results-dir", required=True)
    p.add_argument("--machine", required=True)
    p.add_argument("argv", nargs=argparse.REMAINDER, help="-- the command")
    p.set_defaults(func=cmd_watch_load)


def cmd_servers(args):
    from ..server_install import main as install

    return install()


def add_servers(sub):
    p = sub.add_parser("install", help="install what the engines' servers need, where missing")
    p.set_defaults(func=cmd_servers)


def cmd_hold_servers(args):
    from dsib.servers import HELD_KINDS

    from ..held_servers import hold

    kinds = None if args.kinds is None else [k for k in args.kinds.split(",") if k]
    unknown = sorted(set(kinds or ()) - set(kind for kind, _, _ in HELD_KINDS))
    if unknown:
        print("error: --kinds: no such kind of server: %s" % ", ".join(unknown), file=sys.stderr)
        return 2
    command = _command(args.argv)
    return 2 if command is None else hold(command, kinds)


def add_hold_servers(sub):
    p = sub.add_parser(
        "hold",
        help="run a command (asv run) with the run's servers held for all of it",
        description="Starts the servers (PostgreSQL, QuestDB, Spark's JVM holder, the object store) on "
        "free ports of 127.0.0.1, tells the command where they listen ($DSIB_SERVERS), and stops them "
        "by their PID when it ends, however it ends. Exits with the command's status.",
    )
    p.add_argument(
        "--kinds",
        help="the kinds to hold, comma-separated (postgres, questdb, spark, s3; empty: none); "
        "the others' cases skip saying why. Default: every kind",
    )
    p.add_argument("argv", nargs=argparse.REMAINDER, help="-- the command")
    p.set_defaults(func=cmd_hold_servers)


def cmd_fetch_go(args):
    from ..fetch_go import FetchError, fetch

    try:
        fetch(args.version, args.into)
    except (FetchError, OSError) as exc:
        print("error: %s" % exc, file=sys.stderr)
        return 1
    return 0


def add_fetch_go(sub):
    p = sub.add_parser("fetch-go", help="fetch a pinned Go toolchain from the Go module proxy")
    p.add_argument("--version", required=True)
    p.add_argument("--into", required=True)
    p.set_defaults(func=cmd_fetch_go)


def add_advise(sub):
    from ..advise import add_arguments

    p = sub.add_parser("advise", help="quick measures of every format on a CSV, Parquet, Feather or JSON Lines file")
    add_arguments(p)


def cmd_budget(args):
    from .. import budget

    command = _command(args.argv)
    if command is None:
        return 2
    if args.log:  # a run already watched (by study load): record it
        budget.write(budget.record(args.log, args.clone, args.machine, command, args.output), args.out)
        return 0
    return budget.run(command, args.machine, args.out, args.workdir)


def add_budget(sub):
    p = sub.add_parser(
        "budget",
        help="run a command from a fresh clone and record its wall time, asv's time and the load",
        description="Clones this repository's HEAD into WORKDIR, runs the command there under the load "
        "watcher and writes a budget record (records/budget/). With --log, records a run that "
        "study load already watched in CLONE instead.",
    )
    p.add_argument("-o", "--out", required=True, help="the record, e.g. records/budget/<machine>-bench.json")
    p.add_argument("--machine", required=True)
    p.add_argument("--workdir", help="where to clone (must not exist)")
    p.add_argument("--log", help="the study load log of a run already made in --clone")
    p.add_argument("--clone", help="with --log: the clone the run was made in")
    p.add_argument("--output", help="with --log: the run's output, whose last lines the record keeps")
    p.add_argument("argv", nargs=argparse.REMAINDER, help="-- the command, e.g. make bench MACHINE=<machine>")
    p.set_defaults(func=cmd_budget)


COMMANDS = {
    "run": add_run,
    "setup config": add_config,
    "setup machine": add_machine,
    "results workspace": add_workspace,
    "results merge": add_merge_results,
    "results record": add_record,
    "results check": add_matrix_check,
    "setup select": add_select,
    "lock": add_lock,
    "study load": add_watch_load,
    "study speed": add_speed,
    "servers install": add_servers,
    "servers hold": add_hold_servers,
    "setup fetch-go": add_fetch_go,
    "advise": add_advise,
    "study budget": add_budget,
}
