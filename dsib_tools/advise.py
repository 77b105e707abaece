"""``python -m dsib_tools advise PATH`` (``make advise FILE=PATH``): which format for a table like yours,
answered in about two minutes with quick measures, not asv's recorded run.

The file (CSV, Parquet, Feather / Arrow IPC, JSON Lines) is ingested as ``data_prep add`` does, into a
temporary store, and the frame is built from it once; then each format of ``dsib.formats.FORMATS``
runs in a process of its own (this interpreter, ``--worker``), which loads the frame, writes it a few times (each write
timed alone), reads the file back a few times (each read timed alone) and checks the first read
against the frame with the suite's own check (``dsib.fidelity``): what the round trip lost, or why the
format cannot hold the table. Peak memory is the worker's peak RSS during its first write and its
first read (the interpreter, its libraries and the frame included, as asv's peakmem is).

A worker stops taking samples of an operation once they have taken ``BUDGET`` seconds, so a slow
format gets fewer samples, never none. The figures are medians with their interquartile range and
sample count, labelled as quick measures: ``make bench DATASET=NAME`` measures the same table in asv's
whole grid (more samples, interleaved rounds, cold reads, fsync'd writes, every release) and records
it.

This module is the command; advise_worker measures one format, advise_ranking ranks the outcomes and
writes the table and the page."""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from .advise_ranking import held, lend_writes, page, rank, reason, table, writer_of
from .advise_worker import NAME, _worker, save_frame

SAMPLES = 3
WORKER_TIMEOUT = 600


def add_arguments(p):
    p.add_argument("path", help="a CSV, Parquet, Feather / Arrow IPC or JSON Lines file")
    p.add_argument(
        "--format",
        dest="input_format",
        default=None,
        help="the file's format, where its name does not say (csv, parquet, feather, jsonl)",
    )
    p.add_argument(
        "--variant",
        default=None,
        help="plain (numbers only), str (text as str: the default where "
        "the table has text) or cat (text as categoricals)",
    )
    p.add_argument("--samples", type=int, default=SAMPLES, help="samples of each read and write (default %d)" % SAMPLES)
    p.add_argument("--only", default=None, help="comma-separated formats to measure (default: every format)")
    p.add_argument("--html", default=None, help="the page to write (default: build/advise/<file name>.html)")
    p.add_argument("--json", default=None, help="also write the figures as JSON here")
    # A worker's own arguments: one format, in a process advise started.
    p.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    p.add_argument("--data-dir", default=None, help=argparse.SUPPRESS)
    p.add_argument("--keep", default=None, help=argparse.SUPPRESS)
    p.add_argument("--given", default=None, help=argparse.SUPPRESS)
    p.set_defaults(func=main)


# The command -------------------------------------------------------------------------------------


def run_worker(name, data_dir, variant, samples, keep=None, given=None):
    command = [
        sys.executable,
        "-m",
        "dsib_tools",
        "advise",
        "-",
        "--worker",
        name,
        "--data-dir",
        data_dir,
        "--variant",
        variant,
        "--samples",
        str(samples),
    ]
    command += ["--keep", keep] if keep else []
    command += ["--given", given] if given else []
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        done = subprocess.run(
            command,
            cwd=root,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            universal_newlines=True,
            timeout=WORKER_TIMEOUT,
        )
    except subprocess.TimeoutExpired:
        return {"format": name, "skip": None, "error": "took more than %d s" % WORKER_TIMEOUT, "read": []}
    lines = done.stdout.strip().splitlines()
    if done.returncode or not lines:
        tail = (done.stderr.strip().splitlines() or ["exit status %d" % done.returncode])[-1]
        return {"format": name, "skip": None, "error": "its process failed: %s" % tail, "read": []}
    return json.loads(lines[-1])


def _choices(args, spec):
    """(the variant to measure, the formats asked, in the registry's order), or an error's text."""
    from dsib.formats import FORMATS

    variant = args.variant or ("str" if "str" in spec.variants else "plain")
    if variant not in spec.variants:
        return "this table has no variant %s (it has %s)" % (variant, ", ".join(spec.variants))
    asked = [n.strip() for n in (args.only or ",".join(FORMATS)).split(",") if n.strip()]
    unknown = [n for n in asked if n not in FORMATS]
    if unknown:
        return "no format %s (formats: %s)" % (", ".join(unknown), ", ".join(FORMATS))
    return variant, [n for n in FORMATS if n in asked]  # a writer's worker before its file's other readers


def _measure_each(names, data_dir, variant, samples):
    """Every format's worker in turn, each in a process of its own; their outcomes. A reader of
    another format's file reads the file that format's worker left (a 1,000,000-row CSV takes
    seconds to write again)."""
    from dsib.formats import FORMATS

    writers = dict((n, writer_of(FORMATS[n], FORMATS.values())) for n in names if not FORMATS[n].writes)
    files = os.path.join(data_dir, "files")
    os.makedirs(files)
    kept = dict((n, os.path.join(files, n + FORMATS[n].suffix)) for n in set(writers.values()) if n)
    outcomes = []
    for name in names:
        outcome = run_worker(name, data_dir, variant, samples, kept.get(name), kept.get(writers.get(name)))
        outcome["writer"] = writers.get(name)
        outcomes.append(outcome)
        print("  %-20s %s" % (name, "measured" if held(outcome) else reason(outcome)[:100]), file=sys.stderr)
    return outcomes


def _report(args, outcomes, rows, variant):
    """The ranking printed, its page written (and the outcomes as JSON where asked); the page's path."""
    ranked, picks, others = rank(lend_writes(outcomes))
    text = table(ranked, picks, others, rows, variant)
    print(text)
    base = os.path.splitext(os.path.basename(args.path))[0]
    html_path = args.html or os.path.join("build", "advise", base + ".html")
    os.makedirs(os.path.dirname(os.path.abspath(html_path)), exist_ok=True)
    page(html_path, ranked, others, rows, variant, text)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": rows, "variant": variant, "outcomes": outcomes}, f, indent=1)
    return html_path


def main(args):
    if args.worker:
        return _worker(args)
    from data_prep.own_ingest import add_table
    from data_prep.own_table import TableError, open_table

    started = time.time()
    data_dir = tempfile.mkdtemp(prefix="dsib-advise-")
    try:
        try:
            added = add_table(NAME, args.path, data_dir=data_dir, fmt=args.input_format, progress=False)
        except TableError as exc:
            print("error: %s" % exc, file=sys.stderr)
            return 2
        chosen = _choices(args, open_table(NAME, data_dir)[0])
        if isinstance(chosen, str):
            print("error: %s" % chosen, file=sys.stderr)
            return 2
        variant, names = chosen
        save_frame(data_dir, variant)
        print(
            "%s: %s rows, %d columns%s; measuring %d formats, one process each"
            % (
                args.path,
                "{:,}".format(added["rows"]),
                len(added["columns"]),
                " (left out: %s)" % ", ".join("%s %s" % c for c in added["left_out"]) if added["left_out"] else "",
                len(names),
            ),
            file=sys.stderr,
        )
        outcomes = _measure_each(names, data_dir, variant, args.samples)
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)
    html_path = _report(args, outcomes, added["rows"], variant)
    print("\nThe page with its charts: %s (%.0f s in all)" % (html_path, time.time() - started))
    return 0
