"""The options each format states (``Format.settings``), so that every release does the same work,
and what the post's cases use instead (each release's defaults), as a Markdown table."""

import pandas as pd


def frame(formats):
    """A row a format: its name, label, the options its writer and reader state, and the library
    defaults its post's cases use where it has them."""
    return pd.DataFrame(
        [
            {
                "format": "`%s`" % fmt.name,
                "what": fmt.label,
                "stated options (every release alike)": "; ".join("%s: %s" % pair for pair in fmt.settings) or "-",
                "the post's cases": fmt.defaults.description if fmt.defaults else "-",
            }
            for fmt in formats
        ]
    )


def markdown(formats):
    return frame(formats).to_markdown(index=False)
