"""Every drawing of docs_build/plots/ draws, light and dark (and in Chinese when it has words):
drawn here, on the test run's cores, into the cache that the build then reads."""

from __future__ import annotations

import pytest

from docs_build import figures


@pytest.mark.parametrize("name", sorted(figures.drawings()))
def test_the_figure_draws_in_each_scheme(name: str):
    drawn = figures.drawn_once(name, figures.drawings()[name])
    for variants in drawn.values():
        assert set(variants) == {"", "-dark"}
        assert all(svg.lstrip().startswith("<?xml") and "<svg" in svg for svg in variants.values())
