"""A figure on a page: one Markdown image on a line of its own, laid out as a <figure>.

The figures themselves are drawn by ``figures``; this module is not part of the hash that keys
the pages' outputs (``cache.inputs_hash``), so editing it re-runs no fence.
"""

from __future__ import annotations

import logging
import re
import xml.etree.ElementTree as ET

import markdown
from mkdocs.utils import get_relative_url

from docs_build import i18n
from docs_build.figures import NARROW, ZH, box_links

log = logging.getLogger("mkdocs.figures")

# A figure's line on a page (alt may hold "E[ids]"), and an image of a figure that the extension
# did not lay out: the strict build fails rather than show it in one variant only.
LINE = re.compile(
    r"!\[(?P<alt>(?:[^][\n]|\[[^][\n]*\])+)\]"
    r'\((?P<path>(?:\.\./)*figures/(?P<name>[\w-]+))\.svg\s+"(?P<caption>[^"]+)"\)'
)
UNSHOWN = re.compile(r"\]\((?:\.\./)*figures/[\w-]+\.svg[\s)]")
LENGTH = re.compile(r'\s(width|height)="([\d.]+)(pt|px)?"')  # of an SVG's root
NARROW_SCREEN = "(max-width: 44.984375em)"  # Material's one-column layout (< 720 px)


class FigureExtension(markdown.Extension, markdown.treeprocessors.Treeprocessor):
    """A page shows a figure with one Markdown image on a line of its own, the caption as title:

        ![Alt text for screen readers.](figures/pe-heatmap.svg "Caption under the figure.")

    which this extension (its own treeprocessor) lays out as a <figure> of its variants.
    ``site.page`` is the page being rendered; ``site.svg(uri)`` is the text of the site's file
    ``uri`` (``figures/NAME.svg``), None if there is none."""

    def __init__(self, site) -> None:
        super().__init__()
        self.site = site

    def extendMarkdown(self, md) -> None:  # noqa: N802 (Python-Markdown's name)
        # Before the inline processor (20): a paragraph still holds the line as written, and the
        # caption gets its Markdown (math, code, links) after.
        md.treeprocessors.register(self, "figures", 25)

    def run(self, root: ET.Element) -> None:
        # The page's first figure is often its largest paint, near the top: its light variant
        # (the default scheme) loads at once; the others when they come near the viewport.
        eager = True
        for p in list(root.iter("p")):
            if m := LINE.fullmatch((p.text or "").strip()):
                self.lay_out(p, m, eager)
                eager = False
        texts = [t for el in root.iter() for t in (el.text, el.tail) if t]
        for text in (t for t in texts if not isinstance(t, markdown.util.AtomicString)):  # code
            for left in UNSHOWN.finditer(text):
                where = self.site.page.file.src_uri
                log.warning(
                    "%s: a figure not on a line of its own with a caption: %s", where, left[0]
                )

    def lay_out(self, figure: ET.Element, m: re.Match, eager: bool) -> None:
        """The paragraph ``figure`` becomes the figure: the light and dark variants, each in a
        <picture> that shows the narrow variant on a phone, transparent links over the boxes of
        a diagram that open a page (box_links), named in the page's language, and the caption."""
        page, name = self.site.page, m["name"]  # figures/NAME.svg, from the site's root
        base = name.removesuffix(ZH)  # NAME-zh's phone variant is NAME-narrow-zh
        within = page.file.src_uri.removeprefix(i18n.CHINESE + "/")  # from its language's root
        links = [link for link in box_links(name) if link[0] != within]  # not to the page itself
        figure.clear()
        figure.tag, figure.attrib = "figure", {"class": "figure"}
        holder = ET.SubElement(figure, "span", {"class": "figure-map"}) if links else figure
        for scheme, only in (("", "light"), ("-dark", "dark")):
            src = f"{m['path']}{scheme}.svg#only-{only}"
            img = ET.Element(
                "img", alt=m["alt"], src=src, **self.size(f"figures/{name}{scheme}.svg")
            )
            if scheme or not eager:
                img.set("loading", "lazy")
            narrow, parent = f"figures/{base}{NARROW}{name[len(base) :]}{scheme}.svg", holder
            if self.site.svg(narrow) is not None:
                parent = ET.SubElement(holder, "picture")
                srcset = get_relative_url(narrow, page.file.url)
                ET.SubElement(
                    parent, "source", media=NARROW_SCREEN, srcset=srcset, **self.size(narrow)
                )
            parent.append(img)
        for target, label, box in links:
            where = "left:{}%;top:{}%;width:{}%;height:{}%".format(*box)
            href = "../" * within.count("/") + target
            ET.SubElement(
                holder, "a", {"class": "figure-link", "aria-label": label}, href=href, style=where
            )
        figure.text = holder.text = "\n"
        for el in holder:
            el.tail = "\n"
        figure[-1].tail = "\n\n"
        ET.SubElement(figure, "figcaption").text = m["caption"]

    def size(self, uri: str) -> dict[str, str]:
        # The box of a (lazy) image is laid out before it arrives: the text below stays put.
        root = (self.site.svg(uri) or "").partition("<svg")[2].partition(">")[0]
        px = {"pt": 4 / 3}  # CSS px per unit; px or none: 1
        return {k: str(round(float(v) * px.get(unit, 1))) for k, v, unit in LENGTH.findall(root)}
