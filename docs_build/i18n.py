"""MkDocs hook: what the Chinese edition (docs/zh/, at /zh/) needs beyond mkdocs-static-i18n,
which builds it in a second build: notebooks kept as pages, a search index and a sitemap per
language, the English 404 page, Chinese lines joined, notebook heading ids, and the warning on a
page whose English original changed (``python -m docs_build.i18n [--check] [PAGE...]``). Why
each part: CONTRIBUTING.md, section 6."""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
from pathlib import Path
from urllib.parse import urlsplit

from mkdocs.plugins import event_priority

from docs_build import fences

DOCS = Path(__file__).resolve().parent.parent / "docs"
LANG = "zh"
STALE_TITLE = "英文原文已更新"


def is_zh(src_uri: str) -> bool:  # a source under docs/zh/, or a location under /zh/
    return src_uri.startswith(LANG + "/")


@event_priority(-110)  # after mkdocs-static-i18n (-100), which made every notebook a plain File
def on_files(files, config):
    pages = config.plugins["mkdocs-jupyter"].on_files(files, config)  # notebooks as pages
    for file, page in zip(list(files), list(pages), strict=True):
        if page is not file:  # in place: the plugin's Files find a page in either language
            files.remove(file)
            files.append(page)
            if config.theme["language"] == LANG and not is_zh(file.src_uri):  # shown untranslated
                page.dest_path = f"{LANG}/{page.dest_path}"
                page.abs_dest_path = os.path.join(config.site_dir, page.dest_path)
                page.url = f"{LANG}/{page.url}"
    return files


_NOT_FOUND: dict[str, str] = {}  # the English 404 page of this build


def on_post_template(output: str, template_name: str, config) -> str:
    # Each edition writes 404.html at the site's root, and the last one built would win
    # (mkdocs-static-i18n#284): the site's 404 page stays the default edition's, English.
    if template_name == "404.html" and config.theme["language"] != LANG:
        _NOT_FOUND["en"] = output
    return _NOT_FOUND.get("en", output) if template_name == "404.html" else output


def on_page_context(context, page, config, nav):
    # A translated notebook's switcher: the plugin, which sees no notebook page, links home.
    uri = page.file.src_uri
    english = Path(config.docs_dir, uri.removeprefix(LANG + "/"))
    if is_zh(uri) and uri.endswith(".ipynb") and english.exists():
        for alternate in config.extra.alternate:  # the plugin sets it as an attribute
            if alternate["lang"] != LANG:
                alternate["link"] = page.url.removeprefix(LANG + "/")
    return context


HEAD_ALTERNATE = re.compile(r'(<link rel="alternate" href=")[^"]*(" hreflang="(\w+)">)')


def on_post_page(output: str, page, config) -> str:
    """The head's alternates stay at the homes: Material fetches the sitemap.xml beside them."""
    root = urlsplit(config.site_url or "/").path.rstrip("/") + "/"
    home = {LANG: f"{root}{LANG}/"}
    return HEAD_ALTERNATE.sub(lambda m: m[1] + home.get(m[3], root) + m[2], output)


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


def on_page_markdown(markdown: str, page, config, files) -> str:
    uri = page.file.src_uri
    if not is_zh(uri) or not uri.endswith(".md"):
        return markdown
    markdown = join_cjk_lines(markdown)
    english = Path(config.docs_dir, uri.removeprefix(LANG + "/"))
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


NB_HEADING = re.compile(r'(<h[1-6] id=")([^"]*)(">(.*?)<a class="anchor-link" href="#)\2"', re.S)


def _toc_items(toc):
    for item in toc:
        yield item
        yield from _toc_items(item.children)


def on_page_content(html: str, page, config, files) -> str:
    """A notebook's Chinese headings get ids made of their words: mkdocs-jupyter's ids keep ASCII
    only ("第 1 步" -> "1"), its contents others ("_1"); and it ranks below its concept page."""
    from pymdownx.slugs import slugify

    if not page.file.src_uri.endswith(".ipynb"):
        return html
    # A notebook walks through what a concept page teaches, with the same words in its title:
    # search lists it below that page (Material's per-page boost).
    page.meta["search"] = {"boost": 0.5}
    items, headings = list(_toc_items(page.toc)), list(NB_HEADING.finditer(html))
    if len(items) != len(headings):
        return html
    for item, heading in zip(items, headings, strict=True):
        if not heading[4].isascii():
            item.id = slugify(case="lower")(re.sub(r"<[^>]+>", "", heading[4]), "-")
            html = html.replace(heading[0], f'{heading[1]}{item.id}{heading[3]}{item.id}"', 1)
    return html


@event_priority(-110)  # after mkdocs-static-i18n (-100) has written both editions' entries
def on_post_build(config) -> None:
    """One search index per language, and /zh/sitemap.xml (Material fetches the sitemap of each
    language of its switcher; the plugin writes one, at the root)."""
    site, urls = Path(config.site_dir), re.compile(r"[ \t]*<url>.*?</url>\n", re.S)
    if (site / "sitemap.xml").exists():
        root = (site / "sitemap.xml").read_text(encoding="utf-8")
        chinese = [url for url in urls.findall(root) if re.search(f"<loc>[^<]*/{LANG}/", url)]
        head = root[: urls.search(root).start()]
        (site / LANG / "sitemap.xml").write_text(head + "".join(chinese) + "</urlset>\n", "utf-8")
    path = site / "search" / "search_index.json"
    if not path.exists():
        return
    index = json.loads(path.read_text(encoding="utf-8"))
    zh = [doc for doc in index["docs"] if is_zh(doc["location"])]
    en = [doc for doc in index["docs"] if not is_zh(doc["location"])]
    english = {"config": {**index["config"], "lang": ["en"]}, "docs": en}  # no lunr.zh to load
    chinese = Path(config.site_dir, LANG, "search", "search_index.json")
    chinese.parent.mkdir(parents=True, exist_ok=True)
    for where, part in ((path, english), (chinese, {**index, "docs": zh})):
        where.write_text(json.dumps(part, ensure_ascii=False, separators=(",", ":")), "utf-8")


RECORDED = re.compile(r"^source_hash:[ \t]*(\w*).*$", re.MULTILINE)  # in its front matter


def stale() -> list[Path]:
    found = []
    for page in sorted((DOCS / LANG).rglob("*.md")):
        recorded = RECORDED.search(page.read_text())
        if not recorded or recorded[1] != source_hash(DOCS / page.relative_to(DOCS / LANG)):
            found.append(page)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description="Chinese pages: record or check source_hash")
    parser.add_argument("pages", nargs="*", type=Path, help="Chinese pages to mark up to date")
    parser.add_argument("--check", action="store_true", help="list stale pages; exit 1 if any")
    args = parser.parse_args()
    if args.check:
        for page in stale():
            print(f"stale: {page.relative_to(DOCS.parent)}")
        raise SystemExit(1 if stale() else 0)
    for page in args.pages:
        digest = source_hash(DOCS / page.resolve().relative_to(DOCS / LANG))
        text = RECORDED.sub(f"source_hash: {digest}", page.read_text(), count=1)
        if f"source_hash: {digest}" not in text:  # no such line yet: a front matter with it
            text = f"---\nsource_hash: {digest}\n---\n\n{text}"
        page.write_text(text)
        print(f"{page}: source_hash {digest}")


if __name__ == "__main__":
    main()
