"""The release view's steps page (``release-regressions.html``): every step that the step caller
calls along the curated matrix's chains (``dsib_tools.steps``), on every machine, in chain order."""

from . import steps, templates
from .release_page import case_href, case_label, page_name, step_change, with_spread


def _step_rows(data, page):
    envs = data["envs"]
    found = sorted(
        ((step, case) for case in data["cases"] for step in case["steps"]),
        key=lambda s: (s[0]["before"], s[0]["after"], -abs(s[0]["ratio"] - 1), s[1]["id"]),
    )
    return [
        {
            "case": case["id"],
            "href": case_href(case["id"], "pyarrow", page),
            "label": case_label(case),
            "step": step["label"],
            "library": step["library"] or "",
            "before": envs[step["before"]]["label"],
            "after": envs[step["after"]]["label"],
            "before_value": with_spread(case, step["before"]),
            "after_value": with_spread(case, step["after"]),
            "ratio": repr(step["ratio"]),
            "change": step_change(case, envs, step),
            "band": steps.describe_band(steps.Band(*step["band"]), dash="–"),
        }
        for step, case in found
    ]


def render_regressions(datas):
    """Every called step of every case, per published machine (the reference first)."""
    tables = [
        {"machine": data["machine"], "rows": _step_rows(data, page_name(data["machine"], k == 0))}
        for k, data in enumerate(datas)
    ]
    return templates.render(
        "release-regressions.html",
        level=100 * (1 - 2 * steps.CELL_LEVEL),
        min_controls=steps.MIN_CONTROLS,
        tables=tables,
    )
