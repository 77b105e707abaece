"""``python -m data_prep``: prepare, verify and export the benchmark datasets."""

import argparse
import sys

from . import nyc_taxi
from .datasets import DATASETS, get_dataset
from .frames import load_frame
from .own_ingest import INPUT_FORMATS, PARTITION_ROWS, add_table
from .own_table import OWN_PROFILE
from .build import TLC_BYTES_PER_ROW, csv_bytes_per_row, ingest_csv, prepare
from .profiles import DEFAULT_PROFILE, PROFILES, get_profile
from .store import DatasetError, default_data_dir, open_dataset


def _add_common(parser, datasets=True):
    parser.add_argument(
        "--profile",
        default=DEFAULT_PROFILE,
        help="scale profile: %s, or the name given to ingested CSV data (default: %%(default)s)"
        % ", ".join(sorted(PROFILES)),
    )
    if datasets:
        parser.add_argument(
            "--dataset",
            default="all",
            help="%s, or a table you brought (--profile %s) (default: all)"
            % (", ".join(["all"] + sorted(DATASETS)), OWN_PROFILE),
        )
    parser.add_argument("--data-dir", default=None, help="store root (default: $DSIB_DATA_DIR or ./data)")


def _names(args):
    if args.profile == OWN_PROFILE:
        if args.dataset == "all":
            raise ValueError("profile %s holds the tables you brought: name one with --dataset" % OWN_PROFILE)
        return [args.dataset]
    if args.dataset == "all":
        return sorted(DATASETS)
    get_dataset(args.dataset)  # an unknown name says which there are
    return [args.dataset]


def _report_csv_size(store):
    per_row = csv_bytes_per_row(store)
    deviation = per_row / TLC_BYTES_PER_ROW - 1
    print(
        "TLC-layout CSV: %.1f bytes/row (real January 2016: %.1f; %+.1f %%)"
        % (per_row, TLC_BYTES_PER_ROW, 100 * deviation)
    )


def cmd_prepare(args):
    if args.from_csv:
        path = ingest_csv(args.from_csv, args.profile, args.data_dir, progress=not args.quiet)
        print("ingested %d files into %s" % (len(args.from_csv), path))
        _report_csv_size(open_dataset(nyc_taxi.DATASET, args.profile, args.data_dir))
        return
    if args.profile not in PROFILES and args.profile != OWN_PROFILE:
        # Real files, ingested: nothing to generate, only what is there to verify.
        profile = get_profile(args.profile, args.data_dir)
        for name in sorted(profile.rows):
            open_dataset(name, args.profile, args.data_dir)
            print("%s at profile %s (%s) is present and verified" % (name, args.profile, profile.description))
        return
    for name in _names(args):
        if args.if_missing:
            try:
                open_dataset(name, args.profile, args.data_dir)
                print("%s at profile %s is present and verified" % (name, args.profile))
                continue
            except DatasetError:
                pass
        summary = prepare(args.profile, args.data_dir, progress=not args.quiet, dataset=name)
        print(
            "%s: wrote %s rows to %s in %.1f s (plain columns generated at %.2f M rows/s)"
            % (
                name,
                "{:,}".format(summary["rows"]),
                summary["path"],
                summary["seconds"],
                summary["plain_rows_per_second"] / 1e6,
            )
        )
        if name == nyc_taxi.DATASET:
            _report_csv_size(open_dataset(name, args.profile, args.data_dir))


def cmd_verify(args):
    for name in _names(args):
        store = open_dataset(name, args.profile, args.data_dir)
        rows = sum(store.rows(p) for p in store.partitions)
        print(
            "%s: %d partitions, %s rows, checksums verified" % (store.path, len(store.partitions), "{:,}".format(rows))
        )


def cmd_export_csv(args):
    frame = load_frame(args.profile, "plain", args.month, args.data_dir)
    nyc_taxi.to_tlc_csv(frame, args.output)
    print("wrote %d rows to %s" % (len(frame), args.output))


def cmd_add(args):
    summary = add_table(
        args.name,
        args.from_file,
        args.data_dir,
        fmt=args.format,
        strict=args.strict,
        partition_rows=args.partition_rows,
        progress=not args.quiet,
        reserved=sorted(DATASETS),
    )
    print(
        "%s: %s rows in %d partition(s) at %s"
        % (args.name, "{:,}".format(summary["rows"]), summary["partitions"], summary["path"])
    )
    print("columns: %s" % ", ".join(summary["columns"]))
    for name, arrow_type in summary["left_out"]:
        print(
            "left out: column %r of type %s (dsib stores numbers, booleans, datetimes and text; "
            "--strict refuses the table instead)" % (name, arrow_type)
        )
    if summary["variants"] == ("plain",):
        print("variants: plain only (the table has no text column)")
    else:
        print("variants: %s" % ", ".join(summary["variants"]))


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m data_prep", description=__doc__)
    sub = parser.add_subparsers(dest="command")
    p = sub.add_parser("prepare", help="generate datasets at a profile, or ingest TLC CSV files with --from-csv")
    _add_common(p)
    p.add_argument(
        "--from-csv", nargs="+", metavar="PATH", help="real TLC yellow-taxi CSV files, 2016 layout (nyc_taxi only)"
    )
    p.add_argument("--if-missing", action="store_true", help="skip datasets that are present and verify")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_prepare)
    p = sub.add_parser(
        "add",
        help="bring a table of your own (CSV, Parquet, Feather/Arrow IPC, JSON Lines) into "
        "the store, read in batches, as dataset NAME at profile %s" % OWN_PROFILE,
    )
    p.add_argument("name", help="the table's name (lower-case letters, digits and _)")
    p.add_argument("--from-file", required=True, metavar="PATH")
    p.add_argument("--format", choices=list(INPUT_FORMATS), default=None, help="default: from the file's extension")
    p.add_argument(
        "--strict",
        action="store_true",
        help="refuse a table with a column dsib cannot store, instead of leaving that column out; "
        "and a format that can hold the table only with a declared loss (HDF5: nullable "
        "integers as floats) skips, instead of running with that loss",
    )
    p.add_argument(
        "--partition-rows",
        type=int,
        default=PARTITION_ROWS,
        help="rows a partition of the store holds, and so what ingesting holds in memory (default: %(default)s)",
    )
    p.add_argument("--data-dir", default=None, help="store root (default: $DSIB_DATA_DIR or ./data)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_add)
    p = sub.add_parser("verify", help="check datasets against their manifest checksums")
    _add_common(p)
    p.set_defaults(func=cmd_verify)
    p = sub.add_parser("export-csv", help="write one month of nyc_taxi in the TLC CSV layout")
    _add_common(p, datasets=False)
    p.add_argument("--month", default=None, help="partition, e.g. 2016-01 (default: the first)")
    p.add_argument("output")
    p.set_defaults(func=cmd_export_csv)
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    if args.data_dir is None:
        args.data_dir = default_data_dir()
    try:
        args.func(args)
    except (DatasetError, ValueError, KeyError) as exc:
        print("error: %s" % (exc.args[0] if isinstance(exc, KeyError) else exc), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
