"""The release matrix: asv's ``include`` entries, one known-good environment each.

``asv.conf.json`` holds the curated set that ``make bench-matrix`` runs (every era from the
2019 post's pyarrow 0.11.1 / pandas 0.23.4 on Python 3.7 to today), ``asv.sweeps.conf.json``
every release of the sweeps. An entry pins its whole environment, and asv's plugin
(``dsib.asv_plugin``) installs those pins in one pip call and checks what got installed;
``resolve`` asks pip the same question without installing, for the tests.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import namedtuple

from dsib.compat import version_tuple
from dsib.formats import POST_2019_FORMATS

from . import chains, suite
from .markdown import table

CURATED_CONFIG = "asv.conf.json"
SWEEPS_CONFIG = "asv.sweeps.conf.json"

# --- The release-tracking selection -------------------------------------------------
# `make bench` runs every case, on the newest environment. The release matrix (`make bench-matrix`,
# curated or sweeps, sharded or not) runs this selection in every environment: what is worth a line
# across releases, within the matrix's budget. Everything else of the suite (engines, cold reads,
# durable writes, batches and projections, QuestDB's serialisation, data_prep's generator) is
# measured on the newest environment only, and the release view says so for it. This declaration
# is the one place: `python -m dsib_tools setup select --release` turns it into asv's -b (and the suite's
# DSIB_SELECT) for run-matrix, and the release view asks `in_release` of each case.
#
# Pick: the cells of ``cls``'s ``methods`` (None: every one) whose parameters are among
# ``given`` ({parameter name: allowed values}; a parameter not named: any value).
Pick = namedtuple("Pick", ["cls", "methods", "given", "why"])
_MONTH = ["nyc_taxi_month"]
_POST = list(POST_2019_FORMATS)
# The contenders of Rocklin's study (shared/seeds/003): pickle (its highest protocol, and protocol
# 2), JSON with and without the index, msgpack (of the columns, and pandas' own), CSV, HDFStore
# (pandas' default layout, fixed).
ROCKLIN_FORMATS = [
    "pickle-highest",
    "pickle-2",
    "json-split",
    "json-split-noindex",
    "msgpack",
    "pandas-msgpack",
    "csv",
    "hdf-fixed",
]
_ROCKLIN = {"source": ["rocklin"], "format": ROCKLIN_FORMATS}
RELEASE = (
    Pick(
        suite.reads.ReadFromBytes,
        ["time_read"],
        {"source": _MONTH, "format": _POST},
        "the 2019 post's reads 1a-1c, at the profile's month",
    ),
    Pick(
        suite.reads.ContinuousReadMonths,
        None,
        {"source": _MONTH, "format": _POST},
        "the post's continuous read (case 2), and its peak memory",
    ),
    Pick(
        suite.writes.WriteMonthToBytes, ["time_write"], {"source": _MONTH, "format": _POST}, "the post's writes 3a-3c"
    ),
    Pick(
        suite.reads.ReadFromPageCache,
        ["time_read", "peakmem_read"],
        {"source": ["nyc_taxi"]},
        "every format and variant of the taxi frame: the read from the page cache, its peak memory",
    ),
    Pick(
        suite.writes.WriteToBytes,
        ["time_write", "peakmem_write"],
        {"source": ["nyc_taxi"]},
        "every format and variant of the taxi frame: the write to bytes, its peak memory",
    ),
    # The month's file sizes in the post's two formats only (the matrix's budget: every format's month
    # file was built for its size alone, in Sizes' own processes, 74 s of an environment's 9 minutes
    # in records/matrix-runs/epyc-2c-24g-dd23f6b; the other formats' month sizes are make bench's).
    Pick(
        suite.sizes.Sizes,
        None,
        {"source": _MONTH, "format": _POST},
        "the post's file sizes at the month (and the frame's, which its throughputs divide)",
    ),
    Pick(
        suite.sizes.FileLayout,
        None,
        {},
        "what the post's Parquet files are besides their data (timestamp unit, index, format version, codec, a "
        "mapped read): where a library's default changed them",
    ),
    Pick(
        suite.sizes.ReaderThreads,
        None,
        {},
        "where the post's reads run (the calling thread or a pool): where a reader's default moved them",
    ),
    Pick(
        suite.sizes.Sizes,
        None,
        {"source": ["nyc_taxi"]},
        "every format's file size of the taxi frame (and the frame's, which the throughputs divide)",
    ),
    # The continuous read in the post's two formats only (the matrix's budget: every format's took
    # 1.2 minutes an environment, and as long again to build its six files each; the other formats
    # are make bench's).
    Pick(
        suite.reads.ContinuousRead,
        None,
        {"source": ["nyc_taxi"], "format": _POST},
        "the continuous read of the taxi frame in Parquet and CSV, and its peak memory",
    ),
    Pick(
        suite.reads.ProcessBaseline,
        None,
        {},
        "what every peak memory holds besides its case: without it, no peak memory reads across releases",
    ),
    # Rocklin's study, on his frame and his formats. TSBS's study (shared/seeds/001) compared ways
    # into QuestDB (a loop of row() calls against dataframe()), not file formats: those are
    # engines and SerializeForQuestDB, measured on the newest environment only.
    Pick(suite.reads.ReadFromPageCache, ["time_read", "peakmem_read"], _ROCKLIN, "Rocklin's loads"),
    Pick(suite.writes.WriteToBytes, ["time_write", "peakmem_write"], _ROCKLIN, "Rocklin's dumps"),
    Pick(suite.sizes.Sizes, None, _ROCKLIN, "Rocklin's sizes"),
    Pick(suite.writes.CategorizeThenWrite, None, _ROCKLIN, "Rocklin's case for categoricals"),
)


def _counted(pick):
    """The instruction counts of a pick's timed cells (``benchmarks.instructions``); None where it
    has none."""
    twin = suite.counted(pick.cls)
    timed = [m for m in (pick.methods or suite.methods(pick.cls)) if suite.counted_method(m)]
    if twin is None or not timed:
        return None
    return Pick(twin, [suite.counted_method(m) for m in timed], pick.given, "instruction counts: " + pick.why)


RELEASE = RELEASE + tuple(p for p in map(_counted, RELEASE) if p is not None)
NEWEST_ONLY_NOTE = (
    "measured on the newest environment only: the release matrix runs the release-tracking "
    "selection (docs/release-view.md)"
)


def _pick_regex(pick):
    """asv's -b for one pick: asv matches it against "name(param, ...)", each parameter as its repr."""
    methods = pick.methods or suite.methods(pick.cls)
    names = "|".join(re.escape(suite.name(pick.cls, m)) for m in methods)
    axes = []
    for param in pick.cls.param_names:
        allowed = pick.given.get(param)
        axes.append("'(?:%s)'" % "|".join(re.escape(str(v)) for v in allowed) if allowed else "[^,)]*")
    return r"^(?:%s)\(%s\)$" % (names, ", ".join(axes))


def release_regex(within=None):
    """The release-tracking selection as one regex for asv's -b and the suite's DSIB_SELECT; with
    ``within`` (another -b: FORMAT=, SOURCE=, ENGINE=), the cells that both pick."""
    picked = "|".join("(?:%s)" % _pick_regex(p) for p in RELEASE)
    return "^(?=.*(?:%s))(?:%s)" % (within, picked) if within else picked


def cell_label(benchmark, params):
    """asv's name of a cell: ``reads.ReadFromBytes.time_read('nyc_taxi_month', 'csv', 'plain')``,
    ``params`` its parameter values in order (as strings, unquoted)."""
    return "%s(%s)" % (benchmark, ", ".join("'%s'" % p for p in params))


def in_release(benchmark, params):
    """Whether the release matrix measures the cell (``params``: its values, in order)."""
    return re.search(release_regex(), cell_label(benchmark, params)) is not None


def entries(config_path):
    with open(config_path) as f:
        return json.load(f).get("include", [])


def pins(entry):
    return dict(entry.get("req", {}))


def newest(include):
    """The entry with the newest pyarrow, then pandas, then Python: `make bench`'s one environment."""

    def key(entry):
        req = entry.get("req", {})
        return (
            version_tuple(req.get("pyarrow", "0")),
            version_tuple(req.get("pandas", "0")),
            version_tuple(entry["python"]),
        )

    return max(include, key=key)


def parse_shard(text, part="shard"):
    """``"i/N"`` (1-based, as ``make bench-matrix SHARD=i/N`` and ``BLOCK=i/N`` take it) as ``(i, N)``;
    ``part`` names it in the error."""
    match = re.fullmatch(r"(\d+)/(\d+)", (text or "").strip())
    if not match or not 1 <= int(match.group(1)) <= int(match.group(2)):
        raise ValueError("a %s is i/N with 1 <= i <= N (%s 1/4 is the first of four), not %r" % (part, part, text))
    return int(match.group(1)), int(match.group(2))


def shard(include, index, count):
    """Shard ``index`` of ``count``: every ``count``-th environment, from the ``index``-th on, of
    the distinct entries in the order of their JSON text. That order is the entries' own, not
    the config file's, so every runner given the same environments draws the same shards, and
    each environment falls in exactly one (an entry listed twice is one environment: two shards
    would run it twice). Consecutive entries tend to share a Python and an era, hence
    round-robin rather than blocks: the shards' run times stay close."""
    ordered = [json.loads(text) for text in sorted(set(json.dumps(entry, sort_keys=True) for entry in include))]
    chosen = ordered[index - 1 :: count]
    if not chosen:
        raise ValueError(
            "shard %d/%d is empty: the matrix has %d environments, fewer than %d shards"
            % (index, count, len(ordered), count)
        )
    return chosen


def block(include, index, count):
    """Block ``index`` of ``count``: a run of neighbouring environments. The distinct entries in
    the matrix's own order (the chains', step by step) are cut into ``count`` runs of neighbours,
    as even as can be, so that one sitting measures a chain's neighbours together and in turn
    (``run.block_commands``). An entry listed twice is one environment."""
    ordered = []
    for entry in include:
        if entry not in ordered:
            ordered.append(entry)
    start, end = (index - 1) * len(ordered) // count, index * len(ordered) // count
    if start == end:
        raise ValueError(
            "block %d/%d is empty: the matrix has %d environments, fewer than %d blocks"
            % (index, count, len(ordered), count)
        )
    return ordered[start:end]


def label(entry):
    req = entry.get("req", {})
    return "py%s %s" % (entry["python"], " ".join("%s %s" % (k, req[k]) for k in sorted(req)))


def requirement(name, version):
    if not version:
        return name
    if version[0].isdigit():
        return "%s==%s" % (name, version)
    return name + version  # a path or URL, as asv passes for asv_runner


def install_args(pinned):
    """One ``pip install`` for every pin: pip resolves them together, so no later package can
    upgrade an earlier one (tables pulling a numpy that breaks pandas' ABI)."""
    return ["install"] + [requirement(n, v) for n, v in sorted(pinned.items())]


def _normal(name):
    return name.lower().replace("_", "-")


def wrong_versions(pinned, installed):
    """Pins that ``installed`` ({name: version}, e.g. from ``pip list``) does not hold exactly."""
    have = dict((_normal(n), v) for n, v in installed.items())
    wrong = []
    for name, version in sorted(pinned.items()):
        if version and version[0].isdigit() and have.get(_normal(name)) != version:
            wrong.append("%s: pinned %s, installed %s" % (name, version, have.get(_normal(name))))
    return wrong


def _interpreter(python):
    """``python3.7`` from PATH, as asv's virtualenv plugin finds it (the Makefile puts pyenv's
    version directories on PATH)."""
    found = shutil.which("python%s" % python)
    if not found:
        raise LookupError("no python%s on PATH; asv needs it for this matrix entry" % python)
    return found


def resolver(python, workdir):
    """A fresh virtualenv for ``python`` with the pip asv's plugin would use. Returns its python."""
    target = os.path.join(workdir, "py%s" % python)
    subprocess.run(
        [sys.executable, "-m", "virtualenv", "--quiet", "-p", _interpreter(python), target],
        check=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    exe = os.path.join(target, "bin", "python")
    subprocess.run(
        [exe, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "wheel", "pip>=8"],
        check=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    return exe


def resolve(entry, python_exe):
    """What pip would install for the entry's pins in one call (``--dry-run``): the problems, if any."""
    pinned = pins(entry)
    handle, report = tempfile.mkstemp(suffix=".json")
    os.close(handle)
    args = install_args(pinned) + [
        "--dry-run",
        "--ignore-installed",
        "--quiet",
        "--disable-pip-version-check",
        "--report",
        report,
    ]
    done = subprocess.run(
        [python_exe, "-m", "pip"] + args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True
    )
    if done.returncode != 0:
        return ["pip cannot resolve %s: %s" % (label(entry), done.stdout.strip()[-2000:])]
    with open(report) as f:
        installs = json.load(f)["install"]
    os.remove(report)
    return wrong_versions(pinned, dict((i["metadata"]["name"], i["metadata"]["version"]) for i in installs))


def run_check(results_dir, machine, commit, profile, config_path=CURATED_CONFIG):
    """For every environment of the curated matrix: did it run the suite at ``commit`` and
    ``profile``, and how many cells ran, skipped and failed (asv's null). A JSON-able record."""
    import math

    from . import asv_results

    runs = [
        r for r in asv_results.runs(results_dir, machine, commit) if (r.env_vars or {}).get("DSIB_PROFILE") == profile
    ]
    record = {"machine": machine, "commit": commit, "profile": profile, "environments": []}
    for entry in entries(config_path):
        found = [r for r in runs if chains.ran_in(entry, r.params, r.env_vars or {})]
        row = {"environment": label(entry), "ran": 0, "skipped": 0, "failed": [], "found": len(found)}
        if found:
            for cell in asv_results.cells(found[0]):
                value = cell["value"]
                if value is None:
                    row["failed"].append(cell["cell"])
                elif isinstance(value, float) and math.isnan(value):
                    row["skipped"] += 1
                else:
                    row["ran"] += 1
        record["environments"].append(row)
    return record


def check_markdown(record):
    lines = [
        "The curated matrix at profile `%s`, commit `%s`, machine `%s`: %d of %d environments ran, "
        "%d failed cells."
        % (
            record["profile"],
            record["commit"][:8],
            record["machine"],
            sum(1 for e in record["environments"] if e["found"]),
            len(record["environments"]),
            sum(len(e["failed"]) for e in record["environments"]),
        ),
        "",
    ]
    rows = [
        (e["environment"], e["ran"] if e["found"] else "not run", e["skipped"] if e["found"] else "", len(e["failed"]))
        for e in record["environments"]
    ]
    return "\n".join(lines + [table(["environment", "cells run", "skipped", "failed"], rows, "lrrr")])
