"""Three samples at least of every cell whose sample can take under a second, at every profile:
asv's sampling of each class (``rounds`` × what one process takes), with the rounds that the
suite's runs (``dsib_tools.run.ONE_ROUND``) and ``make compare`` (``pr``) force."""


def forced_rounds():
    """{profile: rounds} that a run at that profile passes asv (``--attribute rounds=N``)."""
    from dsib_tools import compare, compare_gate, run

    forced = dict((profile, 1) for profile in run.ONE_ROUND)
    assert run.asv_command("c", "m", "full", "HEAD")[-3:-1] == ["--attribute", "rounds=1"]
    forced[compare_gate.PROFILE] = dict(compare.SAMPLING)["rounds"]
    return forced


def per_process(cls, method, forced_repeat=None):
    """The samples one process of ``cls.method`` takes at least, where each takes under a second:
    a ``time_``'s asv repeat (its minimum, and while its time limit lasts, a sample a second, up to
    its maximum); a ``track_`` that returns samples takes its ``pairs`` or ``passes``. None for a
    single measurement (peak memory, a size)."""
    if method.startswith("time_"):
        repeat = forced_repeat if forced_repeat is not None else cls.repeat
        low, high, limit = repeat if isinstance(repeat, tuple) else (repeat, repeat, 0)
        return max(low, min(high, int(limit)))
    if method.startswith("track_") and hasattr(cls, "pairs"):
        return cls.pairs[0]
    if method.startswith("track_") and hasattr(cls, "passes"):
        return cls.passes
    return None


def test_every_cell_under_a_second_gets_three_samples_at_every_profile():
    from data_prep import PROFILES
    from dsib_tools import compare, compare_gate, suite

    forced = forced_rounds()
    assert forced.get("full") == 1, "full runs one round (a setup_cache's files kept once): %s" % forced
    short = []
    for profile in sorted(set(PROFILES) | set(forced)):
        repeat = dict(compare.SAMPLING)["repeat"] if profile == compare_gate.PROFILE else None
        for cls in suite.classes():
            for method in suite.methods(cls):
                samples = per_process(cls, method, repeat)
                if samples is None:
                    continue
                rounds = forced.get(profile, getattr(cls, "rounds", 2))
                if rounds * samples < 3:
                    short.append("%s at %s: %d x %d" % (suite.name(cls, method), profile, rounds, samples))
    assert not short, "fewer than three samples:\n" + "\n".join(short)


def test_the_sampled_tracks_say_what_they_take():
    """The cold-minus-warm pairs and the device's passes are samples as asv keeps a time's."""
    from benchmarks import reads

    low, high, seconds = reads.ColdMinusWarm.pairs
    assert 3 <= low <= high and seconds > 0
    assert reads.DeviceThroughput.passes >= 3
    assert reads.ReadCold.repeat >= 3 and reads.ReadCold.repeat == reads.ReadFromPageCache.repeat


def test_a_matrix_run_measures_every_cell_in_two_processes_at_default_and_one_at_tiny():
    from dsib_tools import run

    matrix = run.asv_command("c", "m", "default", "HEAD", matrix=True)
    assert matrix[matrix.index("--attribute") + 1] == "rounds=%d" % run.MATRIX_ROUNDS and run.MATRIX_ROUNDS >= 2
    assert "--attribute" not in run.asv_command("c", "m", "default", "HEAD")  # make bench: the classes' own
    tiny = run.asv_command("c", "m", "tiny", "HEAD", matrix=True)
    assert tiny[tiny.index("--attribute") + 1] == "rounds=1"
