"""Every local image carries its width and height, so the page does not jump when it arrives.

Without ``width``/``height`` attributes the browser lays the page out with a zero-height
image and moves everything below it once the file has loaded (a layout shift). Notebook
plots and ``{image}`` directives without a size get the pixel size of their file; with
``img { height: auto }`` (``docs/_static/theme-fixes.css``) an image narrowed to fit a
phone keeps its proportions. Images given a size, a scale or a remote address are left alone.
"""

from __future__ import annotations

from pathlib import Path

from docutils import nodes
from sphinx.util.images import get_image_size


def add_image_sizes(app, doctree) -> None:
    """Set unitless ``width``/``height`` on each local image node of the page that has none."""
    for image in doctree.findall(nodes.image):
        uri = image["uri"]
        if {"width", "height", "scale"} & set(image.attributes) or "://" in uri or uri.startswith("data:"):
            continue
        size = get_image_size(Path(app.srcdir, uri))
        if size and size[0] > 0 and size[1] > 0:
            image["width"], image["height"] = str(size[0]), str(size[1])


def setup(app):
    """Sphinx entry point."""
    # After Sphinx's image collector (priority 500) has made each URI relative to the source folder.
    app.connect("doctree-read", add_image_sizes, priority=600)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
