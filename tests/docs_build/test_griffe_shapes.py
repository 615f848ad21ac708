"""The griffe extension that keeps ``Shape:`` sections line by line on the API page."""

from __future__ import annotations

import inspect

import pytest

import encoder
from docs_build.griffe_shapes import fence_shape_sections


def test_section_at_the_end_is_fenced_line_by_line():
    doc = "Summary.\n\nShape:\n    x: (B, T)\n        continued\n    -> (B, T, d)\n"
    assert fence_shape_sections(doc) == (
        "Summary.\n\nShape:\n"
        "    ```text\n    x: (B, T)\n        continued\n    -> (B, T, d)\n    ```\n"
    )


def test_section_followed_by_another_section_ends_there():
    doc = "Shape:\n    x: (B, T)\n\nReturns:\n    y.\n"
    out = fence_shape_sections(doc)
    assert out == "Shape:\n    ```text\n    x: (B, T)\n    ```\n\nReturns:\n    y.\n"


def test_docstring_without_shape_is_unchanged():
    doc = "Args:\n    x: the Shape: of nothing.\n"
    assert fence_shape_sections(doc) == doc


@pytest.mark.parametrize(
    "name", [n for n in encoder.__all__ if "Shape:" in (getattr(encoder, n).__doc__ or "")]
)
def test_every_public_shape_section_is_fenced_once(name):
    doc = inspect.cleandoc(getattr(encoder, name).__doc__)
    out = fence_shape_sections(doc)
    assert out.count("```text") == 1 == doc.count("Shape:")
    # Nothing but the fence lines was added.
    kept = [line for line in out.splitlines() if line.strip() not in ("```text", "```")]
    assert kept == doc.splitlines()
