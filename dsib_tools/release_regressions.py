"""The release view's steps page (``release-regressions.html``): every step up that asv's step
detection finds along a case's releases, on every machine, largest first."""

from . import templates
from .release_data import STEP_PENALTY, VIEWS
from .release_page import case_href, case_label, page_name, step_change, with_spread


def _step_rows(data, view, page):
    envs = data["envs"]
    steps = sorted(
        ((ratio, case, before, after) for case in data["cases"] for before, after, ratio in case["steps"][view]),
        key=lambda s: (-s[0], s[1]["id"]),
    )
    return [
        {
            "case": case["id"],
            "href": case_href(case["id"], view, page),
            "label": case_label(case),
            "before": envs[before]["label"],
            "after": envs[after]["label"],
            "before_value": with_spread(case, before),
            "after_value": with_spread(case, after),
            "ratio": repr(ratio),
            "change": step_change(case, envs, before, after, ratio),
        }
        for ratio, case, before, after in steps
    ]


def render_regressions(datas):
    """Every upward step of every case, per published machine (the reference first) and order."""
    tables = [
        {"machine": data["machine"], "view": view, "rows": _step_rows(data, view, page_name(data["machine"], k == 0))}
        for k, data in enumerate(datas)
        for view in VIEWS
    ]
    return templates.render("release-regressions.html", penalty=STEP_PENALTY, tables=tables)
