"""Drawings of the site, one module per page; each ends with ``FIGURES = {name: draw}``."""
