"""The release view's page of one machine (``releases.html``): its headline table, the 2019 table
per release and the case picker the script fills; the figures' text (ratios, sizes, spreads) and
the pages' names, shared with the steps page."""

import decimal
import math
from urllib.parse import quote

from markupsafe import Markup

from . import templates, vendor_js
from .matrix import NEWEST_ONLY_NOTE
from .release_data import NOT_IN_MATRIX, is_number, kind_change
from .site import table_to_html


def change_text(unit, ratio):
    better = {"seconds": "faster", "bytes": "smaller", "instructions": "fewer"}.get(unit, "lower")
    worse = {"seconds": "slower", "bytes": "larger", "instructions": "more"}.get(unit, "higher")
    if ratio is None:
        return "n/a"
    return "%.2f× %s" % (ratio, better) if ratio >= 1 else "%.2f× %s" % (1 / ratio, worse)


# The units' steps, as the page's script has them (www/releases.js: STEPS), so that a figure reads
# the same on the steps page, in a headline and in the script's table. Memory and sizes in MiB
# (1 MiB = 2**20 bytes), as the README and the report give them.
BYTE_STEPS = ((1, "B"), (2**10, "KiB"), (2**20, "MiB"), (2**30, "GiB"), (2**40, "TiB"))
STEPS = {
    "seconds": ((1e-9, "ns"), (1e-6, "μs"), (1e-3, "ms"), (1, "s"), (60, "m"), (3600, "h")),
    "bytes": BYTE_STEPS,
}


def human(value, unit):
    """A median as the page's script writes it (www/releases.js: human)."""
    if not is_number(value):
        return "—" if value is None else str(value)
    if value == 0:
        return "0"
    steps = STEPS.get(unit, ((1, ""),))
    factor, suffix = ([step for step in steps if abs(value) >= step[0]] or steps[:1])[-1]
    return _number(value / factor) + suffix


def _number(x):
    """Three significant digits without trailing zeros, halves rounded up as JavaScript's
    toPrecision rounds them; a whole number from 1000 on (www/releases.js: number)."""
    if abs(x) >= 999.5:
        return "%d" % math.floor(x + 0.5)
    exact = decimal.Decimal(x)
    rounded = exact.quantize(decimal.Decimal(1).scaleb(exact.adjusted() - 2), rounding=decimal.ROUND_HALF_UP)
    text = format(rounded, "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def page_name(machine, reference):
    """The reference machine's release view is releases.html; another machine's has its own page."""
    return "releases.html" if reference else "releases-%s.html" % quote(machine, safe="")


def data_name(machine, reference):
    return "releases-data.js" if reference else "releases-data-%s.js" % quote(machine, safe="")


REGRESSIONS_PAGE = "release-regressions.html"


def case_href(ident, view="pyarrow", page=""):
    return page + "#case=%s" % quote(ident, safe="/") + ("" if view == "pyarrow" else "&view=" + view)


def case_label(case):
    """The case's name as the page's script writes it: benchmark (param=value, …)."""
    given = ", ".join("%s=%s" % kv for kv in case["params"].items())
    return case["benchmark"] + (" (%s)" % given if given else "")


def with_spread(case, i):
    """A cell's median with its interquartile range and sample count, as the page's script shows it."""
    value, spread = case["values"][i], case["spread"][i]
    text = human(value, case["unit"])
    if not is_number(value):
        return text
    if not spread:
        return text + " (no spread recorded)"
    if spread[2] == 1:
        return text + " (one sample)"
    if not (is_number(spread[0]) and is_number(spread[1])):
        return text + " (n=%d)" % spread[2]
    return text + " (IQR %s–%s, n=%d)" % (human(spread[0], case["unit"]), human(spread[1], case["unit"]), spread[2])


def _against_newest(case, h, which):
    if h[which] == h["newest"]:
        text = "the newest is the best"
    else:
        text = change_text(case["unit"], h[which + "_ratio"])
        if h[which + "_kinds"]:
            text += " (%s)" % h[which + "_kinds"]
    return {"which": which, "ratio": repr(h[which + "_ratio"]), "text": text}


def step_change(case, envs, step):
    """A called step's change with its interval ("1.42× faster (1.31–1.55)"), and what differs
    besides the libraries' speed (a kind of frame, a default that changed the file)."""
    ratio, low, high = step["ratio"], step["low"], step["high"]
    shown = (1 / high, 1 / low) if ratio < 1 else (low, high)
    text = "%s (%.2f–%.2f)" % (change_text(case["unit"], 1 / ratio), shown[0], shown[1])
    kinds = kind_change(case, envs[step["before"]], envs[step["after"]])
    return text + (" (%s)" % kinds if kinds else "")


def _step_text(case, envs, step):
    return "%s: %s" % (step["label"], step_change(case, envs, step))


def _headline_rows(data):
    """A row of the headline table per headline case: its best, previous and newest release, how
    the newest compares with the other two, and its steps called along the chains."""
    by_id = dict((c["id"], c) for c in data["cases"])
    envs = data["envs"]
    rows = []
    for label, ident in data["headlines"]:
        case = by_id[ident]
        h = case["headline"]["pyarrow"]
        row = {"case": ident, "href": case_href(ident), "label": label, "only": None}
        if h is None:
            only = [i for i, v in enumerate(case["values"]) if is_number(v)][0]
            rows.append(dict(row, only=envs[only]["label"], value=with_spread(case, only)))
            continue
        row["releases"] = [
            {"which": w, "release": h[w], "label": envs[h[w]]["label"], "value": with_spread(case, h[w])}
            for w in ("best", "previous", "newest")
        ]
        row["against"] = [_against_newest(case, h, "best"), _against_newest(case, h, "previous")]
        row["steps"] = [_step_text(case, envs, step) for step in case["steps"]]
        rows.append(row)
    return rows


def render(data, machines):
    """The release view of ``data["machine"]``; ``machines``: every published one, the reference first."""
    envs = data["envs"]
    newest_only = [c for c in data["cases"] if c["newest_only"]]
    return templates.render(
        "releases.html",
        machine=data["machine"],
        profile=data["profile"],
        envs=envs,
        n_cases=len(data["cases"]),
        machines=[
            {"page": page_name(m, i == 0), "name": m, "current": m == data["machine"]} for i, m in enumerate(machines)
        ],
        newest_only=newest_only,
        newest_only_note=NEWEST_ONLY_NOTE,
        not_in_matrix=NOT_IN_MATRIX,
        newest_only_benchmarks=sorted(set(c["benchmark"] for c in newest_only)),
        headlines=_headline_rows(data),
        regressions=REGRESSIONS_PAGE,
        newest=data["orders"]["pyarrow"][-1] if envs else None,
        envs_in_order=[dict(envs[i], index=i) for i in data["orders"]["pyarrow"]],
        tables_2019=[Markup(table_to_html(t, "table-2019-%d" % i)) for i, t in enumerate(data["tables_2019"])],
        data_script=data_name(data["machine"], data["machine"] == machines[0]),
        library=vendor_js.scripts(),
    )
