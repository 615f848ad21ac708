"""Files that a page's own code hands to the site, and figures drawn by that code.

A markdown-exec fence cannot write into the site: it runs while a page is rendered and does
not know the page's URL, and its output may come from a cache without the fence running at
all. So a fence *publishes* bytes instead:

    token = publish(data, ".json")  # "published:1f0c...9a.json"

The bytes are stored once in ``cache_dir("published")`` by the hash of their content, and the
fence prints the token wherever the page needs the file's URL (an attribute of its output).
This hook (in mkdocs.yml's ``hooks``) then rewrites every token of a page into the URL of
``published/<hash>.<ext>`` relative to that page, and copies each file a page refers to into
the site. The same bytes always give the same token, so an output cached by a previous build
still points at a file that exists.

Figures drawn by a fence: ``print(run_figure("train-curves", draw))`` draws ``draw(theme)``
(a matplotlib figure, as in ``docs_build/plots``) in the light and the dark theme, and in
Chinese too when it has words (``docs_build.plots.text``), publishes them and prints an
invisible marker. The page writes the figure's alt text and caption in its
own language, on a line of its own after the fence:

    ![Alt text.](run:train-curves "Caption.")

and the hook turns that line into a <figure> showing the variant of the current colour
scheme (in Chinese on a Chinese page), exactly like the figures of ``docs_build/hooks.py``.
"""

from __future__ import annotations

import hashlib
import html
import posixpath
import re
import shutil
from collections.abc import Callable
from pathlib import Path

from docs_build import i18n
from docs_build.cache import cache_dir, write_atomic

STORE = cache_dir("published")
SITE_DIR = "published"  # where the files land in the site
TOKEN = re.compile(r"published:(?P<name>[0-9a-f]{16}(?:-zh)?(?:-dark)?\.[a-z0-9]+)")


def _store(name: str, data: bytes) -> str:
    path = STORE / name
    if not path.exists():
        write_atomic(path, data)
    return f"published:{name}"


def _key(*blobs: bytes) -> str:
    digest = hashlib.sha256()
    for blob in blobs:
        digest.update(hashlib.sha256(blob).digest())
    return digest.hexdigest()[:16]


def publish(data: bytes, suffix: str) -> str:
    """Store ``data`` by its hash; return the token that the hook turns into its URL."""
    if not re.fullmatch(r"\.[a-z0-9]+", suffix):
        raise ValueError(f"suffix must look like '.json', got {suffix!r}")
    return _store(_key(data) + suffix, data)


def run_figure(name: str, draw: Callable) -> str:
    """Draw ``draw(theme)`` in both themes, and in Chinese too when it has words; publish the
    SVGs as ``KEY.svg``, ``KEY-dark.svg``, ``KEY-zh.svg`` and ``KEY-zh-dark.svg`` (the site's
    naming of figure variants), KEY the hash of them all; return the page's marker."""
    from docs_build.figures import render

    variants = {  # {"-dark": dark SVG, ...}: "" and "-dark", and "-zh", "-zh-dark" with words
        lang + scheme: svg.encode()
        for lang, schemes in render(draw).items()
        for scheme, svg in schemes.items()
    }
    key = _key(*variants.values())
    tokens = [
        f"data-{'dark' if v.endswith('-dark') else 'light'}{v.removesuffix('-dark')}="
        f'"{_store(f"{key}{v}.svg", svg)}"'
        for v, svg in variants.items()
    ]
    return f'<div hidden data-run-figure="{html.escape(name)}" {" ".join(tokens)}></div>'


# --- the hook ------------------------------------------------------------------------------------
MARKER = re.compile(
    r'<div hidden data-run-figure="(?P<name>[^"]+)" '
    r'data-light="(?P<light>[^"]+)" data-dark="(?P<dark>[^"]+)"'
    r'(?: data-light-zh="(?P<light_zh>[^"]+)" data-dark-zh="(?P<dark_zh>[^"]+)")?></div>\n?'
)
PLACEHOLDER = re.compile(
    r'<p><img alt="(?P<alt>[^"]*)" src="run:(?P<name>[\w-]+)" title="(?P<caption>[^"]*)" />'
    r"</p>"
)
_used: set[str] = set()


def on_config(config):
    _used.clear()
    return config


def _figure(match: re.Match, markers: dict[str, re.Match], page) -> str:
    name = match["name"]
    if name not in markers:
        raise ValueError(
            f"{page.file.src_uri}: ![...](run:{name} ...) but no fence of the page drew "
            f"a figure {name!r} (print(run_figure({name!r}, draw)))"
        )
    alt, caption, marker = match["alt"], match["caption"], markers[name]
    # A Chinese page shows the Chinese variants, where the drawing has words.
    lang = "_zh" if i18n.is_zh(page.file.src_uri) and marker["light_zh"] else ""
    imgs = (
        f'<img alt="{alt}" loading="lazy" src="{marker[variant + lang]}#only-{variant}" />'
        for variant in ("light", "dark")
    )
    lines = ['<figure class="figure">', *imgs, f"<figcaption>{caption}</figcaption>"]
    return "\n".join([*lines, "</figure>"])


def on_page_content(output: str, page, config, files) -> str:
    markers = {m["name"]: m for m in MARKER.finditer(output)}
    shown = {m["name"] for m in PLACEHOLDER.finditer(output)}
    if set(markers) - shown:
        raise ValueError(
            f"{page.file.src_uri}: figures drawn but never shown: {sorted(set(markers) - shown)}"
            ' (write ![alt](run:NAME "caption") after the fence)'
        )
    output = PLACEHOLDER.sub(lambda m: _figure(m, markers, page), MARKER.sub("", output))
    here = posixpath.dirname(page.file.dest_uri) or "."

    def url(match: re.Match) -> str:
        _used.add(match["name"])
        return posixpath.relpath(f"{SITE_DIR}/{match['name']}", here)

    return TOKEN.sub(url, output)


def on_post_build(config) -> None:
    """Copy every published file that a page of this build refers to into the site."""
    out = Path(config.site_dir) / SITE_DIR
    for name in sorted(_used):
        source = STORE / name
        if not source.exists():
            raise FileNotFoundError(
                f"{source} is missing, but a page refers to it (a cached page output from "
                "a build whose published files were deleted): clear the cache and rebuild"
            )
        out.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, out / name)
