"""What the Chinese edition (docs/zh/, at /zh/) needs beyond mkdocs-static-i18n, which builds it
in a second build: notebooks kept as pages, a sitemap and a search index of its own, Chinese
lines joined, and the warning on a page whose English original changed (``python -m
docs_build.i18n PAGE...`` records that a page is up to date). The plugin (``plugin.py``) calls
these; why each part is needed: CONTRIBUTING.md, section 6."""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from docs_build import fences

DOCS = Path(__file__).resolve().parent.parent / "docs"
CHINESE = "zh"  # the second edition's language: its folder in docs/ and on the site
STALE_TITLE = "英文原文已更新"
SITEMAP = "http://www.sitemaps.org/schemas/sitemap/0.9"


def is_zh(src_uri: str) -> bool:  # a source under docs/zh/, or a location under /zh/
    return src_uri.startswith(CHINESE + "/")


def notebook_pages(files, config):
    """The notebooks as pages of this build (mkdocs-static-i18n made every notebook a plain
    File); an English notebook shown untranslated in the Chinese edition goes under /zh/."""
    pages = config.plugins["mkdocs-jupyter"].on_files(files, config)
    for file, page in zip(list(files), list(pages), strict=True):
        if page is not file:  # in place: the plugin's Files find a page in either language
            files.remove(file)
            files.append(page)
            if config.theme["language"] == CHINESE and not is_zh(file.src_uri):
                page.dest_path = f"{CHINESE}/{page.dest_path}"
                page.abs_dest_path = os.path.join(config.site_dir, page.dest_path)
                page.url = f"{CHINESE}/{page.url}"
    return files


def notebook_switcher(page, config) -> None:
    """A translated notebook's switcher links to its English twin: mkdocs-static-i18n, which
    sees no notebook page, links it to the home page."""
    uri = page.file.src_uri
    english = Path(config.docs_dir, uri.removeprefix(CHINESE + "/"))
    if is_zh(uri) and uri.endswith(".ipynb") and english.exists():
        for alternate in config.extra.alternate:
            if alternate["lang"] != CHINESE:
                alternate["link"] = page.url.removeprefix(CHINESE + "/")


CJK = "\u3000-\u303f\u4e00-\u9fff\uff00-\uffef"  # punctuation, ideographs, full-width forms
CJK_BREAK = re.compile(rf"(?<=[{CJK}])\n[ \t]*(?=[{CJK}])")


def join_cjk_lines(markdown: str) -> str:
    """Join the lines broken between two Chinese characters, outside code fences."""
    fenced = {n for f in fences.parse(markdown) for n in range(f.start, f.end)}  # from 1

    def join(m: re.Match) -> str:  # unless the break ends a line of a fence
        return m[0] if markdown.count("\n", 0, m.start()) + 1 in fenced else ""

    return CJK_BREAK.sub(join, markdown)


def source_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:12]


def page_markdown(markdown: str, page, config) -> str:
    """A Chinese page with its lines joined, and a banner when its English original changed."""
    uri = page.file.src_uri
    if not is_zh(uri) or not uri.endswith(".md"):
        return markdown
    markdown = join_cjk_lines(markdown)
    english = Path(config.docs_dir, uri.removeprefix(CHINESE + "/"))
    if page.meta.get("source_hash") == source_hash(english):
        return markdown
    link = os.path.relpath(english, Path(config.docs_dir, uri).parent)
    banner = (
        f'!!! warning "{STALE_TITLE}"\n\n    英文原文在本页翻译之后有过改动，译文可能尚未跟上。'
        f"内容以英文原文为准：[英文原文]({link})。\n\n"
    )
    title = re.search(r"^# .*\n", markdown, re.MULTILINE)  # the banner goes under the title
    at = title.end() if title else 0
    return markdown[:at] + "\n" + banner + markdown[at:]


def write_sitemap(site: Path) -> None:
    """/zh/sitemap.xml, the Chinese pages of the site's sitemap: Material fetches the sitemap
    of each language of its switcher, and mkdocs-static-i18n writes one, at the root."""
    if not (site / "sitemap.xml").exists():
        return
    ET.register_namespace("", SITEMAP)
    tree = ET.parse(site / "sitemap.xml")
    for url in list(tree.getroot()):
        if f"/{CHINESE}/" not in url.findtext(f"{{{SITEMAP}}}loc", ""):
            tree.getroot().remove(url)
    tree.write(site / CHINESE / "sitemap.xml", encoding="UTF-8", xml_declaration=True)


def write_search_indexes(site: Path) -> None:
    """One search index per edition, split from the one mkdocs-static-i18n writes for both:
    a page fetches its edition's index only (``overrides/main.html`` points a Chinese page's
    search at /zh/, so its locations become relative to /zh/), and English needs no lunr.zh."""
    path = site / "search" / "search_index.json"
    index = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {"docs": []}
    chinese = [doc for doc in index["docs"] if is_zh(doc["location"])]
    if not chinese:
        return  # split already, an English build alone, or a site without search
    english = [doc for doc in index["docs"] if not is_zh(doc["location"])]
    chinese = [{**doc, "location": doc["location"].removeprefix(f"{CHINESE}/")} for doc in chinese]
    editions = {
        path: {"config": {**index["config"], "lang": ["en"]}, "docs": english},
        site / CHINESE / "search" / "search_index.json": {**index, "docs": chinese},
    }
    for where, part in editions.items():
        where.parent.mkdir(parents=True, exist_ok=True)
        where.write_text(json.dumps(part, ensure_ascii=False, separators=(",", ":")), "utf-8")


RECORDED = re.compile(r"^source_hash:[ \t]*(\w*).*$", re.MULTILINE)  # in its front matter


def stale() -> list[Path]:
    found = []
    for page in sorted((DOCS / CHINESE).rglob("*.md")):
        recorded = RECORDED.search(page.read_text())
        if not recorded or recorded[1] != source_hash(DOCS / page.relative_to(DOCS / CHINESE)):
            found.append(page)
    return found


def main(pages: list[str]) -> None:
    """Record in each Chinese page the hash of the English page it translates, as it is now."""
    for page in map(Path, pages):
        digest = source_hash(DOCS / page.resolve().relative_to(DOCS / CHINESE))
        text = RECORDED.sub(f"source_hash: {digest}", page.read_text(), count=1)
        if f"source_hash: {digest}" not in text:  # no such line yet: a front matter with it
            text = f"---\nsource_hash: {digest}\n---\n\n{text}"
        page.write_text(text)
        print(f"{page}: source_hash {digest}")


if __name__ == "__main__":
    main(sys.argv[1:])
