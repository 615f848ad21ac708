"""The build's edits of generated HTML, made through a real HTML parser (the standard library's).

``parse`` reads HTML into its nodes, each with the offsets of its tags in the string, and ``edit``
makes replacements at those offsets, so every character not edited stays as it was. The plugin
parses a page's content once and makes, in one pass, the edits of ``page_edits`` (a Markdown
page) or ``notebook_edits`` (a notebook page, mkdocs-jupyter's output) and those of
``mathjax.typeset_edits`` (its formulas). ``page_head`` edits a whole page, reading only its head.
"""

from __future__ import annotations

import dataclasses
import functools
import html as htmllib
import itertools
import re
from collections.abc import Iterator
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}  # fmt: skip
Edit = tuple[int, int, str]  # (start, end, replacement)


@dataclasses.dataclass(eq=False, slots=True)
class Node:
    """An element, a run of text ("#text") or a comment ("#comment"): its start tag is the
    string's [start, inner), its content [inner, close), its end tag [close, end) (empty for a
    void element, or one closed by its parent's end)."""

    tag: str
    attrs: dict[str, str | None]
    parent: Node | None
    start: int
    inner: int
    close: int = -1
    end: int = -1

    def classes(self) -> list[str]:
        return (self.attrs.get("class") or "").split()

    def ancestors(self) -> Iterator[Node]:
        node = self
        while (node := node.parent) is not None:
            yield node


class _Parser(HTMLParser):
    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.html = html
        lines = (len(line) + 1 for line in html.split("\n"))  # getpos() counts lines at "\n"
        self.line_starts = list(itertools.accumulate(lines, initial=0))
        self.nodes: list[Node] = []
        self.open: list[Node] = []
        self.text: Node | None = None  # the run of text being read

    def _at(self) -> int:
        line, column = self.getpos()
        at = self.line_starts[line - 1] + column
        if self.text is not None:  # a tag ends the text before it
            self.text.close = self.text.end = at
            self.text = None
        return at

    def _node(self, tag: str, attrs: list, length: int) -> Node:
        at = self._at()
        node = Node(tag, dict(attrs), self.open[-1] if self.open else None, at, at + length)
        self.nodes.append(node)
        return node

    def handle_starttag(self, tag, attrs, void=False):
        node = self._node(tag, attrs, len(self.get_starttag_text()))
        if void or tag in VOID:
            node.close = node.end = node.inner
        else:
            self.open.append(node)

    handle_startendtag = functools.partialmethod(handle_starttag, void=True)  # <tag ... />

    def handle_endtag(self, tag):
        at = self._at()
        if all(node.tag != tag for node in self.open):
            return  # a stray end tag
        while (node := self.open.pop()).tag != tag:  # left open: closed by its parent's end
            node.close = node.end = at
        node.close, node.end = at, self.html.index(">", at) + 1

    def handle_data(self, data):
        if self.text is None:
            self.text = self._node("#text", [], 0)

    def handle_comment(self, data):
        node = self._node("#comment", [], len("<!--"))
        node.close = node.inner + len(data)
        node.end = self.html.index(">", node.close) + 1


def parse(html: str) -> list[Node]:
    """The nodes of ``html`` in document order."""
    parser = _Parser(html)
    parser.feed(html)
    parser.close()
    for node in [parser.text, *parser.open]:
        if node is not None and node.end < 0:
            node.close = node.end = len(html)
    return parser.nodes


def edit(html: str, edits: list[Edit]) -> str:
    """``html`` with the edits made; one inside another made is dropped (its text went)."""
    out, at = [], 0
    for start, end, new in sorted(edits, key=lambda e: e[:2]):
        if start >= at:
            out += [html[at:start], new]
            at = end
    return "".join([*out, html[at:]])


def start_tag(tag: str, attrs: dict[str, str | None]) -> str:
    values = (f' {k}="{htmllib.escape(v)}"' if v is not None else f" {k}" for k, v in attrs.items())
    return f"<{tag}{''.join(values)}>"


def page_edits(html: str, nodes: list[Node]) -> list[Edit]:
    """A Markdown page's content: empty results dropped, the others out of the search index
    (what a fence printed only adds noise to search results; its code stays), plain tokens
    of code unwrapped."""
    edits = []
    for node in nodes:
        if node.tag == "div" and node.attrs.get("class") == "language-text highlight":
            # markdown-exec renders `result="text"` as a block even when nothing was printed
            if html[node.inner : node.close] == "<pre><span></span><code>\n</code></pre>":
                edits.append((node.start, node.end, ""))
            else:
                edits.append((node.inner - 1, node.inner - 1, " data-search-exclude"))
        # Pygments wraps each name and each run of spaces in a span that Material draws in the
        # code's own colour: a sixth of a long page's elements, each one more node to parse,
        # style and lay out. Not on notebook pages, whose stylesheet (Jupyter's) colours names.
        elif node.tag == "span" and node.classes() in (["n"], ["w"]):
            if any(above.tag == "code" for above in node.ancestors()):
                edits += [(node.start, node.inner, ""), (node.close, node.end, "")]
    return edits


# Parts of a notebook page that are not the notebook's text: the copy button ("Copied!"), the
# prompts ("In [1]:") and the headings' anchor links ("¶"). Material's search plugin skips
# elements marked data-search-exclude.
CHROME = {"zeroclipboard-container", "jp-InputPrompt", "jp-OutputPrompt", "anchor-link"}
HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}


def notebook_edits(html: str, nodes: list[Node], toc) -> list[Edit]:
    """A notebook page's content: chrome out of the search index, nbconvert's loaders of Mermaid
    and MathJax 2 dropped (no diagram, formulas typeset at build), JupyterLab's stylesheet cut to
    the rules this page can use; the non-ASCII headings' ids made of their words, in the page
    and in ``toc`` (mkdocs-jupyter's ids keep ASCII only: "第 1 步" -> "1")."""
    present = {name for node in nodes for name in node.classes()}
    tags: dict[Node, dict] = {}  # elements whose start tag is rewritten: their new attributes
    edits, headings, loader = [], [], -1
    for node in nodes:
        classes, parent = node.classes(), node.parent
        if node.tag in ("div", "a") and CHROME.intersection(classes):
            tags[node] = {**node.attrs, "data-search-exclude": "chrome"}
        if node.tag == "a" and "anchor-link" in classes and parent and parent.tag in HEADINGS:
            if node.attrs.get("href") == f"#{parent.attrs.get('id')}":
                headings.append((parent, node))
        elif node.tag == "style" and node.close - node.inner > 20_000:  # not the small ones
            pruned = prune_css(html[node.inner : node.close], present)
            edits.append((node.inner, node.close, pruned))
        elif node.tag == "script" and ".jp-Mermaid" in html[node.inner : node.close]:
            edits.append((node.start, re.compile(r"\s*").match(html, node.end).end(), ""))
        elif node.tag == "#comment":
            note = html[node.inner : node.close].strip()
            if note == "Load mathjax":
                loader = node.start
            elif note == "End of mathjax configuration" and loader >= 0:
                edits.append((loader, node.end, ""))
    items = list(_toc_items(toc))
    if len(items) == len(headings):
        from pymdownx.slugs import slugify

        for item, (heading, anchor) in zip(items, headings, strict=True):
            if not item.title.isascii():  # the heading's text, tags out, escaped
                item.id = slugify(case="lower")(htmllib.unescape(item.title), "-")
                tags[heading] = {**heading.attrs, "id": item.id}
                tags[anchor] = {**tags.get(anchor, anchor.attrs), "href": f"#{item.id}"}
    return edits + [(node.start, node.inner, start_tag(node.tag, a)) for node, a in tags.items()]


def _toc_items(toc):
    for item in toc:
        yield item
        yield from _toc_items(item.children)


def page_head(output: str, homes: dict[str, str], drop_css: bool) -> str:
    """The page with its head's language links going to ``homes[hreflang]`` and, with
    ``drop_css``, without mkdocstrings' stylesheet. Only the head is read."""
    edits = []
    for node in parse(output.partition("</head>")[0]):
        rel, href, lang = (node.attrs.get(name) or "" for name in ("rel", "href", "hreflang"))
        if node.tag == "link" and rel == "alternate" and lang in homes:
            link = start_tag("link", {**node.attrs, "href": homes[lang]})
            edits.append((node.start, node.inner, link))
        elif node.tag == "link" and drop_css and href.endswith("assets/_mkdocstrings.css"):
            edits.append((node.start, node.end + output.startswith("\n", node.end), ""))
    return edit(output, edits)


NOT = re.compile(r":not\((?:[^()]|\([^()]*\))*\)")
# The document's root or body below another element (".jupyter-wrapper :root"): matches nothing.
ROOT_BELOW = re.compile(r"\s(?::root|html|body)\b")
CLASS = re.compile(r"\.(-?[_a-zA-Z][\w-]*)")


def prune_css(css: str, classes: set[str]) -> str:
    """The rules of ``css`` whose selectors can match, given the classes present in the page:
    a selector is kept when every class it requires (outside ``:not(...)``) is present (nothing
    here adds classes at run time). @media and @supports are pruned inside; other at-rules stay."""
    from tinycss2 import serialize

    out = []
    for rule in _rules(css):
        body = "" if rule.content is None else serialize(rule.content)
        if rule.type == "qualified-rule":
            parts = itertools.groupby(rule.prelude, lambda token: token == ",")
            selectors = (serialize(part).strip() for comma, part in parts if not comma)
            keep = [s for s in selectors if s and set(CLASS.findall(NOT.sub("", s))) <= classes]
            keep = [s for s in keep if not ROOT_BELOW.search(s)]
            out += [",".join(keep) + "{" + body + "}"] if keep else []
        elif rule.type == "at-rule":
            head = f"@{rule.at_keyword}{serialize(rule.prelude)}"
            if rule.lower_at_keyword in {"media", "supports"}:  # gone if nothing inside stays
                if not (body := prune_css(body, classes)):
                    continue
            out.append(head + (";" if rule.content is None else "{" + body + "}"))
    return "".join(out)


@functools.cache  # the same stylesheet on every notebook page
def _rules(css: str) -> list:
    import tinycss2

    rules = tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True)
    return [rule for rule in rules if rule.type != "error"]
