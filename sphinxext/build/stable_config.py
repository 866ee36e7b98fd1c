"""A rebuild of an unchanged project does not report "The configuration has changed".

Sphinx stores the configuration in its pickled environment and, on the next run,
compares it with the freshly read ``conf.py``. The stored copy is taken after the
builder started, by which time the theme and some extensions have changed values
in place (pydata-sphinx-theme adds its template and static folders and sets
``html_permalinks_icon``; sphinx-copybutton and sphinx-design add static folders;
nbsphinx fills ``nbsphinx_requirejs_options``...). The fresh copy is compared
before they run, so eight options always differ and every rebuild says so, although
nothing changed.

This extension stores, instead, the configuration as it stood once ``conf.py`` and
every ``config-inited`` handler had run: the state the next run compares against.
A real change to ``conf.py`` is still reported, and still triggers the rebuild it
needs. ``tests/test_reproducible.py`` checks that a rebuild prints no such line.
"""

from __future__ import annotations

import pickle

from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.environment import BuildEnvironment

_original_getstate = BuildEnvironment.__getstate__


def _getstate(env: BuildEnvironment) -> dict:
    """The environment's pickled state, with the configuration as read (see the module docstring)."""
    state = _original_getstate(env)
    snapshot = getattr(env, "_stable_config_snapshot", None)
    if snapshot is not None:
        state["config"] = snapshot
    state.pop("_stable_config_snapshot", None)
    return state


def _snapshot(app: Sphinx, config: Config) -> None:
    """Keep a copy of the configuration before any builder changes it (runs after every other handler)."""
    app._stable_config_snapshot = pickle.loads(pickle.dumps(config, pickle.HIGHEST_PROTOCOL))


def _attach(app: Sphinx) -> None:
    app.env._stable_config_snapshot = getattr(app, "_stable_config_snapshot", None)


def setup(app: Sphinx) -> dict:
    BuildEnvironment.__getstate__ = _getstate
    app.connect("config-inited", _snapshot, priority=10_000)
    app.connect("builder-inited", _attach, priority=0)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
