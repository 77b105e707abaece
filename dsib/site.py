"""The dsib page of the published site: the 2019 table, the every-format grid and the fidelity
table, regenerated from ``results/`` by ``python -m dsib site`` after ``asv publish``, and linked
from asv's own navigation bar. Static HTML, no scripts, no CDN."""
import html
import os

PAGE = "dsib/index.html"
LINK = '<li><a href="%s" id="dsib-report-link">dsib report</a></li>' % PAGE


def markdown_table_to_html(text):
    rows = [line.strip().strip("|").split("|") for line in text.strip().splitlines()]
    head, body = rows[0], rows[2:]
    out = ["<table>", "<thead><tr>%s</tr></thead>" % "".join("<th>%s</th>" % html.escape(c.strip()) for c in head),
           "<tbody>"]
    for row in body:
        out.append("<tr>%s</tr>" % "".join("<td>%s</td>" % html.escape(c.strip().strip("`")) for c in row))
    out.append("</tbody></table>")
    return "\n".join(out)


def render(sections, title="dsib report"):
    parts = ["<!DOCTYPE html><html><head><meta charset='utf-8'><title>%s</title>" % html.escape(title),
             "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;margin:1em 0}"
             "td,th{border:1px solid #ccc;padding:2px 6px;font-size:13px}td{text-align:right}"
             "td:first-child{text-align:left}</style></head><body>",
             "<p><a href='../index.html'>&larr; asv dashboard</a></p>", "<h1>%s</h1>" % html.escape(title)]
    for heading, paragraphs, tables in sections:
        parts.append("<h2 id='%s'>%s</h2>" % (html.escape(heading.lower().replace(" ", "-")), html.escape(heading)))
        parts.extend("<p>%s</p>" % html.escape(p) for p in paragraphs)
        parts.extend(markdown_table_to_html(t) for t in tables)
    parts.append("</body></html>")
    return "\n".join(parts)


def link_from_asv_index(html_dir):
    """Add the page to the navigation bar of asv's index.html (idempotent)."""
    index = os.path.join(html_dir, "index.html")
    with open(index) as f:
        text = f.read()
    if "dsib-report-link" in text:
        return False
    anchor = '<li id="nav-li-regressions"><a href="#/regressions">Regressions</a></li>'
    if anchor not in text:
        raise ValueError("asv's index.html has no navigation bar to link from (%s)" % index)
    with open(index, "w") as f:
        f.write(text.replace(anchor, anchor + "\n" + LINK, 1))
    return True


def write_page(html_dir, sections):
    path = os.path.join(html_dir, PAGE)
    if not os.path.isdir(os.path.dirname(path)):
        os.makedirs(os.path.dirname(path))
    with open(path, "w") as f:
        f.write(render(sections))
    link_from_asv_index(html_dir)
    return path
