"""The report's blocks over every registered format, source, variant and engine, from one
machine's asv results: what ``python -m dsib_tools report`` prints (``report_blocks``) and the
sections of the site's report page (``page_sections``). The tables themselves are ``report``'s."""


def results_of(results_dir, machine=None, env=None, commit=None):
    """((machine, asv Results, param names), that machine's load logs) of the results in
    ``results_dir`` that the filters choose; NoResults if none, ValueError for an unreadable load log."""
    from .asv_results import param_names
    from .machine_load import Machine
    from .report_cells import find_results

    machine, res = find_results(results_dir, machine, env, commit)
    load = Machine(results_dir, machine)
    return (machine, res, param_names(results_dir)), load


# report --batches: the whole read beside three columns, batches and rows at random of the same file.
BATCH_ROWS = (
    "read, page cache",
    "read, peak MiB",
    "read 3 columns",
    "read 3 columns, peak MiB",
    "in batches",
    "in batches + sum",
    "in batches + copy",
    "in batches, peak MiB",
    "1,000 rows at random",
    "1,000 rows at random, peak MiB",
)


def run_catalog(res, names):
    """The catalog of the run whose results ``res`` holds: the built-in sources, and the tables a
    user brought that it measured."""
    from dsib.catalog import catalog_of

    from .report_cells import sources_measured

    return catalog_of(sources_measured(res, names))


def grid_markdown(res, names, sources=None, variants=None, load=None, rows=None):
    """Every format's grid over ``sources`` and ``variants`` (default: all); ``rows``: those rows
    alone, of the formats that read columns, batches or rows."""
    from data_prep import VARIANTS
    from dsib.formats import FORMATS

    from .report_grid import grid_report

    formats = [f.name for f in FORMATS.values() if rows is None or f.columns or f.batches or f.take]
    return grid_report(
        res, names, sources or list(run_catalog(res, names).grid), variants or list(VARIANTS), formats, load, rows
    )


def grid_charts(res, names):
    """The grid's charts over every source, variant and format (``site.render``'s ``charts``)."""
    from data_prep import VARIANTS
    from dsib.formats import FORMATS

    from .report_grid import grid_charts as charts

    return charts(res, names, list(run_catalog(res, names).grid), list(VARIANTS), list(FORMATS))


def batches_markdown(res, names, sources=None, load=None):
    """The continuous reads in batches of ``sources`` (default: all); empty if the run has none."""
    from .report_grid import batches_report

    return batches_report(res, names, sources or list(run_catalog(res, names).sources), load)


def engines_markdown(res, names, sources=None, variants=None, load=None):
    """The engines' blocks of those ``sources`` (default: all) that engines run on; empty if none."""
    from data_prep import VARIANTS
    from dsib.catalog import catalog_of

    from .report_engines import engines_report

    found = catalog_of(sources) if sources else run_catalog(res, names)
    measured = found.engine_operations["ingest"].sources
    sources = [s for s in (sources or measured) if s in measured]
    return engines_report(res, names, sources, variants or list(VARIANTS), load) if sources else ""


def report_blocks(res, names, load=None, source=None, variant=None, engines=False, batches=False, dataset=None):
    """The Markdown blocks of ``python -m dsib_tools report``: every format's grid (``batches``: the
    reads real work needs alone), the reads in batches, then the engines (``engines``: those alone).
    ``dataset``: the blocks of a table the user brought: its grid, its reads in batches, its engines."""
    sources = [dataset] if dataset else source and [source]
    blocks = []
    if not engines:
        grid_sources = sources
        if batches and not sources:  # the sources three columns and batches are measured on
            from dsib.catalog import BUILT_IN

            grid_sources = list(BUILT_IN.get_operation("iterate_batches").sources)
        blocks.append(
            grid_markdown(res, names, grid_sources, variant and [variant], load, rows=BATCH_ROWS if batches else None)
        )
        in_batches = batches_markdown(res, names, sources, load)
        if in_batches:
            blocks.append(in_batches)
    if batches:
        return blocks
    engine_blocks = engines_markdown(res, names, sources, variant and [variant], load)
    if engine_blocks:
        blocks.append(engine_blocks)
    return blocks


def page_sections(results, load):
    """The site's report page of one machine: (heading, notes, Markdown blocks) a section."""
    from data_prep import PROFILES
    from .fidelity_table import markdown, versions, whole
    from dsib.formats import FORMATS
    from .report import describe, markdown_table
    from .report_store import LEGEND as STORE_LEGEND
    from .report_store import store_blocks

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
            grid_markdown(res, names, load=load).split("\n\n"),
        ),
        (
            "Reads in batches",
            ["More data than a memory budget, a batch at a time."],
            [batches_markdown(res, names, load=load) or "This run has no continuous read in batches."],
        ),
        (
            "Reads from an object store",
            [STORE_LEGEND],
            store_blocks(res, names) or ["This run has no read from an object store."],
        ),
        (
            "Databases and engines",
            ['Each engine\'s ingest and query of the taxi frame and TSBS "cpu" (dsib/engines).'],
            engines_markdown(res, names, load=load).split("\n\n"),
        ),
        (
            "Fidelity",
            [
                "What each pandas type becomes after a round trip, with %s. preserved: same dtype and "
                "values; ≈: a documented loss (same values); →: the dtype it came back as." % versions()
            ],
            [markdown(list(FORMATS.values()), shorten=whole)],
        ),
    ]
