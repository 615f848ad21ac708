"""Griffe extension: keep the line breaks of ``Shape:`` sections on the API page.

The package's docstrings end with a ``Shape:`` section, one tensor per line, aligned by
hand; it reads like a table in the source and in ``help()``. Google-style parsing turns
an unknown section into an admonition whose body is Markdown, so those lines would be
joined into one paragraph. This extension wraps the body of every ``Shape:`` section in
a ``text`` code fence before the docstring is parsed: the API page then shows the lines
exactly as the source has them.

Enabled in ``mkdocs.yml`` (``plugins.mkdocstrings.handlers.python.options.extensions``).
"""

from __future__ import annotations

import re
import textwrap
from typing import Any

import griffe

# "Shape:" on its own line, then the indented lines under it (blank lines included,
# up to the first line indented no deeper than the title).
_SECTION = re.compile(
    r"^(?P<indent>[ \t]*)Shape:[ \t]*\n(?P<body>(?:(?P=indent)[ \t]+\S.*\n?|[ \t]*\n)+)",
    re.MULTILINE,
)


def fence_shape_sections(docstring: str) -> str:
    """Return ``docstring`` with the body of each ``Shape:`` section in a text fence."""

    def fence(match: re.Match[str]) -> str:
        body = match["body"].rstrip("\n")
        text = f"```text\n{textwrap.dedent(body)}\n```"
        inner = textwrap.indent(text, match["indent"] + "    ", lambda line: True)
        return f"{match['indent']}Shape:\n{inner}" + (match["body"][len(body) :] or "\n")

    return _SECTION.sub(fence, docstring)


class ShapeBlocks(griffe.Extension):
    """Fence ``Shape:`` sections of every docstring griffe loads."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None and "Shape:" in obj.docstring.value:
            obj.docstring.value = fence_shape_sections(obj.docstring.value)
