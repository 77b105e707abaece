"""The dsib page of the published site: the 2019 table, the every-format grid and the fidelity
table, regenerated from ``results/`` by ``python -m dsib_tools site build`` after ``asv publish``, and linked
from asv's own navigation bar. Static HTML; its charts are drawn by the vendored Vega-Lite
(``charts.py``); no CDN.

asv 0.6's dashboard loads jQuery, flot, bootstrap and friends from CDNs, which this project's
machines cannot reach: ``use_vendored_libraries`` points it at byte-for-byte copies (same
versions; SRI-identical except flot, whose npm package ships it unminified) kept in
``dsib/www/vendor/``, so the published site works offline."""

import html
import os
import re
import shutil

from markdown_it import MarkdownIt

PAGE = "dsib/index.html"
# asv's dashboard: asv publish writes it as index.html, the site moves it here (``asv_page``), and
# its own front page takes index.html (dsib_tools/landing.py).
ASV_PAGE = "asv.html"
ASV_ANCHOR = '<li id="nav-li-regressions"><a href="#/regressions">Regressions</a></li>'


def asv_page(html_dir):
    """The path of asv's dashboard in ``html_dir``: asv publish's index.html moved to ASV_PAGE."""
    page, index = os.path.join(html_dir, ASV_PAGE), os.path.join(html_dir, "index.html")
    if os.path.exists(index):
        with open(index) as f:
            if ASV_ANCHOR in f.read():
                os.replace(index, page)
    return page


# The dashboard's navigation bar gets one entry per dsib page: (id, page, text).
LINKS = [
    ("dsib-report-link", PAGE, "dsib report"),
    ("dsib-releases-link", "dsib/releases.html", "releases"),
    ("dsib-release-regressions-link", "dsib/release-regressions.html", "release steps"),
]
WWW = os.path.join(os.path.dirname(os.path.abspath(__file__)), "www")
# asv 0.6.6's CDN addresses and the vendored copy of each (under html/vendor/).
VENDORED = {
    "https://code.jquery.com/jquery-3.3.1.min.js": "jquery-3.3.1/jquery.min.js",
    "https://cdnjs.cloudflare.com/ajax/libs/flot/0.8.3/jquery.flot.min.js": "flot-0.8.3/jquery.flot.js",
    "https://cdnjs.cloudflare.com/ajax/libs/flot/0.8.3/jquery.flot.time.min.js": "flot-0.8.3/jquery.flot.time.js",
    "https://cdnjs.cloudflare.com/ajax/libs/flot/0.8.3/jquery.flot.selection.min.js": "flot-0.8.3/jquery.flot.selection.js",
    "https://cdnjs.cloudflare.com/ajax/libs/flot/0.8.3/jquery.flot.categories.min.js": "flot-0.8.3/jquery.flot.categories.js",
    "https://cdn.jsdelivr.net/npm/flot-orderbars@1.0.0/js/jquery.flot.orderBars.js": "flot-orderbars-1.0.0/jquery.flot.orderBars.js",
    "https://cdnjs.cloudflare.com/ajax/libs/stupidtable/1.0.1/stupidtable.min.js": "stupidtable-1.0.1/stupidtable.min.js",
    "https://cdnjs.cloudflare.com/ajax/libs/blueimp-md5/2.19.0/js/md5.min.js": "blueimp-md5-2.19.0/md5.min.js",
    "https://cdn.jsdelivr.net/npm/bootstrap@3.1.1/dist/js/bootstrap.min.js": "bootstrap-3.1.1/js/bootstrap.min.js",
    "https://cdn.jsdelivr.net/npm/bootstrap@3.1.1/dist/css/bootstrap.min.css": "bootstrap-3.1.1/css/bootstrap.min.css",
}


# The report page links the release view of the same site.
RELEASES = "dsib/releases.html"
# CommonMark with GitHub's tables and no raw HTML: code spans become <code>, every other character
# of the report's text is escaped.
_MARKDOWN = MarkdownIt("commonmark", {"html": False}).enable("table")
_SKIP_NOTE = re.compile(r"^skip (\d+): ")
_SKIP_CELL = re.compile(r"(?<=\|) *skip (\d+) *(?=\|)")


def slug(text):
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def table_name(text):
    """What a Markdown table is about: its first header cell."""
    return text.strip().splitlines()[0].strip().strip("|").split("|")[0].strip()


def table_to_html(text, ident, skip_reasons=()):
    """A Markdown table as HTML under ``ident``; a "skip N" cell links to reason N of the notes
    below it (``skip_reasons``), and shows that reason on hover."""

    def link(match):
        number = int(match.group(1))
        if not 0 < number <= len(skip_reasons):
            return match.group(0)
        return " [skip %d](#%s-skip-%d) " % (number, ident, number)

    tokens = _MARKDOWN.parse(_SKIP_CELL.sub(link, text))
    if not tokens or tokens[0].type != "table_open":
        raise ValueError("not a Markdown table: %r" % text[:80])
    tokens[0].attrSet("id", ident)
    anchor = "#%s-skip-" % ident
    for token in tokens:
        for child in token.children or ():
            if child.type == "link_open" and child.attrGet("href").startswith(anchor):
                reason = skip_reasons[int(child.attrGet("href")[len(anchor) :]) - 1]
                child.attrSet("title", reason.replace("`", ""))  # a tooltip shows text, not Markdown
    return _MARKDOWN.renderer.render(tokens, _MARKDOWN.options, {})


def notes_to_html(lines, table_ident=None):
    """The lines below a table (its skip reasons, each under an id its cells link to) or a
    paragraph's worth of remarks, as a list."""
    items = []
    for line in lines:
        skip = _SKIP_NOTE.match(line)
        ident = " id='%s-skip-%s'" % (table_ident, skip.group(1)) if skip and table_ident else ""
        items.append("<li%s>%s</li>" % (ident, _MARKDOWN.renderInline(line)))
    return "<ul class='notes'>%s</ul>" % "".join(items)


def section_blocks(heading, blocks):
    """[(table ident or None, html)] of one section's blocks: Markdown tables, each followed by the
    lines it refers to, and other text."""
    out, used = [], set()
    for i, block in enumerate(blocks):
        lines = [line.strip() for line in block.strip().splitlines() if line.strip()]
        if block.lstrip().startswith("|"):
            following = blocks[i + 1] if i + 1 < len(blocks) else ""
            reasons = [
                _SKIP_NOTE.sub("", line.strip())
                for line in following.strip().splitlines()
                if _SKIP_NOTE.match(line.strip())
            ]
            ident = "%s-%s" % (slug(heading), slug(table_name(block)) or i)
            if ident in used:
                ident = "%s-%d" % (ident, i)
            used.add(ident)
            out.append((ident, table_to_html(block, ident, reasons)))
        else:
            previous = blocks[i - 1] if i else ""
            owner = out[-1][0] if previous.lstrip().startswith("|") else None
            out.append((None, notes_to_html(lines, owner)))
    return out


def render(sections, title="dsib report", others=(), charts=None):
    """The report page: a table of contents (sections, and the tables of those with several), then
    each section's paragraphs and blocks; ``charts``: {a table's name: the chart (HTML) drawn above it}."""
    from markupsafe import Markup

    from . import templates

    charts = dict(charts or {})  # each drawn once, above the first table of its name (the grid's)
    page = []
    for heading, paragraphs, blocks in sections:
        rendered = section_blocks(heading, blocks)
        drawn = []
        for (table, block), text in zip(rendered, blocks):
            if table and table_name(text) in charts:
                drawn.append(Markup(charts.pop(table_name(text))))
            drawn.append(Markup(block))
        page.append(
            {
                "ident": slug(heading),
                "heading": heading,
                "tables": [
                    (table, Markup(_MARKDOWN.renderInline(table_name(block))))
                    for (table, _), block in zip(rendered, blocks)
                    if table
                ],
                "paragraphs": [Markup(_MARKDOWN.renderInline(p)) for p in paragraphs],
                "blocks": drawn,
            }
        )
    scripts = ""
    if any("dsib-chart-figure" in block for section in page for block in section["blocks"]):
        from .charts import script_tags

        scripts = Markup(script_tags())
    return templates.render(
        "report.html",
        title=title,
        icon="../swallow.ico",
        releases=os.path.relpath(RELEASES, os.path.dirname(PAGE)),
        others=others,
        sections=page,
        scripts=scripts,
    )


def link_from_asv_index(html_dir):
    """Add the dsib pages to the navigation bar of asv's dashboard (idempotent)."""
    index = asv_page(html_dir)
    with open(index) as f:
        text = f.read()
    anchor = ASV_ANCHOR
    if anchor not in text:
        raise ValueError("asv's dashboard has no navigation bar to link from (%s)" % index)
    # Drop the entries of an earlier run, then insert the current list once.
    links = "".join(
        '\n<li><a href="%s" id="%s">%s</a></li>' % (page, ident, html.escape(label)) for ident, page, label in LINKS
    )
    new = re.sub(r'\n?<li><a href="[^"]*" id="dsib-[a-z-]*">[^<]*</a></li>', "", text)
    new = new.replace(anchor, anchor + links, 1)
    with open(index, "w") as f:
        f.write(new)
    return new != text


_CDN_ATTRIBUTES = re.compile(r'\s(?:integrity|crossorigin|referrerpolicy)="[^"]*"')


def use_vendored_libraries(html_dir):
    """Copy the vendored libraries into html/vendor/ and point asv's pages at them (idempotent).

    Fails on any other external script or stylesheet, so that a new asv release with another CDN
    address is noticed here rather than as a blank dashboard offline."""
    target = os.path.join(html_dir, "vendor")
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(os.path.join(WWW, "vendor"), target)
    asv_page(html_dir)
    for name in (ASV_PAGE, "error.html"):
        path = os.path.join(html_dir, name)
        with open(path) as f:
            text = f.read()

        def local(match):
            tag = match.group(0)
            url = match.group(2)
            if url not in VENDORED:
                raise ValueError("%s loads %s, which dsib/site.py does not vendor" % (path, url))
            return _CDN_ATTRIBUTES.sub("", tag.replace(url, "vendor/" + VENDORED[url]))

        text = re.sub(r'<(?:script|link)\b[^>]*\s(src|href)="(https?://[^"]*)"[^>]*>', local, text)
        # The "airspeed velocity" brand links to GitHub; offline it is a dead end, keep the text.
        text = re.sub(r'(<a)\s+href="https?://[^"]*"', r"\1", text)
        with open(path, "w") as f:
            f.write(text)


def machine_page(machine, first):
    """The report page of ``machine`` under html/: the first machine's is dsib/index.html."""
    return PAGE if first else "dsib/machine-%s.html" % machine


def write_page(html_dir, sections, page=PAGE, title="dsib report", others=(), charts=None):
    """``page`` (under ``html_dir``) of ``sections``; ``others``: (machine, href) of the other
    machines' pages, linked at the top; ``charts``: see ``render``."""
    path = os.path.join(html_dir, page)
    if not os.path.isdir(os.path.dirname(path)):
        os.makedirs(os.path.dirname(path))
    with open(path, "w") as f:
        f.write(render(sections, title, others, charts))
    if charts:
        shutil.copy(os.path.join(WWW, "charts.js"), os.path.join(os.path.dirname(path), "charts.js"))
    use_vendored_libraries(html_dir)
    link_from_asv_index(html_dir)
    return path
