"""MkDocs hook: the Chinese edition of the site, at /zh/, built in the same run as the English one.

Layout. ``docs/zh/`` mirrors ``docs/``: ``docs/zh/positional-encoding.md`` translates
``docs/positional-encoding.md`` and is served at ``/zh/positional-encoding/``. A Chinese page
writes its own prose and includes code fences and display formulas from the English page, as
snippet sections (``--8<-- "docs/positional-encoding.md:table"``), so both languages show the
same code, outputs and TeX; figures are the same ``figures/NAME.svg``, with Chinese captions, and
a Chinese page shows ``figures/NAME-zh.svg`` instead where the figure has words (drawn in
Chinese by ``docs_build/figures.py``).

What this hook adds to one ordinary build (no second build, no other plugin):

- Navigation: the Chinese pages get the English nav's structure, with their own titles, and
  Material renders that nav, in Chinese (``theme.language: zh``), on every page under /zh/.
- Notebooks: ``zh/notebooks/X.ipynb`` is ``notebooks/X.ipynb`` itself when that notebook is
  already Chinese; otherwise it is generated from the English notebook's code cells and the
  markdown cells of ``docs/zh/notebooks/X.md`` (one section per markdown cell, in order).
- The language switcher (``extra.alternate``): every page's links point at the same page in the
  other language; ``assets/javascripts/i18n.js`` keeps them so across instant navigation.
- Staleness: each Chinese page records ``source_hash``, the first 12 hex digits of the SHA-256
  of the English source it translates (``scripts/i18n_stamp.py`` writes it). When the English
  source has changed since, the Chinese page opens with a warning that links to it.
- ``zh/sitemap.xml``, which Material fetches for the alternate language (its
  ``<link rel="alternate">``).
"""

from __future__ import annotations

import hashlib
import json
import logging
import posixpath
import re
from pathlib import Path
from typing import ClassVar
from urllib.parse import urlsplit

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files
from mkdocs.structure.nav import Link, Navigation, Section
from mkdocs.structure.pages import Page

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
GENERATED = Path(".cache", "i18n")  # under mkdocs.yml's folder: Chinese notebooks, assembled
LANG = "zh"
PREFIX = f"{LANG}/"

# What the Chinese edition says differently from the English config and nav.
SITE_NAME = "Transformer 编码器：可运行的教程"
SITE_DESCRIPTION = (
    "用 PyTorch 讲解 Transformer 编码器，每页一个概念。页面上的包代码直接引自源文件并经过测试；"
    "周围的示例在构建时运行，每个输出和每张图都由运行产生，数值结论由 assert 检查。"
)
COPYRIGHT = "代码与文本均以 MIT 许可证发布。"
SECTION_TITLES = {"Notebooks": "笔记本"}
STALE_TITLE = "英文原文已更新"
CELL_BREAK = re.compile(r"^<!--\s*cell\s*-->\s*$", re.MULTILINE)

log = logging.getLogger("mkdocs.hooks.i18n")


# --- sources and hashes --------------------------------------------------------------------------
def source_hash(path: Path) -> str:
    """The hash a Chinese page records for the English source it translates."""
    return hashlib.sha256(path.read_bytes()).hexdigest()[:12]


def is_zh(src_uri: str) -> bool:
    return src_uri.startswith(PREFIX)


def english_uri(zh_src_uri: str) -> str:
    return zh_src_uri[len(PREFIX) :]


def english_source(zh_src_uri: str, docs: Path = DOCS) -> Path:
    """The English file a Chinese source translates (a notebook's translation is a .md)."""
    path = docs / english_uri(zh_src_uri)
    notebook = path.with_suffix(".ipynb")
    return notebook if path.suffix == ".md" and notebook.exists() else path


FRONT_MATTER = re.compile(r"\A---\n(?P<yaml>.*?\n)---\n", re.DOTALL)
HASH_LINE = re.compile(r"^source_hash:[ \t]*(?P<hash>\S*)[ \t]*$", re.MULTILINE)


def recorded_hash(text: str) -> str | None:
    match = FRONT_MATTER.match(text)
    found = HASH_LINE.search(match["yaml"]) if match else None
    return found["hash"].strip("\"'") if found else None


def stale_banner(
    zh_src_uri: str, recorded: str | None, docs: Path = DOCS, *, html: bool = False
) -> str:
    """The warning a Chinese page shows when its English source changed; '' when it did not."""
    source = english_source(zh_src_uri, docs)
    if recorded == source_hash(source):
        return ""
    en_uri = source.relative_to(docs).as_posix()
    link = posixpath.relpath(en_uri, posixpath.dirname(zh_src_uri))
    what = "英文原文在本页翻译之后有过改动" if recorded else "本页没有记录它翻译的英文版本"
    text = f"{what}，译文可能尚未跟上。内容以英文原文为准"
    if html:  # notebooks: nbconvert renders markdown without admonitions
        href = posixpath.join("..", link.removesuffix(".ipynb").removesuffix(".md") + "/")
        return (
            f'<div class="admonition warning" data-i18n-stale><p class="admonition-title">'
            f'{STALE_TITLE}</p><p>{text}：<a href="{href}">英文原文</a>。</p></div>'
        )
    return f'!!! warning "{STALE_TITLE}"\n\n    {text}：[英文原文]({link})。\n\n'


# --- notebooks -----------------------------------------------------------------------------------
HAN = re.compile(r"[\u4e00-\u9fff]")


def _is_chinese(notebook: dict) -> bool:
    text = "".join("".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "markdown")
    return len(HAN.findall(text)) > 0.2 * max(1, len(re.sub(r"\s", "", text)))


def translated_notebook(english: Path, translation: Path, docs: Path = DOCS) -> dict:
    """The English notebook with its markdown cells replaced by the translation's sections."""
    notebook = json.loads(english.read_text())
    text = translation.read_text()
    match = FRONT_MATTER.match(text)
    body = text[match.end() :] if match else text
    cells = [c.strip("\n") for c in CELL_BREAK.split(body)]
    markdown = [c for c in notebook["cells"] if c["cell_type"] == "markdown"]
    if len(cells) != len(markdown):
        raise ValueError(
            f"{translation} has {len(cells)} cells (separated by <!-- cell -->) "
            f"but {english} has {len(markdown)} markdown cells"
        )
    for cell, zh in zip(markdown, cells, strict=True):
        cell["source"] = join_cjk_lines(zh).splitlines(keepends=True)
    zh_uri = translation.relative_to(docs).as_posix()
    banner = stale_banner(zh_uri, recorded_hash(text), docs, html=True)
    if banner:
        cell = {"cell_type": "markdown", "id": "i18n-stale", "metadata": {}, "source": [banner]}
        notebook["cells"].insert(0, cell)
    return notebook


def _write_if_changed(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


# --- build state ---------------------------------------------------------------------------------
class _State:
    nav: Navigation | None = None  # the Chinese nav
    english: ClassVar[dict] = {}  # settings a Chinese page swaps out while it renders
    roots: ClassVar[dict[str, str]] = {}  # language -> URL path of its home: "/", "/zh/"
    shared: ClassVar[set[str]] = set()  # English notebooks that are Chinese: shown in both
    edit_uris: ClassVar[dict[str, str]] = {}  # Chinese notebook -> the source a writer edits
    notebook_urls: ClassVar[set[str]] = set()  # URLs of the notebook pages (search boost)


def on_config(config):
    _State.nav = None
    _State.shared = set()
    _State.edit_uris = {}
    _State.notebook_urls = set()
    alternates = config.extra.get("alternate") or []
    if sorted(a.get("lang") for a in alternates) != ["en", LANG]:
        raise ValueError("mkdocs.yml: extra.alternate must list the languages 'en' and 'zh'")
    # Links of the switcher are paths from the site's root; the site may live under a path.
    base = urlsplit(config.site_url or "/").path.rstrip("/")
    for alt in alternates:
        alt["link"] = base + "/" + alt["link"].strip("/") + ("/" if alt["link"].strip("/") else "")
    _State.roots = {a["lang"]: a["link"] for a in alternates}
    return config


@event_priority(100)  # before mkdocs-jupyter turns .ipynb files into pages
def on_files(files: Files, config) -> Files:
    """Add zh/notebooks/X.ipynb for every English notebook (see the module's docstring).

    The Chinese notebook is written under .cache/i18n/ and added as an ordinary file from
    there (mkdocs-jupyter reads a notebook from its file's path), with the same bytes as the
    English one when that one is already Chinese, so it shares its cache of executed cells.
    """
    for file in list(files):
        uri = file.src_uri
        if is_zh(uri) or not uri.endswith(".ipynb") or file.abs_src_path is None:
            continue
        zh_uri, docs = PREFIX + uri, Path(config.docs_dir)
        translation = docs / (zh_uri.removesuffix(".ipynb") + ".md")
        english = Path(file.abs_src_path)
        if translation.exists():
            text = json.dumps(translated_notebook(english, translation, docs), ensure_ascii=False)
            edit_uri = translation.relative_to(docs).as_posix()
            files.remove(files.get_file_from_path(edit_uri))
        elif _is_chinese(json.loads(english.read_text())):
            text, edit_uri = english.read_text(), uri  # already Chinese: the same notebook
            _State.shared.add(uri)
        else:
            log.info("i18n: no Chinese translation of %s (docs/%s.md)", uri, zh_uri[:-6])
            continue
        generated = Path(config.config_file_path).parent / GENERATED
        _write_if_changed(generated / zh_uri, text)
        zh = File(zh_uri, str(generated), config.site_dir, config.use_directory_urls)
        zh.edit_uri = edit_uri
        _State.edit_uris[zh_uri] = edit_uri
        files.append(zh)
    return files


def _notebook_title(file: File) -> str | None:
    try:
        cells = json.loads(Path(file.abs_src_path or "").read_text())["cells"]
    except (OSError, ValueError, KeyError):
        return None
    for cell in cells:
        for line in "".join(cell["source"]).splitlines():
            if cell["cell_type"] == "markdown" and line.startswith("# "):
                return line[2:].strip()
    return None


def on_nav(nav: Navigation, config, files: Files) -> Navigation:
    """Build the Chinese nav: the English one's structure, over the Chinese pages."""
    pages: list[Page] = []

    def translate(item, parent):
        if isinstance(item, Section):
            title = SECTION_TITLES.get(item.title)
            if title is None:
                log.warning("i18n: no Chinese title for the nav section %r", item.title)
                title = item.title
            section = Section(title, [])
            section.parent = parent
            section.children = [translate(child, section) for child in item.children]
            return section
        if isinstance(item, Page):
            file = files.get_file_from_path(PREFIX + item.file.src_uri)
            if file is None or file.page is None:
                log.info("i18n: no Chinese page for %s, the nav shows the English one", item.file)
                return item
            page = file.page
            if page.title is None and file.src_uri.endswith(".ipynb"):
                page.title = _notebook_title(file)
            if file.src_uri in _State.edit_uris:
                # mkdocs-jupyter replaced the File added in on_files, losing its edit_uri.
                file.edit_uri = _State.edit_uris[file.src_uri]
                page._set_edit_url(config.repo_url, config.edit_uri, config.edit_uri_template)
            page.parent = parent
            pages.append(page)
            return page
        return Link(item.title, item.url)

    items = [translate(item, None) for item in nav.items]
    for before, page, after in zip([None, *pages[:-1]], pages, [*pages[1:], None], strict=True):
        page.previous_page, page.next_page = before, after
    _State.nav = Navigation(items, pages)
    _State.nav.homepage = next((p for p in pages if p.file.src_uri == PREFIX + "index.md"), None)
    return nav


LINK = re.compile(r"\]\((?P<target>[^()\s#]+\.(?:md|ipynb))(?P<anchor>#[^()\s]*)?\)")


def _link_untranslated_to_english(markdown: str, page: Page, files: Files) -> str:
    """A link to a page that has no Chinese version yet goes to the English page (and the
    i18n tests report the missing translation): a new English page never breaks the build."""

    def resolve(match: re.Match) -> str:
        here = posixpath.dirname(page.file.src_uri)
        target = posixpath.normpath(posixpath.join(here, match["target"]))
        if not is_zh(target) or files.get_file_from_path(target) is not None:
            return match[0]
        english = english_uri(target)
        if files.get_file_from_path(english) is None:
            return match[0]
        log.info("i18n: %s links to %s, not translated yet: linking %s", page.file, target, english)
        return f"]({posixpath.relpath(english, here)}{match['anchor'] or ''})"

    return LINK.sub(resolve, markdown)


CJK = "\u3000-\u303f\u4e00-\u9fff\uff00-\uffef"  # punctuation, ideographs, full-width forms
CJK_BREAK = re.compile(rf"(?<=[{CJK}])\n[ \t]*(?=[{CJK}])")
FENCE = re.compile(r"^[ \t]*(```|~~~).*?^[ \t]*\1[ \t]*$", re.MULTILINE | re.DOTALL)


def join_cjk_lines(markdown: str) -> str:
    """Join lines broken between two Chinese characters: HTML would show the break as a space.

    (Chinese has no spaces between words; the sources wrap at 100 columns like the English
    ones.) Code fences are left alone.
    """
    out, at = [], 0
    for fence in FENCE.finditer(markdown):
        out += [CJK_BREAK.sub("", markdown[at : fence.start()]), fence[0]]
        at = fence.end()
    return "".join([*out, CJK_BREAK.sub("", markdown[at:])])


FIGURE = re.compile(r"(?P<path>\]\((?:\.\./)*figures/)(?P<name>[\w-]+)\.svg(?=[\s)])")


def _chinese_figures(markdown: str, files: Files) -> str:
    """figures/NAME.svg -> figures/NAME-zh.svg where the build drew the figure in Chinese."""

    def swap(m: re.Match) -> str:
        chinese = f"figures/{m['name']}-zh.svg"
        return f"{m['path']}{m['name']}-zh.svg" if files.get_file_from_path(chinese) else m[0]

    return FIGURE.sub(swap, markdown)


@event_priority(50)  # before docs_build/hooks.py turns figure lines into <figure>s
def on_page_markdown(markdown: str, page: Page, config, files) -> str:
    if not is_zh(page.file.src_uri) or page.file.src_uri.endswith(".ipynb"):
        return markdown
    markdown = _chinese_figures(markdown, files)
    markdown = join_cjk_lines(_link_untranslated_to_english(markdown, page, files))
    banner = stale_banner(page.file.src_uri, page.meta.get("source_hash"), Path(config.docs_dir))
    if not banner:
        return markdown
    # Under the title: mkdocs takes a page's title from its first element, if that is an <h1>.
    title = re.search(r"^# .*\n", markdown, re.MULTILINE)
    at = title.end() if title else 0
    return markdown[:at] + "\n" + banner + markdown[at:]


NB_HEADING = re.compile(
    r'<h(?P<level>[1-6]) id="(?P<id>[^"]*)">(?P<text>.*?)'
    r'<a class="anchor-link" href="#(?P=id)">(?P<mark>.*?)</a></h(?P=level)>',
    re.DOTALL,
)


def _toc_items(toc):
    for item in toc:
        yield item
        yield from _toc_items(item.children)


def on_page_content(html: str, page: Page, config, files) -> str:
    """Chinese headings of notebooks get ids made of their words.

    mkdocs-jupyter makes heading ids with an ASCII-only slug ("第 1 步：把位置排成一列" -> "1",
    "模块把编码表存为缓冲区" -> "") and the table of contents with another one ("_1", "_2"), so
    the contents' links miss. Here both take a Unicode slug, as Python-Markdown's pages do with
    pymdownx.slugs; headings in ASCII are left as they are.
    """
    if not page.file.src_uri.endswith(".ipynb"):
        return html
    _State.notebook_urls.add(page.url)
    if page.file.src_uri in _State.shared:
        # The same Chinese notebook is under /zh/ too: search lists it once, there.
        page.meta["search"] = {**(page.meta.get("search") or {}), "exclude": True}
    from pymdownx.slugs import slugify

    slug = slugify(case="lower")
    items = list(_toc_items(page.toc or []))
    headings = list(NB_HEADING.finditer(html))
    if len(items) != len(headings):
        log.info("i18n: %s: %d headings, %d contents entries", page.file, len(headings), len(items))
        return html
    seen: set[str] = {h["id"] for h in headings if h["id"] and h["text"].isascii()}
    out, at = [], 0
    for item, heading in zip(items, headings, strict=True):
        if heading["text"].isascii():
            continue
        text = re.sub(r"<[^>]+>", "", heading["text"])
        new = base = slug(text, "-") or "section"
        n = 1
        while new in seen:
            new, n = f"{base}_{n}", n + 1
        seen.add(new)
        item.id = new
        level, mark = heading["level"], heading["mark"]
        out += [html[at : heading.start()], f'<h{level} id="{new}">{heading["text"]}']
        out.append(f'<a class="anchor-link" href="#{new}">{mark}</a></h{level}>')
        at = heading.end()
    return "".join([*out, html[at:]])


def on_env(env, config, files):
    """Cross-references ([X][encoder.X]) go to the English API reference.

    zh/api.md renders the same docstrings, so mkdocs-autorefs sees every object twice and would
    warn that it has two primary URLs; the Chinese copies become secondary (runs before
    autorefs applies the references, at its priority -50). Chinese pages link to their own
    reference with relative links (api.md#encoder.X).
    """
    autorefs = config.plugins.get("autorefs")
    primary = getattr(autorefs, "_primary_url_map", None)
    secondary = getattr(autorefs, "_secondary_url_map", None)
    if primary is None or secondary is None:
        return env
    for identifier, urls in primary.items():
        zh = [url for url in urls if is_zh(url)]
        if zh and len(zh) < len(urls):
            urls[:] = [url for url in urls if not is_zh(url)]
            secondary.setdefault(identifier, []).extend(zh)
    return env


def on_page_context(context, page: Page, config, nav):
    if is_zh(page.file.src_uri) and _State.nav is not None:
        context["nav"] = _State.nav
        # Material reads its UI language, the site's name and description and the footer from
        # the config as the template renders; swap them here, put them back in on_post_page.
        _State.english = {
            "language": config.theme["language"],
            "site_name": config.site_name,
            "site_description": config.site_description,
            "copyright": config.copyright,
        }
        config.theme["language"] = LANG
        config.site_name = SITE_NAME
        config.site_description = SITE_DESCRIPTION
        config.copyright = COPYRIGHT
    return context


def on_post_page(output: str, page: Page, config) -> str:
    if _State.english:
        config.theme["language"] = _State.english["language"]
        config.site_name = _State.english["site_name"]
        config.site_description = _State.english["site_description"]
        config.copyright = _State.english["copyright"]
        _State.english = {}
    return _point_switcher_at_page(output, page.url)


def _point_switcher_at_page(output: str, url: str) -> str:
    """The switcher's links to this page's counterparts, and the home of their language.

    (<link rel="alternate"> in the head stays at the language's home: Material fetches
    sitemap.xml next to it.)
    """
    rest = english_uri(url) if is_zh(url) else url
    for lang, root in _State.roots.items():
        target = root + rest
        output = output.replace(
            f'href="{root}" hreflang="{lang}" class="md-select__link"',
            f'href="{target}" hreflang="{lang}" class="md-select__link" data-i18n-root="{root}"',
        )
    return output


NOTEBOOK_BOOST = 0.5  # see split_search_index


def split_search_index(index: Path, zh_dir: Path, notebooks: set[str] = frozenset()) -> None:
    """Material writes one index for the whole site; each language gets its own.

    ``search/search_index.json`` keeps the English pages, ``zh/search/search_index.json``
    gets the Chinese ones (locations stay relative to the site's root, as Material resolves
    them), so a reader searches the pages of the language they read. The English index needs
    no Chinese support in the browser (``lang: [en]``: no lunr.zh, no lunr.multi). Each page
    fetches its language's index, and only when the reader opens search
    (``overrides/partials/search-index.html``).

    Two repairs on the way. A notebook page's title is also its first heading, which Material
    indexes a second time as a section: that section is merged into the page's entry (one
    hit, not two). And the notebook pages (``notebooks``: their URLs) walk through what the
    concept pages teach, with the same words in their titles: they get a boost below 1, so a
    query answered by a concept page ("位置编码", "positional encoding") lists it first.
    """
    if not index.exists():
        return
    data = json.loads(index.read_text(encoding="utf-8"))
    docs = _merge_title_sections(data["docs"])
    for doc in docs:
        if doc["location"].split("#")[0] in notebooks:
            doc["boost"] = NOTEBOOK_BOOST
    english = {**data, "config": {**data["config"], "lang": ["en"]}}
    english["docs"] = [d for d in docs if not is_zh(d["location"])]
    chinese = {**data, "docs": [d for d in docs if is_zh(d["location"])]}
    zh_dir.mkdir(parents=True, exist_ok=True)
    for path, part in ((index, english), (zh_dir / index.name, chinese)):
        path.write_text(json.dumps(part, ensure_ascii=False, separators=(",", ":")), "utf-8")


def _merge_title_sections(docs: list[dict]) -> list[dict]:
    def plain(title: str) -> str:
        return re.sub(r"[\s\u200b¶]+", "", re.sub(r"<[^>]+>", "", title))

    pages = {d["location"]: d for d in docs if "#" not in d["location"]}
    out = []
    for doc in docs:
        page = pages.get(doc["location"].split("#")[0])
        if page is not doc and page is not None and plain(doc["title"]) == plain(page["title"]):
            page["text"] = " ".join(t for t in (page["text"], doc["text"]) if t)
            continue
        out.append(doc)
    return out


@event_priority(-100)  # after Material's search plugin has written its index
def on_post_build(config) -> None:
    """zh/sitemap.xml (Material fetches a sitemap per alternate language), and one search
    index per language."""
    site = Path(config.site_dir)
    split_search_index(
        site / "search" / "search_index.json", site / LANG / "search", _State.notebook_urls
    )
    sitemap = site / "sitemap.xml"
    if not sitemap.exists():
        return
    text = sitemap.read_text()
    urls = [u for u in re.findall(r"[ \t]*<url>.*?</url>\n", text, re.DOTALL) if f"/{PREFIX}" in u]
    head = text[: text.index("<url>")].rstrip(" \t")
    (site / LANG).mkdir(exist_ok=True)
    (site / LANG / "sitemap.xml").write_text(head + "".join(urls) + "</urlset>\n")
