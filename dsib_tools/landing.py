"""The site's front page (``html/index.html``): the release view's answer first. For each headline
case (the 2019 post's reads and writes, each format's read and write of the taxi frame), one chart
of its median across the releases, the interquartile range through each point, and the steps the
step caller calls marked with what made them (``dsib_tools.steps``); its instruction counts beside
it where the machine counted them. asv's dashboard is ``asv.html``, one click away."""

import json

from markupsafe import Markup

from . import templates
from .charts import script_tags
from .release_data import is_number
from .release_page import REGRESSIONS_PAGE, case_href, human
from .site import ASV_PAGE

PAGE = "index.html"
UNIT_TITLES = {"seconds": "median time (s)", "bytes": "bytes", "instructions": "instructions"}


def labels(envs):
    """Each environment's label, told apart where two share one (a link that changes numpy alone,
    a step of msgpack): numpy's release added, then the environment's place."""
    found = [e["label"] for e in envs]
    for k, env in enumerate(envs):
        if found.count(env["label"]) > 1:
            found[k] = "%s / numpy %s" % (env["label"], env.get("numpy"))
    return [text if found.count(text) == 1 else "%s (%d)" % (text, k + 1) for k, text in enumerate(found)]


def _points(case, data, values, order):
    named = labels(data["envs"])
    points = []
    for position, i in enumerate(order):
        value = values[i] if i < len(values) else None
        if not is_number(value):
            continue
        spread = case["spread"][i] if values is case["values"] else None
        points.append(
            {
                "position": position,
                "release": named[i],
                "value": value,
                "low": spread[0] if spread and is_number(spread[0]) else value,
                "high": spread[1] if spread and is_number(spread[1]) else value,
                "text": human(value, case["unit"]) + (" (n=%d)" % spread[2] if spread else ""),
            }
        )
    return points


def _steps(case, data, order):
    """The called steps of ``case`` as marks: at the position of the step's later environment."""
    position = dict((i, k) for k, i in enumerate(order))
    marks = []
    for step in case["steps"]:
        if step["after"] in position:
            what = step["library"] or "link"
            ratio = step["ratio"]
            change = "%.2f× %s" % (1 / ratio if ratio < 1 else ratio, "faster" if ratio < 1 else "slower")
            label = "%s: %s" % (what, change)
            release = labels(data["envs"])[step["after"]]
            marks.append({"release": release, "what": label, "step": step["label"]})
    return marks


def _layer(points, marks, unit, title):
    x = {
        "field": "release",
        "type": "ordinal",
        "sort": [p["release"] for p in points],
        "title": "release (in the view's pyarrow order)",
        "axis": {"labelAngle": -40, "labelLimit": 220, "labelFontSize": 9},
    }
    y_title = UNIT_TITLES.get(unit, unit)
    layers = [
        {
            "mark": {"type": "rule", "color": "#999"},
            "encoding": {"x": x, "y": {"field": "low", "type": "quantitative"}, "y2": {"field": "high"}},
        },
        {
            "mark": {"type": "line", "point": True},
            "encoding": {
                "x": x,
                "y": {"field": "value", "type": "quantitative", "title": y_title, "scale": {"zero": False}},
                "tooltip": [{"field": "release"}, {"field": "text", "title": title}],
            },
        },
    ]
    if marks:
        layers.append(
            {
                "data": {"values": marks},
                "mark": {"type": "rule", "color": "#c33", "strokeDash": [4, 3]},
                "encoding": {"x": x, "tooltip": [{"field": "step"}]},
            }
        )
        layers.append(
            {
                "data": {"values": marks},
                "mark": {"type": "text", "color": "#c33", "align": "left", "dx": 3, "y": 8},
                "encoding": {"x": x, "text": {"field": "what"}},
            }
        )
    return {"title": title, "width": 420, "height": 200, "data": {"values": points}, "layer": layers}


def chart(label, case, data, order):
    """The Vega-Lite specification of one headline case: its times, and its counts beside them."""
    panels = [_layer(_points(case, data, case["values"], order), _steps(case, data, order), case["unit"], "time")]
    counts = case.get("instructions")
    if counts and any(is_number(c) for c in counts):
        panels.append(_layer(_points(case, data, counts, order), [], "instructions", "instructions"))
    return {"$schema": "https://vega.github.io/schema/vega-lite/v6.json", "title": label, "hconcat": panels}


def render(data):
    """The front page of the reference machine's release view ``data`` (release_data.build)."""
    by_id = dict((c["id"], c) for c in data["cases"])
    order = data["orders"]["pyarrow"]
    figures = []
    for k, (label, ident) in enumerate(data["headlines"]):
        case = by_id[ident]
        spec = json.dumps(chart(label, case, data, order)).replace("</", "<\\/")
        counted = any(is_number(c) for c in case.get("instructions") or ())
        figures.append(
            {
                "ident": "headline-%d" % k,
                "case": ident,
                "label": label,
                "href": "dsib/releases.html" + case_href(ident),
                "spec": spec,
                "steps": len(case["steps"]),
                "counted": counted,
            }
        )
    return templates.render(
        "landing.html",
        machine=data["machine"],
        profile=data["profile"],
        envs=len(data["envs"]),
        figures=figures,
        asv_page=ASV_PAGE,
        regressions="dsib/" + REGRESSIONS_PAGE,
        scripts=Markup(script_tags("vendor/", "dsib/charts.js")),
    )
