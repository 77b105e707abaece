"""The published site is self-contained: every local link resolves, and nothing loads from the network."""

import glob
import os
import shutil
from html.parser import HTMLParser
from urllib.parse import unquote, urlsplit

import asv

from dsib_tools.site import link_from_asv_index, use_vendored_libraries

from .conftest import committed

HTML = committed("html")


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links = []

    def handle_starttag(self, tag, attrs):
        self.links.extend((tag, value) for name, value in attrs if name in ("href", "src") and value)


def links(path):
    parser = _Links()
    with open(path) as f:
        parser.feed(f.read())
    return parser.links


def broken_links(html_dir):
    """(page, link, why) for every external link and every local one that names no file."""
    broken = []
    for page in glob.glob(os.path.join(html_dir, "**", "*.html"), recursive=True):
        for tag, link in links(page):
            parts = urlsplit(link)
            if parts.scheme in ("http", "https") or link.startswith("//"):
                broken.append((page, link, "external: the site is offline"))
            elif not parts.scheme and parts.path:  # "#…" alone is a place in the same page
                target = os.path.join(os.path.dirname(page), unquote(parts.path))
                if not os.path.isfile(target):
                    broken.append((page, link, "no such file"))
    return broken


def test_every_link_of_the_published_site_resolves_locally():
    pages = glob.glob(os.path.join(HTML, "**", "*.html"), recursive=True)
    assert os.path.join(HTML, "dsib", "releases.html") in pages
    assert broken_links(HTML) == []


def test_asv_template_made_offline_and_linked_idempotently(tmp_path):
    """From asv's own template, as `asv publish` writes it: any CDN it names is vendored here."""
    html_dir = str(tmp_path / "html")
    shutil.copytree(os.path.join(os.path.dirname(asv.__file__), "www"), html_dir)
    os.makedirs(os.path.join(html_dir, "dsib"))
    open(os.path.join(html_dir, "regressions.xml"), "w").close()  # publish writes it beside the template
    for name in ("index.html", "releases.html", "release-regressions.html"):
        with open(os.path.join(html_dir, "dsib", name), "w") as f:
            f.write("<html><body><a href='../asv.html'>back</a></body></html>")
    for _ in range(2):
        use_vendored_libraries(html_dir)
        link_from_asv_index(html_dir)
    assert broken_links(html_dir) == []
    # asv's index.html is its dashboard's: it moves to asv.html, index.html is the site's front page
    assert not os.path.exists(os.path.join(html_dir, "index.html"))
    with open(os.path.join(html_dir, "asv.html")) as f:
        index = f.read()
    assert index.count('href="dsib/index.html"') == 1 and index.count('href="dsib/releases.html"') == 1
    assert "integrity=" not in index, "the vendored flot is npm's unminified file: no CDN hash applies"
