"""Where a read runs: on the calling thread or on a pool (``dsib.layout.off_thread``)."""

from dsib import layout


def _spin(seconds):
    import time

    until = time.process_time() + seconds
    while time.process_time() < until:
        pass


def test_off_thread_tells_a_pools_work_from_the_calling_threads():
    import threading

    def on_a_pool():
        worker = threading.Thread(target=_spin, args=(0.2,))
        worker.start()
        worker.join()  # the caller waits, spending nothing; the thread ends within the call

    assert layout.off_thread(lambda: _spin(0.2)) < 0.2
    assert layout.off_thread(on_a_pool) > 0.8


def test_the_posts_csv_read_runs_on_a_pool_where_pandas_parses_in_parallel(tmp_path):
    """pandas 3.1's read_csv parses a file of 5 MB or more on a pool by default, one thread under
    ``compat.one_parser_thread``; earlier releases on the calling thread either way."""
    import pandas as pd

    from dsib import compat

    path = str(tmp_path / "wide.csv")
    pd.DataFrame({"a": range(400_000), "b": [0.25] * 400_000, "c": ["x" * 8] * 400_000}).to_csv(path, index=False)
    pd.read_csv(path)
    with compat.one_parser_thread():
        assert layout.off_thread(lambda: pd.read_csv(path)) < 0.2
    pooled = layout.off_thread(lambda: pd.read_csv(path))
    try:
        pd.get_option("mode.max_threads")
    except KeyError:
        assert pooled < 0.2
    else:
        assert pooled > 0.5
