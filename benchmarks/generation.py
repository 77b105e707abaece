"""How fast data_prep builds the canonical store.

Target: the plain variant at ≥ 1 M rows/s, including writing and fsyncing the
``.npy`` files, i.e. ``time_prepare_plain_month`` ≤ 1 s for 1,000,000 rows.
The string columns (a sha256 per row) are timed apart: they are not part of
that target.
"""
import shutil
import tempfile

from dsib import compat


class PrepareMonth(object):
    number = 1
    repeat = (3, 5, 5.0)
    params = [[1000000]]
    param_names = ["rows"]

    def setup(self, rows):
        numpy = compat.require("numpy")
        if compat.version_tuple(numpy.__version__) < (1, 17):
            raise NotImplementedError("generation needs numpy >= 1.17 (default_rng); this is %s"
                                      % numpy.__version__)
        from data_prep import nyc_taxi
        from data_prep.store import write_dataset

        self.nyc_taxi, self.write_dataset = nyc_taxi, write_dataset
        self.columns = nyc_taxi.generate_month("2016-01", rows, 2016)
        self.tmp = tempfile.mkdtemp(prefix="dsib-prep-")

    def teardown(self, rows):
        if hasattr(self, "tmp"):  # asv tears down after a skip in setup too
            shutil.rmtree(self.tmp, ignore_errors=True)

    def time_prepare_plain_month(self, rows):
        columns = self.nyc_taxi.generate_month("2016-01", rows, 2016)
        self.write_dataset(self.tmp, "nyc_taxi", "bench", [("2016-01", columns)], {})

    def time_string_columns(self, rows):
        self.nyc_taxi.string_columns(self.columns)
