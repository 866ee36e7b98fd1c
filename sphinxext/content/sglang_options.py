"""The ``sglang-options`` directive: reference entries generated from SGLang's own parser.

Usage (in a MyST page, inside ```` ```{eval-rst} ```` so the options are parsed as reStructuredText)::

    .. sglang-options::
       :namespace: spec

    .. sglang-options::
       :flags: --page-size --attention-backend

Each option becomes a Sphinx ``option`` of the program ``sglang serve`` (its
anchor is ``#cmdoption-sglang-serve-<flag without dashes>``), with the name,
aliases, value type, default, choices and help text that the parser declares
(:mod:`sglang_args`). Other pages link to an entry with
``{option}`sglang serve --speculative-eagle-topk``` or, to show just the flag,
``{option}`--speculative-eagle-topk <sglang serve --speculative-eagle-topk>```.

A flag listed in ``:flags:`` that the parser does not have is an error, so the
page can never document a flag the pinned release lacks.
"""

from __future__ import annotations

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx import addnodes
from sphinx.util.docutils import SphinxDirective

from speccheck import sglang_args

PROGRAM = sglang_args.PROG


def _signature(option: sglang_args.OptionInfo) -> str:
    value = "" if option.type == "flag" else f" <{option.type.replace(' ', '-')}>"
    return ", ".join(f"{name}{value}" for name in (option.name, *option.aliases))


def literal_list(values) -> list[nodes.Node]:
    """``a, b, c`` as inline literals separated by commas (``values``: any iterable, shown with ``str``)."""
    out: list[nodes.Node] = []
    for k, value in enumerate(values):
        if k:
            out.append(nodes.Text(", "))
        out.append(nodes.literal(text=str(value)))
    return out


def _facts(option: sglang_args.OptionInfo) -> nodes.field_list:
    """Type / default / choices / aliases / namespace, as a field list."""
    rows: list[tuple[str, list[nodes.Node]]] = [
        ("Type", [nodes.Text("flag (takes no value)" if option.type == "flag" else option.type)]),
        ("Default", [nodes.literal(text=option.default)] if option.default is not None else [nodes.Text("not set")]),
    ]
    if option.choices:
        rows.append(("Choices", literal_list(option.choices)))
    if option.aliases:
        rows.append(("Also spelled", literal_list(option.aliases)))
    if option.namespace:
        rows.append(("Namespace", [nodes.literal(text=option.namespace)]))
    if option.deprecated:
        rows.append(("Status", [nodes.Text("deprecated in this release")]))
    fields = nodes.field_list(classes=["sglang-option-facts"])
    for name, body in rows:
        fields += nodes.field("", nodes.field_name(text=name), nodes.field_body("", nodes.paragraph("", "", *body)))
    return fields


class SGLangOptions(SphinxDirective):
    """Document options of the pinned SGLang's ``sglang serve`` parser (see the module docstring)."""

    option_spec = {"namespace": directives.unchanged, "flags": directives.unchanged}

    def run(self) -> list[nodes.Node]:
        loaded = sglang_args.pinned_parser()
        every = sglang_args.options(loaded)
        if "namespace" in self.options:
            chosen = [o for o in every if o.namespace == self.options["namespace"]]
            if not chosen:
                raise self.error(f"SGLang {loaded.version} has no option in namespace {self.options['namespace']!r}")
        else:
            by_flag = {name: o for o in every for name in (o.name, *o.aliases)}
            wanted = self.options.get("flags", "").split()
            missing = [f for f in wanted if f not in by_flag]
            if missing or not wanted:
                raise self.error(f"SGLang {loaded.version}'s parser has no option {', '.join(missing) or '(none given)'}")
            chosen = [by_flag[f] for f in wanted]
        self.env.ref_context["std:program"] = PROGRAM.replace(" ", "-")
        out: list[nodes.Node] = []
        for option in chosen:
            out += self._entry(option)
        return out

    def _entry(self, option: sglang_args.OptionInfo) -> list[nodes.Node]:
        text = f".. option:: {_signature(option)}\n"
        parsed = self.parse_text_to_nodes(text)
        desc = next(n for n in parsed if isinstance(n, addnodes.desc))
        content = next(n for n in desc.children if isinstance(n, addnodes.desc_content))
        if option.help:
            # SGLang's words as written: plain text, no markup, no "--" -> en dash.
            content += nodes.paragraph(text=option.help, support_smartquotes=False)
        content += _facts(option)
        return parsed


def setup(app):
    app.add_directive("sglang-options", SGLangOptions)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
