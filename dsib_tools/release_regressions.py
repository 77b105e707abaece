"""The release view's steps page (``release-regressions.html``): every step up that asv's step
detection finds along a case's releases, on every machine, largest first."""

import html

from .release_data import STEP_PENALTY, VIEWS, kind_change
from .release_page import STYLE, case_href, case_label, change_text, page_name, with_spread


def _step_rows(data, view, page):
    envs = data["envs"]
    steps = sorted(
        ((ratio, case, before, after) for case in data["cases"] for before, after, ratio in case["steps"][view]),
        key=lambda s: (-s[0], s[1]["id"]),
    )
    rows = []
    for ratio, case, before, after in steps:
        kinds = kind_change(case, envs[before], envs[after])
        rows.append(
            "<tr class='step' data-case='%s'><td><a href='%s'>%s</a></td><td>%s</td><td>%s</td><td>%s</td>"
            "<td>%s</td><td class='ratio' data-ratio='%r'>%s</td></tr>"
            % (
                html.escape(case["id"], quote=True),
                html.escape(case_href(case["id"], view, page), quote=True),
                html.escape(case_label(case)),
                html.escape(envs[before]["label"]),
                html.escape(envs[after]["label"]),
                html.escape(with_spread(case, before)),
                html.escape(with_spread(case, after)),
                ratio,
                html.escape(change_text(case["unit"], 1 / ratio) + (" (%s)" % kinds if kinds else "")),
            )
        )
    return rows


def render_regressions(datas):
    """Every upward step of every case, per published machine (the reference first) and order."""
    parts = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>dsib: steps between releases</title>",
        "<link rel='icon' href='../swallow.ico'><style>%s</style></head><body>" % STYLE,
        "<p><a href='../index.html'>&larr; asv dashboard</a> · <a href='index.html'>dsib report</a> · "
        "<a href='releases.html'>releases</a></p>",
        "<h1>Steps between releases</h1>",
        "<p>asv's step detection (<code>asv.step_detect</code>: its Potts solver, as asv runs it along the "
        "commits) run along the releases of each case, in each order of the release view, on the log of the "
        "medians, so that a step is a ratio. Listed: the steps up (slower, or more memory or bytes) of "
        "%.2f× or more between neighbouring releases whose interquartile ranges do not overlap, or where "
        "either release has one sample. A step that a later release undoes is listed too: a spike is a "
        "regression of that release. Largest first.</p>" % STEP_PENALTY,
    ]
    for k, data in enumerate(datas):
        page = page_name(data["machine"], k == 0)
        for view in VIEWS:
            rows = _step_rows(data, view, page)
            parts.append(
                "<h2 id='%s-%s'>Machine %s, in %s order: %d steps</h2>"
                % (html.escape(data["machine"], quote=True), view, html.escape(data["machine"]), view, len(rows))
            )
            parts.append(
                "<table class='steps' data-machine='%s' data-view='%s'><thead><tr><th>Case</th>"
                "<th>From</th><th>To</th><th>Before</th><th>After</th><th>Change</th></tr></thead>"
                "<tbody>%s</tbody></table>"
                % (
                    html.escape(data["machine"], quote=True),
                    view,
                    "\n".join(rows) or "<tr><td colspan='6'>none</td></tr>",
                )
            )
    parts.append("</body></html>")
    return "\n".join(parts)
