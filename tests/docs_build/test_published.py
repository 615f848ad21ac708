"""docs_build/published.py: files a page's code hands to the site, by content hash, and the
figures it draws (``run:NAME``), rewritten per page and copied into the site."""

from __future__ import annotations

import re
import types
from pathlib import Path

import pytest

from docs_build import published
from docs_build.plots import text


@pytest.fixture(autouse=True)
def store(tmp_path, monkeypatch) -> Path:
    monkeypatch.setattr(published, "STORE", tmp_path / "store")
    published.on_config(None)
    return tmp_path / "store"


def page(dest_uri: str):
    src_uri = "zh/x.md" if dest_uri.startswith("zh/") else "x.md"
    return types.SimpleNamespace(file=types.SimpleNamespace(src_uri=src_uri, dest_uri=dest_uri))


def test_publish_is_content_addressed_and_idempotent(store):
    a, again, b = publish_all(b"weights", b"weights", b"other")
    assert a == again != b
    assert a.startswith("published:") and a.endswith(".json")
    assert (store / a.removeprefix("published:")).read_bytes() == b"weights"
    with pytest.raises(ValueError, match="suffix"):
        published.publish(b"x", "json")


def publish_all(*blobs: bytes) -> list[str]:
    return [published.publish(blob, ".json") for blob in blobs]


def draw(theme):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(2, 1))
    ax.plot([0, 1], [0, 1], color=theme["accent"])
    return fig


def test_run_figure_becomes_a_figure_with_both_variants(store):
    marker = published.run_figure("line", draw)
    assert marker == published.run_figure("line", draw)  # the same drawing, the same files
    placeholder = '<p><img alt="A line." src="run:line" title="The caption." /></p>'
    token = published.publish(b"{}", ".json")
    html = f'{marker}\n{placeholder}\n<div data-model="{token}"></div>'
    for dest, up in (("train/index.html", "../"), ("zh/train/index.html", "../../")):
        out = published.on_page_content(html, page(dest), None, None)
        assert "run:" not in out and "published:" not in out and "data-run-figure" not in out
        assert out.count("<figure") == 1 and "<figcaption>The caption.</figcaption>" in out
        assert out.count('alt="A line."') == 2
        light = out.split('src="')[1].split('"')[0]
        assert light.startswith(f"{up}published/") and light.endswith(".svg#only-light")
        dark = light.replace(".svg#only-light", "-dark.svg#only-dark")
        assert f'src="{dark}"' in out  # the site's naming of the dark variant
        assert f'data-model="{up}published/' in out


def test_a_figure_with_words_shows_in_chinese_on_a_chinese_page(store):
    def labelled(theme):
        fig = draw(theme)
        fig.axes[0].set_xlabel(text(theme, "step", "步"))
        return fig

    placeholder = '<p><img alt="A line." src="run:line" title="The caption." /></p>'
    shown = {}
    for name, fn in (("words", labelled), ("none", draw)):
        html = f"{published.run_figure('line', fn)}\n{placeholder}"
        for dest in ("train/index.html", "zh/train/index.html"):
            out = published.on_page_content(html, page(dest), None, None)
            shown[name, dest[:2]] = [
                src.split("/")[-1] for src in re.findall(r'src="([^"]+)"', out)
            ]
    assert shown["none", "tr"] == shown["none", "zh"]  # no words: the same files
    english, chinese = shown["words", "tr"], shown["words", "zh"]
    light, dark = (n.split("#")[0] for n in english)
    assert dark == light.replace(".svg", "-dark.svg")  # the site's naming of the variants
    assert chinese == [
        light.replace(".svg", "-zh.svg#only-light"),
        dark.replace("-dark.svg", "-zh-dark.svg#only-dark"),
    ]
    assert (store / light).read_text() != (store / chinese[0].split("#")[0]).read_text()


def test_figures_must_be_drawn_and_shown(store):
    marker = published.run_figure("line", draw)
    placeholder = '<p><img alt="A line." src="run:other" title="Caption." /></p>'
    with pytest.raises(ValueError, match="no fence of the page drew a figure 'other'"):
        published.on_page_content(placeholder, page("a/index.html"), None, None)
    with pytest.raises(ValueError, match=r"drawn but never shown: \['line'\]"):
        published.on_page_content(marker, page("a/index.html"), None, None)


def test_post_build_copies_what_pages_use(store, tmp_path):
    used, unused = published.publish(b"a", ".json"), published.publish(b"b", ".json")
    published.on_page_content(f'<a href="{used}">', page("index.html"), None, None)
    site = tmp_path / "site"
    published.on_post_build(types.SimpleNamespace(site_dir=str(site)))
    assert [p.name for p in (site / "published").iterdir()] == [used.split(":")[1]]
    (store / used.split(":")[1]).unlink()  # a cached page refers to a file no longer stored
    with pytest.raises(FileNotFoundError, match="clear the cache and rebuild"):
        published.on_post_build(types.SimpleNamespace(site_dir=str(site)))
    assert unused.split(":")[1] not in {p.name for p in (site / "published").iterdir()}
