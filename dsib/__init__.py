"""dsib: Data Science I/O Benchmarks.

The installable part of the suite: the format registry (``dsib.formats``),
version shims (``dsib.compat``), the frame-equality check (``dsib.fidelity``)
and the report over asv results (``dsib.report``). It is installed into every
asv environment at the benchmarked commit, so keep it importable on Python 3.7
with pandas 0.23 and pyarrow 0.11, and keep this module free of heavy imports.
"""

__version__ = "0.1.0"
