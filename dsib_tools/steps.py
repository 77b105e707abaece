"""Which steps of the release matrix are real: a cell's change between two neighbouring
environments, called only when it beats both its samples' spread and the environments' own noise.

Two environments that differ in one library still differ in more than that library: where the
interpreter and the libraries land in memory, what pip installed beside them, the machine's mood
while each ran. Formats the step's library does not touch (pickle, CSV, JSON, HDF5 for a pyarrow
step) measure that noise: their ratios between the two environments spread by several per cent
and more, where a cell's own samples spread by a few. A cell's change is therefore:

- its ratio after / before, estimated as the gate does (``bounds.estimate``: the median of the
  ratios of every sample after to every sample before, samples of every process of each
  environment), with its confidence interval, ``CELL_LEVEL`` on each side (for an instruction
  count, one a process, the range of those ratios);
- compared with the **noise band**: the whole range of the control cells' ratios (``BAND``'s
  quantiles), the cells of the same step whose formats do not need the changed library
  (``Format.packages``);

and a step is **called** for the cell when its whole interval lies beyond the band: slower when
its lower bound is above the band, faster when its upper bound is below it. A step whose library
every cell touches (pandas: every format reads into a frame) has no control of its own, and a
link (several things at once) is judged the same way, its change its own, never a library's:
there, a cell's band is its format's noise (``format``): the ratios of every cell of its format
that measures what it measures (``family_of``) at the chains' other steps where they were
controls, as far on each side of 1 as the farthest of them (an environment that moved a cell
moves it back at the next step); a format with fewer than ``MIN_CONTROLS`` of them takes the band
of every control ratio of the chains' steps (``pooled``).
The noise differs from format to format: a 20 ms pickle read can move 4x between two environments
that differ in a library it does not use, where no CSV time moves by more than 1.6x.

Instruction counts (one a process) are judged the same way where counted.
"""

import math
import statistics
from collections import namedtuple

from . import bounds, chains

# Each side of a cell's interval: the order statistics of Mann-Whitney's test at this level (a
# two-sided 99 % interval). The samples' spread is one guard; the band, wider, is the other.
CELL_LEVEL = 0.005
# The noise band: the control ratios between these quantiles, their whole range. The central 95 %
# calls steps where the cells moved less than the controls spread (tests/test_steps.py).
BAND = (0.0, 1.0)
# A step's own band needs this many control cells; with fewer it takes the pooled band.
MIN_CONTROLS = 20

Band = namedtuple("Band", ["low", "high", "controls", "source"])
Band.__doc__ = """The environments' noise at a step: control ratios from ``low`` to ``high``
(after / before), from ``controls`` ratios; ``source``: "own" (the step's control cells),
"format" (the ratios of the cell's format at the other steps) or "pooled" (every step's control
cells)."""

Call = namedtuple("Call", ["cell", "ratio", "low", "high", "way", "band"])
Call.__doc__ = """A cell's change at a step: ratio after / before with its interval; ``way``:
"slower", "faster", or None where the interval reaches into ``band`` (no step called)."""

Judged = namedtuple("Judged", ["step", "label", "band", "cells"])
Judged.__doc__ = """One pair of neighbours: its ``chains.Step``, its label (``chains.describe``),
its noise band (its own, else the pooled one; each Call holds the band it was judged against) and
every cell measured on both sides (Calls, by cell)."""


def _quantile(ordered, q):
    """The ``q`` quantile of a sorted list, interpolated between its neighbours."""
    at = q * (len(ordered) - 1)
    below = int(math.floor(at))
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (ordered[above] - ordered[below]) * (at - below)


def band_of(ratios, source):
    """The noise band of control ratios (after / before), or None where there are none."""
    if not ratios:
        return None
    logs = sorted(math.log(r) for r in ratios)
    return Band(math.exp(_quantile(logs, BAND[0])), math.exp(_quantile(logs, BAND[1])), len(ratios), source)


def reach_band(ratios, source):
    """The band as far on each side of 1 as the farthest of ``ratios`` (after / before)."""
    reach = max(abs(math.log(r)) for r in ratios)
    return Band(math.exp(-reach), math.exp(reach), len(ratios), source)


def describe_band(band, dash="-"):
    """ "0.84-1.13 (own, 107 control cells)", "0.62-1.60 (the format's, 252 control ratios)"."""
    if band is None:
        return "no band"
    whence = (
        "the format's, %d control ratios" % band.controls
        if band.source == "format"
        else "%s, %d control cells" % (band.source, band.controls)
    )
    return "%.2f%s%.2f (%s)" % (band.low, dash, band.high, whence)


def _usable(samples):
    return samples is not None and len(samples) >= 2 and all(s is not None and s > 0 for s in samples)


def counts(cell):
    """Whether a cell is an instruction count (``benchmarks.instructions``): nearly exact, one a
    process."""
    return cell.startswith("instructions.")


def judge_cell(cell, before, after, band, level=CELL_LEVEL):
    """The Call of one cell, its samples ``before`` and ``after``, against ``band``. A count's
    samples (one a process) are too few for an interval at ``level``: its interval is the whole
    range of the ratios of every count after to every count before. A time's samples too few for
    one get an unbounded interval, and no step."""
    ratio, low, high = bounds.estimate(before, after, level)
    if counts(cell) and (low == 0 or math.isinf(high)):
        pairs = [b / a for a in before for b in after]
        low, high = min(pairs), max(pairs)
    way = None
    if band is not None and low > band.high:
        way = "slower"
    elif band is not None and high < band.low:
        way = "faster"
    return Call(cell, ratio, low, high, way, band)


def _pairs(samples, step):
    """{cell: (before, after)} of the cells with samples on both sides of ``step``."""
    found = {}
    for cell, per_env in samples.items():
        before, after = per_env[step.before], per_env[step.after]
        if _usable(before) and _usable(after):
            found[cell] = (before, after)
    return found


def _control_ratios(pairs, step, touches, entries):
    """{cell: its ratio} of the step's control cells: those whose work does not go through the
    step's library (none at a link)."""
    if step.library is None:
        return {}
    after_pins = chains.pins(entries[step.after])
    return dict(
        (cell, statistics.median(b / a for a in before for b in after))
        for cell, (before, after) in pairs.items()
        if not touches(cell, step.library, after_pins)
    )


def judge(entries, samples, touches, level=CELL_LEVEL, links=chains.LINKS, family=None):
    """Every pair of neighbours of ``entries`` (a config's include entries, in chain order), judged.

    ``samples``: {cell: [its samples in each environment, or None]}, an environment each in the
    entries' order; ``touches(cell, library, pins)``: whether the cell's work goes through
    ``library`` in an environment of ``pins`` (not a control of that library's steps);
    ``family(cell)``: the cells that share a noise band where a step has none of its own
    (``family_of``; by default, each cell alone)."""
    family = family or (lambda cell: cell)
    found = chains.steps(entries, links)
    paired = [_pairs(samples, s) for s in found]
    controls = [_control_ratios(p, s, touches, entries) for p, s in zip(paired, found)]
    pooled = band_of([r for ratios in controls for r in ratios.values()], "pooled")
    by_family = []
    for ratios in controls:
        grouped = {}
        for cell, ratio in ratios.items():
            grouped.setdefault(family(cell), []).append(ratio)
        by_family.append(grouped)

    def family_band(index, name):
        ratios = [r for k, grouped in enumerate(by_family) if k != index for r in grouped.get(name, ())]
        return reach_band(ratios, "format") if len(ratios) >= MIN_CONTROLS else pooled

    judged = []
    for index, (step, pairs, ratios) in enumerate(zip(found, paired, controls)):
        own = band_of(list(ratios.values()), "own") if len(ratios) >= MIN_CONTROLS else None
        bands = {}
        cells = {}
        for cell, (before, after) in sorted(pairs.items()):
            name = family(cell)
            if own is None and name not in bands:
                bands[name] = family_band(index, name)
            cells[cell] = judge_cell(cell, before, after, own or bands[name], level)
        judged.append(Judged(step, chains.describe(step, entries), own or pooled, cells))
    return judged


def called(judged):
    """(Judged, Call) of every step called, in chain order."""
    return [(j, c) for j in judged for c in j.cells.values() if c.way]


def describe_call(judged, call):
    """ "pyarrow 14.0.2 → 17.0.0 at pandas 2.2.3, Python 3.11: <cell>: 1.42x slower (1.31-1.55),
    beyond the environments' noise 0.95-1.06 (own, 212 control cells)"."""
    ratio, low, high = call.ratio, call.low, call.high
    if call.way == "faster":
        ratio, low, high = 1 / ratio, 1 / high, 1 / low
    return "%s: %s: %.2fx %s (%.2f-%.2f), beyond the environments' noise %s" % (
        judged.label,
        call.cell,
        ratio,
        call.way or "changed",
        low,
        high,
        describe_band(call.band),
    )


def touches(params, library, pins):
    """Whether a cell of these parameters ({name: value}) goes through ``library`` in an environment
    of ``pins``: its format needs it (``Format.packages``); a cell of no format touches every
    library. pandas 3 keeps the text of the str and cat frames in pyarrow's arrays where pyarrow
    is installed: there every format's text variants touch pyarrow."""
    from dsib.formats import FORMATS

    from .chains import TEXT_VARIANTS, text_kind

    name = params.get("format")
    if name not in FORMATS:
        return True
    if library == "pyarrow" and params.get("variant") in TEXT_VARIANTS and text_kind(pins).startswith("Arrow"):
        return True
    return library in FORMATS[name].packages


def from_results(results_dir, machine, entries, profile="default"):
    """(samples, params): ``samples`` {cell: [samples per entry, or None]} of every cell with
    samples that ``machine``'s runs at ``profile`` and its release view's allocator setting
    (``chains.of_release_setting``) hold in the environments of ``entries`` (the newest run of each),
    ``params`` {cell: {name: value}}, from the one loader."""
    from . import asv_results

    table = asv_results.table(results_dir, machine)
    table = table[table.env_vars.map(lambda v: v.get("DSIB_PROFILE") == profile).astype(bool)]
    table = table.loc[chains.of_release_setting(table.env_vars)]
    names = asv_results.param_names(results_dir)
    samples, params = {}, {}
    for index, entry in enumerate(entries):
        rows = table[table.pins.map(lambda p: chains.ran_in(entry, p))]
        if rows.empty:
            continue
        newest = rows[rows.date == rows.date.max()]
        for row in newest.itertuples():
            if row.samples:
                samples.setdefault(row.cell, [None] * len(entries))[index] = list(row.samples)
                given = [p.strip("'\"") for p in row.params]
                params[row.cell] = dict(zip(names.get(row.benchmark, ()), given))
    return samples, params


def family_of(cell, params):
    """The cells whose noise a cell shares: those of its format that measure what it measures (a
    time, a peak memory, an instruction count, ...); without a format, the cell alone."""
    if "format" not in params:
        return cell
    method = cell.split("(")[0].rsplit(".", 1)[-1]
    return ("instructions" if counts(cell) else method.split("_")[0], params["format"])


def judge_results(results_dir, machine, config_path, profile="default"):
    """(judged, ran, params): the Judged pairs of neighbours of ``config_path``'s chains from
    ``machine``'s results at ``profile`` (a pair is judged where both environments ran), the
    indices of the entries that ran, and each cell's parameters ({name: value})."""
    from .matrix import entries as read_entries

    entries = read_entries(config_path)
    samples, params = from_results(results_dir, machine, entries, profile)

    def by_format(cell, library, pins):
        return touches(params.get(cell, {}), library, pins)

    ran = [i for i in range(len(entries)) if any(per[i] for per in samples.values())]
    return judge(entries, samples, by_format, family=lambda cell: family_of(cell, params.get(cell, {}))), ran, params


def markdown(judged, ran, entries):
    """A line on what was judged, then a table of every called step (none: a line saying so)."""
    from .markdown import table

    pairs = [j for j in judged if j.step.before in ran and j.step.after in ran]
    found = called(pairs)
    lines = [
        "%d of %d environments of the chains ran; %d of their %d pairs of neighbours ran both, %d cells "
        "judged, %d steps called beyond the environments' noise."
        % (len(ran), len(entries), len(pairs), len(judged), sum(len(j.cells) for j in pairs), len(found)),
        "",
    ]
    if not found:
        return "\n".join(lines + ["No step called."])
    rows = []
    for j, c in found:
        ratio, low, high = (c.ratio, c.low, c.high) if c.way == "slower" else (1 / c.ratio, 1 / c.high, 1 / c.low)
        rows.append((j.label, c.cell, "%.2fx %s (%.2f-%.2f)" % (ratio, c.way, low, high), describe_band(c.band)))
    return "\n".join(lines + [table(["step", "cell", "change (99 % interval)", "environments' noise"], rows)])
