"""Formulas typeset at build time by MathJax 3, so that the reader's browser typesets none.

Pages carry their TeX as pymdownx.arithmatex writes it (``<span class="arithmatex">\\(...\\)``,
``<div class="arithmatex">\\[...\\]``); notebook pages (mkdocs-jupyter) as raw ``$...$`` and
``$$...$$`` in their markdown cells. ``typeset_edits`` finds both and puts MathJax's SVG output
in their place. MathJax runs in Node (``docs_build/mathjax.mjs``); its results are cached per page
(``.cache/mathjax/``), keyed by the page's formulas, the script and the npm lock file, so a
rebuild of an unchanged page starts no Node at all.
"""

from __future__ import annotations

import html as htmllib
import json
import re
import subprocess
import unicodedata
from pathlib import Path
from subprocess import PIPE

from docs_build import cache
from docs_build.cache import ROOT
from docs_build.html import Edit, Node

SCRIPT = Path(__file__).with_suffix(".mjs")

Math = list[tuple[str, bool]]  # (TeX, display) for each formula of a page, in order


def _key(*parts: str) -> str:
    files = (path.read_text(encoding="utf-8") for path in (SCRIPT, ROOT / "package-lock.json"))
    return "mathjax/" + cache.key(*files, *parts)


class MathJax:
    """``node docs_build/mathjax.mjs``, started on first use, then fed one page a line. The
    plugin holds one for as long as it lives (a whole ``mkdocs serve``)."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen | None = None

    def _request(self, math: Math) -> dict:
        if self.proc is None or self.proc.poll() is not None:  # not started, or it failed
            if not (ROOT / "node_modules/mathjax-full").is_dir():
                raise RuntimeError("no node_modules/mathjax-full: `make node_modules/.installed`")
            # It ends when its input does: when the build does.
            self.proc = subprocess.Popen(
                ["node", SCRIPT], cwd=ROOT, stdin=PIPE, stdout=PIPE, encoding="utf-8"
            )
        self.proc.stdin.write(json.dumps({"math": math}) + "\n")
        self.proc.stdin.flush()
        if not (line := self.proc.stdout.readline()):  # its error is on stderr
            raise RuntimeError(f"{SCRIPT.name} exited with {self.proc.wait()}")
        return json.loads(line)

    def typeset(self, math: Math) -> dict:
        """The reply of mathjax.mjs (its protocol: "html", "defs", "errors") for a page's
        formulas, from the cache when it has it."""
        if not math:
            return {"html": [], "defs": "", "errors": []}
        return cache.cached(_key(json.dumps(math)), lambda: self._request(math))

    def stylesheet(self) -> str:
        """The stylesheet of MathJax's SVG output (the same for every page), minified."""
        css = cache.cached(_key("css"), lambda: self._request([]))["css"]  # no formulas: CSS
        css = re.sub(r"\s*([{};:,>])\s*", r"\1", css)
        return re.sub(r"\s+", " ", css).replace(";}", "}").strip()


# A formula is an element of class "arithmatex" (pymdownx.arithmatex, generic: \(...\) inline in
# a span, \[...\] or \begin{env} in a div) or, on a notebook page, in the text of a markdown
# cell as MathJax finds it there ($ and $$, \( and \[; \$ is a dollar sign).
NOTEBOOK_MATH = re.compile(
    r"\$\$(?P<d1>.+?)\$\$|\\\[(?P<d2>.+?)\\\]|\\\((?P<i1>.+?)\\\)"
    r"|(?<![\\$])\$(?P<i2>[^$]+?)(?<!\\)\$",
    re.DOTALL,
)
NO_MATH = {"code", "pre", "script", "style", "textarea", "kbd", "samp"}


def _formulas(html: str, nodes: list[Node], notebook: bool) -> list[tuple]:
    """(start, end, TeX, display, wrapper tag) of each formula of a page, in order."""
    found = []
    for node in nodes:
        if node.tag in ("span", "div") and "arithmatex" in node.classes():
            tex = htmllib.unescape(html[node.inner : node.close]).strip()
            display = not tex.startswith("\\(")  # \[...\] or \begin{env}...\end{env}
            tex = tex[2:-2] if tex[:2] in ("\\(", "\\[") else tex
            found.append((node.start, node.end, tex, display, node.tag))
        elif notebook and node.tag == "#text" and _markdown_text(node):
            for m in NOTEBOOK_MATH.finditer(html, node.start, node.end):
                tex = htmllib.unescape(m[m.lastgroup]).strip()  # the one group that matched
                found.append((m.start(), m.end(), tex, m.lastgroup.startswith("d"), "span"))
    return found


def _markdown_text(node: Node) -> bool:
    """Whether a text is of a notebook's markdown cell, outside code."""
    above = list(node.ancestors())
    in_cell = any("jp-RenderedMarkdown" in a.classes() for a in above)
    return in_cell and not any(a.tag in NO_MATH for a in above)


# Material's search indexes a page's text; without a formula's words a result's snippet would
# read "its own  features". Each formula gets a plain-text form (d_model, √d_k, QKᵀ) in a span
# that the search plugin reads; typeset_edits returns these spans, for the build to remove them
# from the page once the search plugin has read it.
SYMBOLS = {
    "cdot": "·", "times": "×", "top": "ᵀ", "in": "∈", "approx": "≈", "le": "≤", "ge": "≥",
    "ne": "≠", "to": "→", "infty": "∞", "dots": "…", "ldots": "…", "cdots": "…", "partial": "∂",
    "sum": "Σ", "int": "∫", "ell": "ℓ", "odot": "⊙", "sim": "~", "div": "÷", "mid": "|",
    "Rightarrow": "⇒", "langle": "⟨", "rangle": "⟩", "lceil": "⌈", "rceil": "⌉", "lVert": "‖",
    "rVert": "‖", "pm": "±", "neq": "≠", "leq": "≤", "geq": "≥", "sqrt": "√",
}  # fmt: skip
ARGUMENT = r"\\(?:text|mathrm|mathbf|mathcal|mathit|boldsymbol|operatorname|tilde|hat|bar)"
DROPPED = r"\\(?:left|right|[bB]ig+[lr]?|begin\{\w+\}|end\{\w+\}|underbrace)"


def _symbol(name: str) -> str:
    if name in SYMBOLS:
        return SYMBOLS[name]
    case = "CAPITAL" if name[0].isupper() else "SMALL"
    try:  # \gamma, \Omega
        return unicodedata.lookup(f"GREEK {case} LETTER {name.upper()}")
    except KeyError:
        return name  # \sin, \exp, \max: their names


def text_form(tex: str) -> str:
    """A formula as plain text: ``d_\\text{model}`` -> ``d_model``."""
    text = re.sub(r"\\mathbb\{R\}", "ℝ", tex)
    text = re.sub(rf"{DROPPED}|\\!", "", text)
    text = re.sub(r"\\[,;: ]|\\\\|&|\\q?quad\b", " ", text)
    for _ in range(8):  # innermost braces first
        text = re.sub(rf"{ARGUMENT}\{{([^{{}}]*)\}}", r"\1", text)
        text = re.sub(r"\\t?frac\{([^{}]*)\}\{([^{}]*)\}", "\x01\\1\x02/\x01\\2\x02", text)
        text = re.sub(r"\\sqrt\{([^{}]*)\}", "√\x01\\1\x02", text)
        text = re.sub(r"([_^])\{([^{}]*)\}", r"\1\2", text)
    text = re.sub("\x01([^\x01\x02\\s+-]*)\x02", r"\1", text)  # 1/(d_k) -> 1/d_k, not 1/(a + b)
    text = text.replace("\x01", "(").replace("\x02", ")")
    text = re.sub(r"\^?\\top\b", "ᵀ", text)
    text = re.sub(r"\\([a-zA-Z]+)", lambda m: _symbol(m[1]), text)
    text = text.replace("{", "").replace("}", "").replace("\\", "")
    return htmllib.escape(re.sub(r"\s+", " ", text).strip(), quote=False)


CLOSING = re.compile(r"[，。、；：！？）」』》】,.;:!?)\]]+")  # punctuation that closes a phrase


def typeset_edits(
    html: str, nodes: list[Node], mathjax: MathJax, *, notebook: bool = False
) -> tuple[list[Edit], list[str], list[str]]:
    """The edits that put every formula of ``html`` (parsed into ``nodes``) typeset in its place
    and MathJax's shared definitions at its end (for ``docs_build.html.edit``), the TeX errors
    ("TeX: message"), and the spans of the formulas' text forms they insert (each to remove with
    ``str.replace`` once indexed)."""
    edits = []
    formulas = _formulas(html, nodes, notebook)
    result = mathjax.typeset([(tex, display) for _, _, tex, display, _ in formulas])
    texts = []
    for (start, end, tex, _, tag), mjx in zip(formulas, result["html"], strict=True):
        texts.append(f'<span class="search-text" hidden>{text_form(tex)}</span>')
        # The drawing stays out of the search index (Material's search plugin skips elements
        # marked data-search-exclude); its text form goes in.
        drawn = mjx.replace("<mjx-container ", '<mjx-container data-search-exclude="math" ', 1)
        drawn = f'<{tag} class="arithmatex">{drawn}{texts[-1]}</{tag}>'
        closing = CLOSING.match(html, end) if tag == "span" else None
        if closing:  # "，" never starts a line: the browser may break after the formula's box
            drawn, end = f'<span class="nowrap">{drawn}{closing[0]}</span>', closing.end()
        edits.append((start, end, drawn))
    edits.append((len(html), len(html), result["defs"]))
    return edits, result["errors"], texts
