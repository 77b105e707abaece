"""The release view's data: every published case's medians and spreads across library releases (one
environment a release), the headline figures, the cells outside the release matrix, and the steps
that the step caller calls along the curated matrix's chains (``dsib_tools.steps``). release_view
writes the pages of it."""

import itertools
import math

from packaging.version import InvalidVersion, Version

from dsib.layout import CODECS

from . import asv_results, chains, suite
from .chains import TEXT_VARIANTS, text_change, text_kind
from .compare import INSTRUCTIONS_FACTOR
from .matrix import CURATED_CONFIG, NEWEST_ONLY_NOTE, in_release
from .matrix import entries as config_entries
from .report import markdown_table

PUBLISHED_PROFILE = "default"
# Each view orders the environments by these result params, most significant first.
VIEWS = {"pyarrow": ("pyarrow", "pandas", "python"), "pandas": ("pandas", "pyarrow", "python")}
# Libraries a chain changes at the same pyarrow, pandas and Python (numpy on a link, msgpack on a
# step): after the view's own order, they order and name its environments.
BESIDE = ("numpy", "msgpack")
FORMAT_LABELS = {"parquet": "Parquet", "csv": "CSV", "feather": "Feather"}


# (label, [case ids, the first one present wins]): the figures the page opens with. The post's
# cases are also found under their earlier series' names (file_formats.*, grid.*).
def _post_headline(case, fmt):
    """A post case's headline label: "Parquet read, plain"; the continuous read has no variant."""
    if "variant" not in case.given:
        return "%s continuous read (six months)" % FORMAT_LABELS[fmt]
    return "%s %s, %s" % (FORMAT_LABELS[fmt], case.label.split()[1].lower(), case.given["variant"])


HEADLINES = [
    (_post_headline(case, f), suite.post_case_ids(case, f)) for case in suite.POST_2019 for f in ("parquet", "csv")
] + [
    (
        "%s %s, nyc_taxi plain (every format)" % (FORMAT_LABELS[f], op),
        [suite.case_id(suite.name(cls, method), ["nyc_taxi", f, "plain"])],
    )
    for op, cls, method in (
        ("read", suite.reads.ReadFromPageCache, "time_read"),
        ("write", suite.writes.WriteToBytes, "time_write"),
    )
    for f in ("parquet", "feather", "csv")
]


def _version(text):
    try:
        return Version(text)
    except (InvalidVersion, TypeError):
        return Version("0")  # the library is absent from that environment: first in its order


def release_label(params, beside=()):
    """The label "pyarrow 14.0.2 / pandas 2.2.3 / py3.11", then the release of each of ``beside``."""
    label = "pyarrow %s / pandas %s / py%s" % tuple(params.get(k) or "-" for k in ("pyarrow", "pandas", "python"))
    return " / ".join([label] + ["%s %s" % (k, params.get(k) or "-") for k in beside])


def release_labels(results):
    """Each result's ``release_label``, with the libraries of ``BESIDE`` whose releases tell it
    from another result of the same pyarrow, pandas and Python (a chain's link to numpy 2, its
    step of msgpack)."""
    labels = [release_label(res.params) for res in results]
    groups = {}
    for label, res in zip(labels, results):
        groups.setdefault(label, []).append(res.params)
    return [
        release_label(res.params, [k for k in BESIDE if len(set(p.get(k) for p in groups[label])) > 1])
        for label, res in zip(labels, results)
    ]


def _release_order(keys):
    """A sort key of asv params: the releases of ``keys``, then of ``BESIDE``."""
    return lambda params: [_version(params.get(k)) for k in tuple(keys) + BESIDE]


# What the post's files are in each environment, from the file itself (benchmarks.sizes.FileLayout),
# and where its reads run (benchmarks.sizes.ReaderThreads): (the track's benchmark, the field's
# name, how a recorded number reads, whether only a read's steps are marked by it).
LAYOUT_FIELDS = (
    (
        "sizes.FileLayout.track_timestamp_digits",
        "timestamp unit",
        lambda v: {0: "s", 3: "ms", 6: "µs", 9: "ns"}.get(int(v), "%g" % v),
        False,
    ),
    ("sizes.FileLayout.track_index_columns", "index columns stored", lambda v: "%d" % v, False),
    ("sizes.FileLayout.track_format_version", "format version", lambda v: "%.1f" % v, False),
    (
        "sizes.FileLayout.track_codec",
        "codec",
        lambda v: CODECS[int(v)] if 0 <= v < len(CODECS) else "%g" % v,
        False,
    ),
    (
        "sizes.FileLayout.track_read_by_system_calls",
        "reader",
        lambda v: "maps the file" if v < 0.5 else "reads the file",
        True,
    ),
    # a parse on the calling thread spends a few per cent elsewhere at most (the allocator, the GC)
    (
        "sizes.ReaderThreads.track_off_thread",
        "reader threads",
        lambda v: "the calling thread" if v < 0.2 else "a thread pool",
        True,
    ),
)


# A step of instructions smaller than this is no step: the gate's threshold for a count.
INSTRUCTIONS_STEP = INSTRUCTIONS_FACTOR - 1


def file_layouts(res):
    """{"FORMAT/VARIANT": {field: text}} of the post's files in one environment's results."""
    found = {}
    for benchmark, field, reads, _ in LAYOUT_FIELDS:
        for combo, value in _stored(res, benchmark).items():
            if is_number(value):
                key = "/".join(p.strip("'\"") for p in combo[1:])
                found.setdefault(key, {})[field] = reads(value)
    return found


def _is_read(benchmark):
    return not benchmark.startswith("writes.")


def defaults_change(case, before, after):
    """What a library's default changed in the post's file, or in how it is read, between two
    environments (``layout`` of their ``envs`` entries), for a case of the post's month:
    "defaults: timestamp unit ms → ns, ..."; None where nothing did, or nothing was recorded. A
    reader's fields mark only the steps of reads."""
    params = case["params"]
    if params.get("source") != "nyc_taxi_month":
        return None
    key = "%s/%s" % (params.get("format"), params.get("variant", "plain"))
    old, new = (env.get("layout", {}).get(key) for env in (before, after))
    if not (old and new):
        return None
    fields = [
        f
        for _, f, _, reader in LAYOUT_FIELDS
        if f in old and f in new and old[f] != new[f] and (_is_read(case["benchmark"]) or not reader)
    ]
    changed = ["%s %s → %s" % (f, old[f], new[f]) for f in fields]
    return "defaults: " + ", ".join(changed) if changed else None


def with_counts(cases):
    """Each timed case gets ``instructions``: its counting twin's values (``benchmarks.instructions``),
    an environment each, where any environment counted them."""
    by_id = dict((c["id"], c) for c in cases)
    for case in cases:
        cls_name, method = case["benchmark"].split(".")[-2:]
        twin = suite.counted_method(method)
        if twin:
            name = ".".join([suite.COUNTS_MODULE, cls_name, twin])
            counted = by_id.get("/".join([name] + case["id"].split("/")[1:]))
            if counted is not None:
                case["instructions"] = counted["values"]
    return cases


def work_change(case, before, after):
    """A step's change of instructions, for a timed case counted in both environments (indices):
    "instructions unchanged (x1.004)" where they moved less than ``INSTRUCTIONS_STEP``, so that a
    step in time alone shows as such; None where either was not counted."""
    counts = case.get("instructions") or ()
    if not all(i < len(counts) and is_number(counts[i]) and counts[i] > 0 for i in (before, after)):
        return None
    ratio = counts[after] / counts[before]
    if abs(ratio - 1) < INSTRUCTIONS_STEP:
        return "instructions unchanged (x%.3f)" % ratio
    return "instructions x%.2f" % ratio


def kind_change(case, before, after):
    """What differs between two environments besides the libraries' speed, for a case: the text
    variants' kind of frame (``text_change``), the post's file or reader where a default changed
    it (``defaults_change``); and whether the work changed (``work_change``, where both
    environments counted its instructions); None where none of these is known."""
    found = [
        text_change(before, after) if case["params"].get("variant") in TEXT_VARIANTS else None,
        defaults_change(case, before, after),
        work_change(case, before["index"], after["index"]) if "index" in before and "index" in after else None,
    ]
    return "; ".join(f for f in found if f) or None


def published_results(results_dir, machine, benchmarks, config_path=CURATED_CONFIG):
    """One asv Results per release (python, pyarrow, pandas) and entry of ``config_path``'s chains
    at the published scale: the newest commit's, of the machine's one allocator setting
    (``chains.of_release_setting``). Two entries of the same releases (a link to numpy 2, a step
    of msgpack) are two points; an environment rebuilt with other optional libraries but the same
    releases and entry is the same point on the x-axis, so the newer of the two stands for it."""
    runs = [
        r for r in asv_results.runs(results_dir, machine) if (r.env_vars or {}).get("DSIB_PROFILE") == PUBLISHED_PROFILE
    ]
    entries = config_entries(config_path)
    newest = {}
    for res, ours in zip(runs, chains.of_release_setting(r.env_vars for r in runs)):
        if not ours:
            continue
        entry = next((i for i, e in enumerate(entries) if chains.ran_in(e, res.params)), None)
        key = (release_label(res.params), entry)
        age = (res.date or 0, max(res.started_at.values() or [0]))
        if key not in newest or age > newest[key][0]:
            newest[key] = (age, res)
    results = [asv_results.drop_stale(res, benchmarks) for _, res in newest.values()]
    order = _release_order(VIEWS["pyarrow"])
    return sorted(results, key=lambda r: order(r.params))


def _cell(value):
    """JSON for one value: a number, "skipped" (asv's NaN) or "failed" (asv's None)."""
    if value is None:
        return "failed"
    return "skipped" if math.isnan(value) else value


def is_number(cell):
    return isinstance(cell, (int, float)) and not isinstance(cell, bool)


def _stored(res, name):
    """{parameter combination: cell} of one benchmark in one Results; empty where it did not run."""
    return dict((c["params"], _cell(c["value"])) for c in asv_results.cells(res, only=name))


def _spread(stats):
    """[q_25, q_75, samples] of one cell's asv statistics; None where the run kept none."""
    if not stats or stats.get("repeat") is None:
        return None
    return [stats.get("q_25"), stats.get("q_75"), stats["repeat"]]


def _stored_spread(res, name):
    """{parameter combination: spread} of one benchmark in one Results."""
    return dict((c["params"], _spread(c["stats"])) for c in asv_results.cells(res, only=name))


def case_rows(benchmarks, results):
    """(id, benchmark, {param: value}, unit, [cell per environment], [spread per environment]) for
    every case with a number; a cell is None where the environment has no result for the case, a
    spread [q_25, q_75, samples] or None."""
    for name in sorted(benchmarks):
        bench = benchmarks[name]
        stored = [_stored(res, name) for res in results]
        spreads = [_stored_spread(res, name) for res in results]
        for combo in itertools.product(*bench["params"]):
            cells = [s.get(combo) for s in stored]
            if any(map(is_number, cells)):
                given = [p.strip("'\"") for p in combo]
                yield (
                    "/".join([name] + given),
                    name,
                    dict(zip(bench["param_names"], given)),
                    bench["unit"],
                    cells,
                    [s.get(combo) if is_number(c) else None for s, c in zip(spreads, cells)],
                )


def summary(cells, order):
    """Per case in one order of releases: the best release (lowest median: every unit here is
    seconds or bytes), the previous and the newest that have a number, and best / newest and
    previous / newest (> 1: the newest is faster or smaller); None where fewer than two have one."""
    have = [i for i in order if is_number(cells[i])]
    if len(have) < 2:
        return None
    newest, previous = have[-1], have[-2]
    best = min(have, key=lambda i: cells[i])

    def ratio(i):
        return cells[i] / cells[newest] if cells[newest] else None

    return {
        "best": best,
        "previous": previous,
        "newest": newest,
        "best_ratio": ratio(best),
        "previous_ratio": ratio(previous),
    }


def chain_steps(results_dir, machine, results, config_path=CURATED_CONFIG):
    """{case id: [step, ...]}: every step the step caller calls along ``config_path``'s chains
    between two of ``results`` (the environments' runs, in the view's order), a dict each: the
    indices ``before`` and ``after`` into ``results``, the step's ``label`` (its library named, or
    its link), ``library`` or ``link``, the ``ratio`` after / before with its ``low`` and ``high``
    bounds, ``way`` (faster or slower) and the noise ``band`` it beat."""
    from . import steps

    entries = config_entries(config_path)
    judged, _, params = steps.judge_results(results_dir, machine, config_path, PUBLISHED_PROFILE)
    where = dict(
        (i, k) for i, entry in enumerate(entries) for k, res in enumerate(results) if chains.ran_in(entry, res.params)
    )
    found = {}
    for j, call in steps.called(judged):
        if j.step.before not in where or j.step.after not in where:
            continue
        ident = "/".join([call.cell.split("(")[0]] + list(params[call.cell].values()))
        found.setdefault(ident, []).append(
            {
                "before": where[j.step.before],
                "after": where[j.step.after],
                "label": j.label,
                "library": j.step.library,
                "link": j.step.link,
                "ratio": call.ratio,
                "low": call.low,
                "high": call.high,
                "way": call.way,
                "band": [call.band.low, call.band.high, call.band.controls, call.band.source],
            }
        )
    return found


# A cell of a case outside the release-tracking selection, in an environment other than the newest:
# not a gap (skipped, failed, missing), a case the release matrix does not run.
NOT_IN_MATRIX = "newest only"


def _current_names():
    return set(suite.name(cls, m) for cls in suite.classes() for m in suite.methods(cls))


def mark_newest_only(case, newest, current=None):
    """A case of the suite outside the release matrix's selection (``matrix.RELEASE``) is measured
    on the newest environment only (``newest``: its index): where no other environment has a
    number for it, it says so, and those environments' cells that hold nothing say why instead of
    being gaps (asv's skipped, which is what a run's -b writes for a cell it leaves out, or
    nothing). The earlier series' names (file_formats.*, grid.*) are left as they are."""
    current = _current_names() if current is None else current
    elsewhere = any(is_number(v) for i, v in enumerate(case["values"]) if i != newest)
    # A name the suite has since retired counts too: its newest-only history keeps its marks.
    if elsewhere or (case["benchmark"] in current and in_release(case["benchmark"], list(case["params"].values()))):
        case["newest_only"] = None
        return case
    case["newest_only"] = NEWEST_ONLY_NOTE
    # asv writes a cell that a run's -b leaves out as skipped (NaN): here, the selection left it out.
    case["values"] = [
        NOT_IN_MATRIX if v in (None, "skipped") and i != newest else v for i, v in enumerate(case["values"])
    ]
    return case


def _environment(index, res, label, loads):
    """One environment of the view: its releases and label, commit, load and file layouts."""
    from .machine_load import describe_load

    return dict(
        [(k, res.params.get(k)) for k in ("python", "pyarrow", "pandas") + BESIDE],
        label=label,
        env_name=res.env_name,
        commit=res.commit_hash[:8],
        load=describe_load(loads.run(res)),
        under_load=len(loads.busy_keys(res)),
        text=text_kind(res.params),
        layout=file_layouts(res),
        index=index,
    )


def _cases(benchmarks, results, envs, orders, called):
    """Every case of the view: its values and spread in each environment, per ordering its
    headline, and its steps called along the chains (``called``: ``chain_steps``), with
    instruction counts beside and the defaults that changed at a step."""
    cases = [
        {
            "id": ident,
            "benchmark": name,
            "params": params,
            "unit": unit,
            "values": cells,
            "spread": spread,
            "headline": dict((view, summary(cells, order)) for view, order in orders.items()),
            "steps": called.get(ident, []),
        }
        for ident, name, params, unit, cells, spread in case_rows(benchmarks, results)
    ]
    with_counts(cases)
    current = _current_names()
    for case in cases:
        mark_newest_only(case, orders["pyarrow"][-1] if results else None, current)
        for h in case["headline"].values():
            if h is not None:
                for which in ("best", "previous"):
                    h[which + "_kinds"] = kind_change(case, envs[h[which]], envs[h["newest"]])
    return cases


def build(results_dir, machine):
    """The page's data, as plain JSON-able structures."""
    from .machine_load import Machine

    benchmarks = asv_results.benchmarks(results_dir)
    results = published_results(results_dir, machine, benchmarks)
    loads = Machine(results_dir, machine)
    envs = [
        _environment(index, res, label, loads)
        for index, (res, label) in enumerate(zip(results, release_labels(results)))
    ]
    orders = dict(
        (view, sorted(range(len(results)), key=lambda i, order=_release_order(keys): order(envs[i])))
        for view, keys in VIEWS.items()
    )
    cases = _cases(benchmarks, results, envs, orders, chain_steps(results_dir, machine, results))
    known = set(c["id"] for c in cases)
    names = asv_results.param_names(results_dir)
    return {
        "machine": machine,
        "profile": PUBLISHED_PROFILE,
        "envs": envs,
        "views": VIEWS,
        "orders": orders,
        "cases": cases,
        "headlines": [
            (label, [i for i in idents if i in known][0])
            for label, idents in HEADLINES
            if any(i in known for i in idents)
        ],
        "tables_2019": [markdown_table(res, names, with_2019=True, load=loads) for res in results],
    }
