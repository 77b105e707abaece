"""How fast data_prep builds the canonical store.

Target: the plain variant at >= 1 M rows/s, including writing the ``.npy`` files, i.e.
``time_generate_plain_month`` <= 1 s for 1,000,000 rows. The files are not fsynced one by one
(``data_prep.store``: a torn file fails its checksum on load); their directory and the manifest
are. The string columns (a
sha256 per row) are timed apart: they are not part of that target.
"""

import shutil
import tempfile

from dsib import compat

from . import DATA, Case, loads_once, series, untimed_call


class Prepare(Case):
    version = series(2)
    measures = DATA
    params, param_names = [[1000000]], ["rows"]
    rounds = 2
    repeat = (3, 5, 5.0)
    timeout = 120

    @loads_once
    def setup(self, rows):
        numpy = compat.require("numpy")
        if compat.version_tuple(numpy.__version__) < (1, 17):
            raise NotImplementedError("generation needs numpy >= 1.17 (default_rng); this is %s" % numpy.__version__)
        from data_prep import nyc_taxi
        from data_prep.store import write_dataset

        self.nyc_taxi, self.write_dataset = nyc_taxi, write_dataset
        self.columns = nyc_taxi.generate_month("2016-01", rows, 2016)
        self.tmp = tempfile.mkdtemp(prefix="dsib-prep-")
        # Both timed calls once, untimed: whichever of the two the process times, its code has run.
        untimed_call(self, (rows,), lambda: self.time_generate_plain_month(rows), step="generate")
        self.teardown(rows)
        untimed_call(self, (rows,), lambda: self.time_string_columns(rows), step="string columns")

    def teardown(self, rows):
        # Each sample starts from an empty directory (write_dataset makes it again).
        shutil.rmtree(getattr(self, "tmp", ""), ignore_errors=True)

    def time_generate_plain_month(self, rows):
        columns = self.nyc_taxi.generate_month("2016-01", rows, 2016)
        self.write_dataset(self.tmp, "nyc_taxi", "bench", [("2016-01", columns)], {})

    def time_string_columns(self, rows):
        return self.nyc_taxi.string_columns(self.columns)
