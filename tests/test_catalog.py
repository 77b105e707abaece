"""The catalog is built from its inputs (the tables a user brought, the data directory) and never
changes; the run's environment is read by the suite's package alone."""

import json
import os
import subprocess
import sys

import pytest

from dsib import catalog

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_a_catalog_with_a_brought_table_measures_it_and_leaves_the_built_in_one_as_it_was():
    before = (catalog.BUILT_IN.grid, list(catalog.BUILT_IN.sources), catalog.BUILT_IN.params("random_access"))
    mine = catalog.BUILT_IN.bringing("mine")
    assert mine.grid == catalog.BUILT_IN_GRID + ("mine",) and mine.sources["mine"].own
    assert "mine" in mine.params("read_from_page_cache")[0] and "mine" in mine.params("random_access")[0]
    assert "mine" in mine.engine_params("ingest")[0] and "mine" in mine.engine_params("query")[0]
    assert mine.bringing("mine") is mine
    after = (catalog.BUILT_IN.grid, list(catalog.BUILT_IN.sources), catalog.BUILT_IN.params("random_access"))
    assert after == before and "mine" not in after[1]
    assert catalog.catalog_of(["nyc_taxi"]) is catalog.BUILT_IN
    assert catalog.catalog_of(["nyc_taxi", "mine"]).own == ("mine",)


def test_a_built_in_sources_name_is_no_table_to_bring():
    with pytest.raises(ValueError, match="built-in source's name"):
        catalog.BUILT_IN.bringing("tsbs_cpu")


def test_a_catalogs_sources_read_their_own_data_directory(tmp_path):
    found = catalog.Catalog(own=("mine",), data_dir=str(tmp_path))
    assert {s.data_dir for s in found.sources.values()} == {str(tmp_path)}
    assert catalog.BUILT_IN.sources["nyc_taxi"].data_dir is None


def test_only_the_suites_package_reads_the_table_a_run_measures():
    """DSIB_DATASET names the run's table to ``benchmarks`` (its CATALOG); importing the catalog
    with it set changes nothing."""
    script = (
        "import json, benchmarks; from dsib import catalog; "
        "print(json.dumps([benchmarks.CATALOG.own, catalog.BUILT_IN.own, "
        "benchmarks.reads.ReadFromPageCache.params[0]]))"
    )
    env = dict(os.environ, DSIB_DATASET="mine", DSIB_PROFILE="tiny")
    out = subprocess.run(
        [sys.executable, "-c", "import benchmarks.reads; " + script],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    run_own, built_in_own, sources = json.loads(out)
    assert run_own == ["mine"] and built_in_own == [] and sources[-1] == "mine"
