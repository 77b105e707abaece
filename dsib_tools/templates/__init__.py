"""The site's own pages as Jinja2 templates (the HTML files beside this module), every value
escaped unless it is already HTML (``markupsafe.Markup``)."""

import functools
import os


@functools.lru_cache(maxsize=None)
def _environment():
    import jinja2

    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(os.path.dirname(os.path.abspath(__file__))),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )


def render(name, **context):
    """The page of template ``name`` with ``context``."""
    return _environment().get_template(name).render(**context)
