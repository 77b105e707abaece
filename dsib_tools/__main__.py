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
import json
import os
import sys


def cmd_table(args):
    from .report import describe, markdown_table

    machine, res, names = args.results
    print(describe(machine, res, args.load))
    print()
    print(markdown_table(res, names, with_2019=args.with_2019, load=args.load))
    return 0


def cmd_machine(args):
    # `asv machine --yes --machine NAME` stores no hardware fields in asv 0.6.6 unless every one is
    # given, so record asv's own detected defaults under the chosen name.
    from asv.machine import MachineCollection

    from .workspace import machine_info, other_hardware

    info = machine_info(args.name)
    # asv rewrites results/NAME/machine.json with whatever hardware ran last, so one name used on
    # two CPUs would silently mix their timings in one series: refuse before anything runs.
    recorded = os.path.join(args.known_results, args.name, "machine.json")
    if os.path.exists(recorded):
        try:
            with open(recorded) as f:
                known = json.load(f)
        except ValueError as exc:
            sys.stderr.write(
                "error: %s is not readable JSON (%s): restore it from git before "
                "recording under this name.\n" % (recorded, exc)
            )
            return 2
        if other_hardware(known, info):
            sys.stderr.write(
                "error: %s holds results from %s cpus of %s (%s); this machine has %s cpus of %s (%s).\n"
                "Timings from different hardware must not share a series: choose another machine name "
                "(make ... MACHINE=<name>).\n%s"
                % (
                    recorded,
                    known.get("num_cpu"),
                    known.get("cpu"),
                    known.get("arch"),
                    info.get("num_cpu"),
                    info.get("cpu"),
                    info.get("arch"),
                    ""
                    if "(family" in str(known.get("cpu")) or "(family" not in info["cpu"]
                    else "Those results were recorded before dsib noted a CPU's family and model, and one model name "
                    "has covered CPUs of different speeds, so they cannot be told to be this one's.\n",
                )
            )
            return 2
    MachineCollection.save(args.name, info)
    print("asv machine %(machine)s: %(cpu)s, %(num_cpu)s cpus, %(ram)s kB RAM, %(os)s %(arch)s" % info)
    return 0


def _load_results(args):
    """(machine, asv Results, param names) for the commands that read results/; ``args.load``
    becomes that machine's load logs."""
    from .machine_load import Machine
    from .report import find_results, param_names

    machine, res = find_results(args.results_dir, args.machine, args.env, args.commit)
    args.load = Machine(args.results_dir, machine)
    return machine, res, param_names(args.results_dir)


# report --batches: the whole read beside three columns and batches of the same file.
BATCH_ROWS = (
    "read, page cache",
    "read, peak MiB",
    "read 3 columns",
    "read 3 columns, peak MiB",
    "in batches",
    "in batches + sum",
    "in batches + copy",
    "in batches, peak MiB",
)


def _grid_markdown(res, names, sources=None, variants=None, load=None, rows=None):
    from data_prep import VARIANTS
    from dsib.cases import GRID
    from dsib.formats import FORMATS

    from .report import grid_report

    formats = [f.name for f in FORMATS.values() if rows is None or f.columns or f.batches]
    return grid_report(res, names, sources or list(GRID), variants or list(VARIANTS), formats, load, rows)


def _grid_charts(res, names):
    from data_prep import VARIANTS
    from dsib.cases import GRID
    from dsib.formats import FORMATS

    from .report import grid_charts

    return grid_charts(res, names, list(GRID), list(VARIANTS), list(FORMATS))


def _batches_markdown(res, names, sources=None, load=None):
    from dsib.cases import SOURCES

    from .report import batches_report

    return batches_report(res, names, sources or list(SOURCES), load)


def _versions():
    import numpy
    import pandas
    import pyarrow

    return "pandas %s, pyarrow %s, numpy %s" % (pandas.__version__, pyarrow.__version__, numpy.__version__)


def _engines_markdown(res, names, sources=None, variants=None, load=None):
    from data_prep import VARIANTS
    from dsib.cases import ENGINE_SOURCES

    from .report import engines_report

    sources = [s for s in (sources or ENGINE_SOURCES) if s in ENGINE_SOURCES]
    return engines_report(res, names, sources, variants or list(VARIANTS), load) if sources else ""


def cmd_report(args):
    from .report import describe

    machine, res, names = args.results
    print(describe(machine, res, args.load))
    if args.dataset:
        from dsib import cases

        cases.bring(args.dataset)
    sources = [args.dataset] if args.dataset else args.source and [args.source]
    if not args.engines:
        print()
        grid_sources = sources
        if args.batches and not sources:  # the sources three columns and batches are measured on
            from dsib.cases import get_operation

            grid_sources = list(get_operation("iterate_batches").sources)
        print(
            _grid_markdown(
                res,
                names,
                grid_sources,
                args.variant and [args.variant],
                args.load,
                rows=BATCH_ROWS if args.batches else None,
            )
        )
        batches = _batches_markdown(res, names, sources, args.load)
        if batches:
            print()
            print(batches)
    if args.dataset or args.batches:  # the engines are not run on a brought table
        return 0
    engines = _engines_markdown(res, names, sources, args.variant and [args.variant], args.load)
    if engines:
        print()
        print(engines)
    return 0


def cmd_fidelity(args):
    from .fidelity_table import markdown
    from dsib.formats import FORMATS

    print("Round trips with %s:" % _versions())
    print()
    print(markdown(list(FORMATS.values())))
    return 0


def machine_page(machine, first):
    """The report page of ``machine`` under html/: the first machine's is dsib/index.html."""
    from .site import PAGE

    return PAGE if first else "dsib/machine-%s.html" % machine


def cmd_publish(args):
    from .publish import publish

    for machine, env_name, lacking in publish(args.config, html_dir=args.html_dir):
        print(
            "left out of asv's graphs: %s %s (no results for %d benchmarks, e.g. %s)"
            % (machine, env_name, len(lacking), lacking[0])
        )
    return 0


def cmd_site(args):
    """The report page of each ``--machine`` (the first's is the dsib page of asv's navigation bar,
    linked to the others'), and the release view of each, the first's the default."""
    from .report import NoResults
    from .site import write_page

    machines = args.machine or [None]
    pages = []
    for wanted in machines:
        args.machine = wanted
        try:
            args.results = _load_results(args)
        except NoResults as exc:
            if len(machines) == 1:
                print("error: %s" % exc, file=sys.stderr)
                return 1
            print("no page for machine %s: %s" % (wanted, exc))
            continue
        except ValueError as exc:  # an unreadable load log
            print("error: %s" % exc, file=sys.stderr)
            return 1
        pages.append((args.results, args.load))
    if not pages:
        print(
            "error: none of the machines %s has results in %s for these filters"
            % (", ".join(machines), args.results_dir),
            file=sys.stderr,
        )
        return 1
    names = [results[0] for results, _ in pages]
    for i, (results, load) in enumerate(pages):
        others = [(name, os.path.relpath(machine_page(name, j == 0), "dsib")) for j, name in enumerate(names) if j != i]
        print(
            "wrote %s"
            % write_page(
                args.html_dir,
                _report_sections(results, load),
                machine_page(names[i], i == 0),
                title="dsib report: machine %s" % names[i] if i else "dsib report",
                others=others,
                charts=_grid_charts(*results[1:]),
            )
        )
    from .release_view import write

    for path in write(args.html_dir, args.results_dir, *names):
        print("wrote %s" % path)
    return 0


def _report_sections(results, load):
    from data_prep import PROFILES
    from .fidelity_table import markdown, whole
    from dsib.formats import FORMATS
    from .report import describe, markdown_table

    machine, res, names = results
    profile = (getattr(res, "env_vars", {}) or {}).get("DSIB_PROFILE", "default")
    spec = PROFILES.get(profile)
    if spec is not None and spec.grid_left_out:
        grid_scale = "The %s profile leaves the grid out: %s." % (profile, spec.grid_left_out)
    else:
        grid = spec.grid_rows if spec is not None else {}
        grid_scale = "Rows per case: %s." % ", ".join("%s %s" % (k, "{:,}".format(v)) for k, v in sorted(grid.items()))
    return [
        (
            "The 2019 baseline",
            [
                describe(machine, res, load),
                "The post's own figures are for the real January 2016 file (10.9 M rows); compare the speedup columns.",
            ],
            [markdown_table(res, names, with_2019=True, load=load)],
        ),
        (
            "Every format",
            [
                "Rows are cases, columns are formats; times are asv medians; throughput is the "
                "in-memory frame over the time, where the read builds that frame; peak memory is the "
                "benchmark process's peak RSS (interpreter and libraries included). A skipped cell "
                "names its reason below its table. " + grid_scale
            ],
            _grid_markdown(res, names, load=load).split("\n\n"),
        ),
        (
            "Reads in batches",
            ["More data than a memory budget, a batch at a time."],
            [_batches_markdown(res, names, load=load) or "This run has no continuous read in batches."],
        ),
        (
            "Databases and engines",
            ['Each engine\'s ingest and query of the taxi frame and TSBS "cpu" (dsib/engines).'],
            _engines_markdown(res, names, load=load).split("\n\n"),
        ),
        (
            "Fidelity",
            [
                "What each pandas type becomes after a round trip, with %s. preserved: same dtype and "
                "values; ≈: a documented loss (same values); →: the dtype it came back as." % _versions()
            ],
            [markdown(list(FORMATS.values()), shorten=whole)],
        ),
    ]


def cmd_compare_versions(args):
    from .compare_versions import SelectionError, compare

    try:
        compare(args.results_root, args.a, args.b, args.machine, args.commit, args.factor, args.only_changed)
    except SelectionError as exc:
        print("error: %s" % exc, file=sys.stderr)
        return 1
    return 0


def cmd_speedups(args):
    from .compare_versions import SelectionError, default_machine, select
    from .release_view import release_label, text_change
    from .report import param_names, speedup_table

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


def cmd_matrix_table(args):
    from . import matrix

    with open(args.record) as f:
        print(matrix.check_markdown(json.load(f)))
    return 0


def cmd_readme(args):
    """Every generated block of README.md and docs/*.md (or of the --path files given)."""
    import glob

    paths = args.path or ["README.md"] + sorted(glob.glob(os.path.join("docs", "*.md")))
    return max(_readme_file(path, args.check) for path in paths)


def _readme_file(path, check):
    from .readme import ReadmeError, diff, regenerate, typed_tables

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


def _shard(text):
    from .matrix import parse_shard

    try:
        return parse_shard(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(exc.args[0])


def cmd_config(args):
    from .config import derive_config

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


def cmd_compare(args):
    from .compare import CompareError, run

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
            "dsib compare: %d cells compared at factor %.2f; %d slower, %d faster, %d newly failing, %d dropped"
            % (
                len(verdict["compared"]),
                args.factor,
                len(verdict["worse"]),
                len(verdict["better"]),
                len(verdict["failed"]),
                len(verdict["dropped"]),
            )
        )
    return status


def cmd_noise(args):
    from . import noise

    try:
        slowdown = noise.parse_slowdown(args.slowdown or [])
    except ValueError as exc:
        print("error: %s" % exc, file=sys.stderr)
        return 2
    record = noise.measure(
        os.getcwd(), args.machine, args.runs, args.factor, args.profile, data_dir=args.data_dir, slowdown=slowdown
    )
    noise.save(record, args.output)
    print(noise.markdown(record))
    print("wrote %s" % args.output)
    if slowdown:
        return 0  # a measurement of what is caught: misses are its result, not a failure
    return 0 if all(not (r["worse"] or r["better"] or r["failed"] or r["dropped"]) for r in record["runs"]) else 1


def cmd_noise_table(args):
    from . import noise

    print(noise.markdown(noise.load(args.record)))
    if args.published_results:
        print()
        print(noise.published_markdown(args.published_results, args.machine))
    return 0


def cmd_audit(args):
    from . import audit

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
    audit.save(record, args.output)
    print(audit.markdown(record))
    return 0


def cmd_audit_table(args):
    from . import audit

    print(audit.markdown(audit.load_record(args.record)))
    return 0


def engines_markdown():
    """The registered engines as the README lists them: what each times, needs and declares lost."""
    from dsib.engines import ENGINES

    lines = ["| engine | what is timed (ingest; query) | needs | declared losses |", "| --- | --- | --- | --- |"]
    for engine in ENGINES.values():
        needs = ", ".join(
            [n.package + (" >= " + n.minimum if n.minimum else "") for n in engine.needs]
            + (["a %s server, started by the suite" % engine.server.name] if engine.server else [])
        )
        losses = ", ".join(loss.name for loss in engine.declared_losses) or "none"
        lines.append("| `%s` (%s) | %s | %s | %s |" % (engine.name, engine.label, engine.description, needs, losses))
    return "\n".join(lines)


def durations_markdown(path, prefix=""):
    """Each benchmark's total duration in the asv results file ``path`` (those whose name starts
    with ``prefix``), longest first, and their sum."""
    with open(path) as f:
        data = json.load(f)
    column = data["result_columns"].index("duration")
    rows = sorted(
        (
            (name, values[column])
            for name, values in data["results"].items()
            if name.startswith(prefix) and len(values) > column and values[column]
        ),
        key=lambda row: -row[1],
    )

    def minutes(seconds):
        return "%.2f min" % (seconds / 60) if seconds >= 60 else "%.1f s" % seconds

    lines = ["| benchmark | asv's duration |", "|---|---:|"] + ["| `%s` | %s |" % (n, minutes(d)) for n, d in rows]
    return "\n".join(lines + ["| total | %s |" % minutes(sum(d for _, d in rows))])


def engine_durations_markdown(directory):
    """Per engine, asv's duration of each of its benchmarks, from ``directory``/<engine>.json: the
    results file after `make run ENGINE=<engine>` (asv keeps other benchmarks' durations from
    earlier runs in the same file, so only the engine's own four are read from it)."""
    from benchmarks.engines import IngestIntoEngine, QueryFromEngine
    from dsib.engines import ENGINES

    from .suite import name

    columns = [
        name(cls, method)
        for cls in (IngestIntoEngine, QueryFromEngine)
        for method in ("time_%s" % cls.operation, "peakmem_%s" % cls.operation)
    ]
    lines = [
        "| engine | %s | total |" % " | ".join("`%s`" % c.split(".", 1)[1] for c in columns),
        "|---|" + "---:|" * (len(columns) + 1),
    ]
    totals = []
    for engine in ENGINES.names():
        path = os.path.join(directory, engine + ".json")
        if not os.path.exists(path):
            continue
        with open(path) as f:
            data = json.load(f)
        column = data["result_columns"].index("duration")
        seconds = [data["results"][c][column] if c in data["results"] else None for c in columns]
        totals.append(sum(x for x in seconds if x))
        lines.append(
            "| `%s` | %s | %s |"
            % (engine, " | ".join(_minutes(x) if x else "-" for x in seconds), _minutes(totals[-1]))
        )
    return "\n".join(lines + ["| every engine |%s %s |" % (" |" * len(columns), _minutes(sum(totals)))])


def _minutes(seconds):
    return "%.2f min" % (seconds / 60) if seconds >= 60 else "%.1f s" % seconds


def cmd_engine_durations(args):
    print(engine_durations_markdown(args.directory))
    return 0


def cmd_durations(args):
    print(durations_markdown(args.record, args.prefix))
    return 0


def cmd_hold_servers(args):
    from .held_servers import hold

    command = args.argv[1:] if args.argv[:1] == ["--"] else args.argv
    if not command:
        print("error: give the command to run after --", file=sys.stderr)
        return 2
    return hold(command)


def cmd_servers(args):
    from .server_install import main as install

    return install()


def cmd_engines_table(args):
    print(engines_markdown())
    return 0


def cmd_workspace(args):
    from .workspace import seed

    copied = seed(args.committed, args.local)
    print(
        "%s: %d committed results files copied in (this run writes here, not to %s)"
        % (args.local, copied, args.committed)
    )
    return 0


def cmd_merge_results(args):
    from .merge import MergeError, merge

    try:
        pairs = merge(args.trees, args.into, args.machine)
    except MergeError as exc:
        print("error: %s" % exc, file=sys.stderr)
        return 1
    print(
        "%s: %d shards of machine %s merged, %d files copied" % (args.into, len(args.trees), args.machine, len(pairs))
    )
    return 0


def cmd_fetch_go(args):
    from .fetch_go import FetchError, fetch

    try:
        fetch(args.version, args.into)
    except (FetchError, OSError) as exc:
        print("error: %s" % exc, file=sys.stderr)
        return 1
    return 0


def cmd_record(args):
    from .workspace import record

    try:
        pairs = record(args.local, args.committed, args.machine, allow_load=args.allow_load)
    except (LookupError, ValueError) as exc:
        print("error: %s" % exc.args[0], file=sys.stderr)
        return 1
    for source, target in pairs:
        print("recorded %s" % target)
    if not pairs:
        print(
            "nothing to record: %s holds every result of machine %s in %s" % (args.committed, args.machine, args.local)
        )
    return 0


ALL_ENGINES = "all"


def select_regex(fmt=None, source=None, engine=None):
    """asv's ``-b`` for the cells of one format (or engine, or every engine: ``all``) and/or one
    source (a regex on "name(params)")."""
    import re

    from dsib import cases
    from dsib.engines import ENGINES
    from dsib.formats import FORMATS

    if fmt and engine:
        raise KeyError("a cell has a format or an engine, not both: choose one")
    if fmt:
        FORMATS[fmt]  # an unknown name is an error that lists the known ones
    if engine and engine != ALL_ENGINES:
        ENGINES[engine]
    if source and source not in cases.SOURCES:
        raise KeyError("unknown source %r; sources are: %s" % (source, ", ".join(cases.SOURCES)))
    f, s = ("'%s'" % re.escape(x) if x else None for x in (fmt, source))
    if engine:
        names = ENGINES.names() if engine == ALL_ENGINES else [engine]
        regex = r"\(%s, '(%s)'[,)]" % (s or "'[^']*'", "|".join(re.escape(n) for n in names))
        if any(ENGINES[n].family == "questdb" for n in names):  # and QuestDB's serialisation alone
            regex = r"(?:%s|SerializeForQuestDB\.\w+\(%s[,)])" % (regex, s or "'[^']*'")
        return regex
    if f and s:
        return r"\(%s, %s[,)]" % (s, f)
    if s:
        return r"\(%s[,)]" % s
    return r"\((?:'[^']*', )?%s[,)]" % f


def cmd_select(args):
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
        from .matrix import release_regex

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


def cmd_matrix_check(args):
    from . import matrix
    from .compare import CompareError, resolve

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


def cmd_gate_cells(args):
    from .compare import GATE_FILE, gate_cells, gate_file_text

    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), GATE_FILE)
    text = gate_file_text(gate_cells())
    committed = ""
    if os.path.exists(path):
        with open(path) as f:
            committed = f.read()
    if args.check:
        if committed != text:
            print("%s is not the cells the gate's patterns pick: run python -m dsib_tools gate-cells" % GATE_FILE)
            return 1
        print("%s: %d cells" % (GATE_FILE, text.count("\n") - 1))
        return 0
    with open(path, "w") as f:
        f.write(text)
    print("wrote %s: %d cells" % (GATE_FILE, text.count("\n") - 1))
    return 0


def cmd_lock(args):
    from . import lock

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


def cmd_watch_load(args):
    from .machine_load import main as watch

    command = args.argv[1:] if args.argv[:1] == ["--"] else args.argv
    if not command:
        print("error: give the command to run after --", file=sys.stderr)
        return 2
    return watch(args.results_dir, args.machine, command)


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m dsib_tools", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command")
    p = sub.add_parser("table", help="the post's Parquet vs CSV table from asv results")
    p.add_argument("--results-dir", default="results")
    p.add_argument("--machine", default=None, help="default: the machine with the newest result")
    p.add_argument("--env", default=None, help="substring of the asv environment name")
    p.add_argument("--commit", default=None, help="commit hash prefix")
    p.add_argument("--with-2019", action="store_true", help="add the post's 2019 numbers")
    p.set_defaults(func=cmd_table)
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
    for name, func, text in (
        ("report", cmd_report, "every format: rows are cases, columns are formats"),
        ("site", cmd_site, "write html/dsib/ (report, releases) and link it from asv's site"),
    ):
        p = sub.add_parser(name, help=text)
        p.add_argument("--results-dir", default="results")
        if name == "site":
            p.add_argument(
                "--machine",
                action="append",
                default=None,
                help="a machine whose report page to write (again for each other; default: the newest "
                "results' machine); the first's is the dsib page and has the release view",
            )
        else:
            p.add_argument("--machine", default=None)
        p.add_argument("--env", default=None)
        p.add_argument("--commit", default=None)
        if name == "report":
            p.add_argument("--source", default=None, help="nyc_taxi, tsbs_cpu or rocklin (default: all)")
            p.add_argument("--variant", default=None)
            p.add_argument("--engines", action="store_true", help="the engines' blocks alone")
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
                help="the block of a table you brought (make bench DATASET=NAME; --env DSIB_PROFILEown)",
            )
        else:
            p.add_argument("--html-dir", default="html")
        p.set_defaults(func=func)
    p = sub.add_parser(
        "compare-versions",
        help="asv compare between two environments at one commit",
        description="A and B are key=value[,key=value] filters on the result files' params "
        "and environment variables, e.g. pyarrow=25.0.1 pyarrow=26.0.1 (DSIB_PROFILE=default "
        "unless given). Both at the newest commit that has both, unless --commit.",
    )
    p.add_argument("a", metavar="A")
    p.add_argument("b", metavar="B")
    # dest differs from --results-dir's: main() loads one Results for every command that has results_dir.
    p.add_argument("--results-dir", dest="results_root", metavar="RESULTS_DIR", default="results")
    p.add_argument("--machine", default=None, help="default: the only machine in the results")
    p.add_argument("--commit", default=None, help="commit hash prefix; default: the newest with both")
    p.add_argument("--factor", type=float, default=1.1, help="ratio that counts as a change (asv's default)")
    p.add_argument("--only-changed", action="store_true")
    p.set_defaults(func=cmd_compare_versions)
    from .compare import FACTOR, PROFILE

    p = sub.add_parser(
        "compare",
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
    p = sub.add_parser("noise", help="A/A (or injected slowdown) comparisons of make compare, to a JSON record")
    p.add_argument("--machine", required=True)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--factor", type=float, default=FACTOR)
    p.add_argument("--data-dir", help="where the profile's data is (default: data/)")
    p.add_argument("--profile", default=PROFILE, help="data scale (default: %(default)s)")
    p.add_argument(
        "--slowdown",
        nargs="+",
        metavar="FORMAT.SIDE=FACTOR",
        help="instead of A/A, make these adapters slower, e.g. csv.write=1.25 parquet.read=1.3",
    )
    p.add_argument("-o", "--output", required=True)
    p.set_defaults(func=cmd_noise)
    p = sub.add_parser(
        "noise-table",
        help="the README's noise tables: a make noise record, and with "
        "--results-dir the spread of the published default run",
    )
    p.add_argument("record")
    # dest differs from --results-dir's: main() loads one Results for every command that has results_dir.
    p.add_argument("--results-dir", dest="published_results", metavar="RESULTS_DIR")
    p.add_argument("--machine")
    p.set_defaults(func=cmd_noise_table)
    p = sub.add_parser(
        "audit",
        help="the 2019 post's cases timed outside asv, interleaved with asv (make audit)",
        description="Times each of the post's seven cases in turn with `asv run` and in fresh processes "
        "of asv's environment (the collector on, then off), and records every sample.",
    )
    p.add_argument("--config", required=True, help="the asv config of the profile (make writes .asv-default.conf.json)")
    # dest differs from --results-dir's, which would make main() load results first.
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
    p.add_argument("-o", "--output", required=True)
    p.set_defaults(func=cmd_audit)
    p = sub.add_parser("durations", help="each benchmark's total duration in an asv results file, and their sum")
    p.add_argument("record")
    p.add_argument("--prefix", default="", help="only the benchmarks whose name starts so, e.g. engines.")
    p.set_defaults(func=cmd_durations)
    p = sub.add_parser(
        "engine-durations",
        help="per engine, asv's duration of each of its benchmarks",
        description="DIRECTORY holds <engine>.json: asv's results file after make run ENGINE=<engine>.",
    )
    p.add_argument("directory")
    p.set_defaults(func=cmd_engine_durations)
    p = sub.add_parser("servers", help="install what the engines' servers need, where missing")
    p.set_defaults(func=cmd_servers)
    p = sub.add_parser(
        "hold-servers",
        help="run a command (asv run) with one PostgreSQL and one QuestDB held for all of it",
        description="Starts the servers on free ports of 127.0.0.1, tells the command "
        "where they listen ($DSIB_SERVERS), and stops them by their PID when it ends, however it "
        "ends. Exits with the command's status.",
    )
    p.add_argument("argv", nargs=argparse.REMAINDER, help="-- the command")
    p.set_defaults(func=cmd_hold_servers)
    p = sub.add_parser("engines-table", help="the README's list of the registered engines")
    p.set_defaults(func=cmd_engines_table)
    p = sub.add_parser("audit-table", help="the README's audit table, from an audit record")
    p.add_argument("record")
    p.set_defaults(func=cmd_audit_table)
    p = sub.add_parser("fidelity", help="which pandas types survive which format, from real round trips")
    p.set_defaults(func=cmd_fidelity)
    p = sub.add_parser("machine", help="record this machine's hardware for asv under NAME")
    p.add_argument("name")
    # dest differs from --results-dir's, which would make main() load results first.
    p.add_argument(
        "--results-dir",
        dest="known_results",
        default="results",
        metavar="RESULTS_DIR",
        help="refuse NAME if RESULTS_DIR/NAME/machine.json records other hardware",
    )
    p.set_defaults(func=cmd_machine)
    p = sub.add_parser("workspace", help="copy the committed results into this clone's own results directory")
    p.add_argument("--committed", default="results")
    p.add_argument("--local", default=os.path.join("build", "results"))
    p.set_defaults(func=cmd_workspace)
    p = sub.add_parser("merge-results", help="join the results trees of a sweep's shards (one machine) into one")
    p.add_argument("--machine", required=True)
    p.add_argument("--into", required=True, help="the merged tree (e.g. build/results, seeded by make workspace)")
    p.add_argument("trees", nargs="+", metavar="SHARD_TREE", help="a shard's results tree (its build/results)")
    p.set_defaults(func=cmd_merge_results)
    p = sub.add_parser("record", help="copy MACHINE's new or changed results into the committed history")
    p.add_argument("--machine", required=True)
    p.add_argument("--local", default=os.path.join("build", "results"))
    p.add_argument("--committed", default="results")
    p.add_argument(
        "--allow-load", action="store_true", help="record results taken under load, or without a load log, all the same"
    )
    p.set_defaults(func=cmd_record)
    p = sub.add_parser("matrix-check", help="did every curated environment run the suite, and which cells failed")
    # dest differs from --results-dir's, which would make main() load results first.
    p.add_argument("--results-dir", dest="results_dir_", default=os.path.join("build", "results"))
    p.add_argument("--machine", required=True)
    p.add_argument("--profile", default="tiny")
    p.add_argument("--commit", default="HEAD")
    p.add_argument("-o", "--output", required=True)
    p.set_defaults(func=cmd_matrix_check)
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
    p = sub.add_parser(
        "lock",
        help="record each benchmark's series and measured code in benchmarks/series.lock",
        description="A change to the code a benchmark measures forces a decision: bump its "
        "series (version = series(N + 1)) or record that the series continues. Run this to "
        "record; --check says what is not recorded yet.",
    )
    p.add_argument("--check", action="store_true", help="exit 1 and say what the lock does not record")
    p.set_defaults(func=cmd_lock)
    p = sub.add_parser(
        "gate-cells", help="write the list of cells make compare compares (%s)" % "benchmarks/gate-cells.txt"
    )
    p.add_argument("--check", action="store_true", help="exit 1 if the committed list is not the patterns' cells")
    p.set_defaults(func=cmd_gate_cells)
    p = sub.add_parser(
        "watch-load",
        help="run a command (asv run) and log the machine's load beside its results",
        description="Every second, the machine's CPU counters and the command's own process "
        "tree's CPU time, into RESULTS_DIR/MACHINE/load/*.jsonl: other processes' CPU and steal "
        "while each benchmark ran. Exits with the command's status.",
    )
    p.add_argument("--results-dir", required=True)
    p.add_argument("--machine", required=True)
    p.add_argument("argv", nargs=argparse.REMAINDER, help="-- the command")
    p.set_defaults(func=cmd_watch_load)
    p = sub.add_parser(
        "speedups",
        help="the post's cases in two environments, with spread, and the speedup",
        description="A and B select environments as compare-versions does (key=value filters).",
    )
    p.add_argument("a", metavar="A")
    p.add_argument("b", metavar="B")
    p.add_argument("--results-dir", dest="results_root", metavar="RESULTS_DIR", default="results")
    p.add_argument("--machine", default=None, help="default: the only machine in the results")
    p.add_argument("--commit", default=None, help="commit hash prefix; default: the newest with both")
    p.set_defaults(func=cmd_speedups)
    p = sub.add_parser("matrix-table", help="the README's table of a matrix-check record")
    p.add_argument("record")
    p.set_defaults(func=cmd_matrix_table)
    p = sub.add_parser(
        "readme",
        help="rewrite the generated tables of the README and docs/ from the files they cite",
        description="Every <!-- generated: COMMAND --> block of README.md and docs/*.md gets COMMAND's "
        "output (python -m dsib_tools COMMAND); --check says which differ instead.",
    )
    p.add_argument("--check", action="store_true", help="exit 1, with a diff, where a block is not its output")
    p.add_argument("--path", action="append", help="a Markdown file (repeatable; default: README.md and docs/*.md)")
    p.set_defaults(func=cmd_readme)
    p = sub.add_parser(
        "publish",
        help="asv publish from a copy of the results without stale results or "
        "environments lacking a benchmark (whose graph pages would 404), then asv's pages fixed",
    )
    p.add_argument("--config", required=True, help="the asv config whose results_dir and html_dir to use")
    p.add_argument("--html-dir", default=None, help="default: the config's html_dir")
    p.set_defaults(func=cmd_publish)
    p = sub.add_parser("fetch-go", help="fetch a pinned Go toolchain from the Go module proxy")
    p.add_argument("--version", required=True)
    p.add_argument("--into", required=True)
    p.set_defaults(func=cmd_fetch_go)
    p = sub.add_parser("vendor-js", help="fetch the pinned chart library from the npm registry (checked sha256)")
    p.set_defaults(func=lambda args: __import__("dsib_tools.vendor_js").vendor_js.main(args))
    p = sub.add_parser("advise", help="quick measures of every format on a CSV, Parquet, Feather or JSON Lines file")
    from .advise import add_arguments

    add_arguments(p)
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    if hasattr(args, "results_dir") and args.func not in (cmd_config, cmd_watch_load, cmd_site):
        from .report import NoResults

        try:
            args.results = _load_results(args)
        except (NoResults, ValueError) as exc:  # no results, or an unreadable load log
            print("error: %s" % exc, file=sys.stderr)
            return 1
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
