"""MkDocs hook: every formula arrives typeset in the page's HTML (MathJax's SVG output).

The work is in ``docs_build/mathjax.py``; this hook applies it to each page's content (Markdown
pages and notebooks alike), before Material's search plugin indexes the page (each formula's
drawing stays out of the index; its text form goes in and is then removed from the page), and
puts MathJax's small stylesheet in the ``<head>`` of the pages that have formulas: Material's
instant navigation merges a new page's ``<head>`` into the current one, so a page reached that
way gets it too. No MathJax runs in the browser.
"""

from __future__ import annotations

import logging

from mkdocs.plugins import event_priority

from docs_build import mathjax  # imported once per process: Node stays up

log = logging.getLogger("mkdocs.hooks.typeset")


@event_priority(-50)  # after every other rewrite of the content, before search indexes it
def on_page_content(html: str, page, config, files) -> str:
    notebook = page.file.src_uri.endswith(".ipynb")
    html, errors = mathjax.typeset_html(html, notebook=notebook)
    for error in errors:
        log.warning("%s: MathJax could not typeset %s", page.file.src_uri, error)
    return html


@event_priority(-100)  # after Material's search plugin (0) has indexed the page
def on_page_context(context, page, config, nav):
    page.content = mathjax.SEARCH_TEXT.sub("", page.content)
    return context


def on_post_page(output: str, page, config) -> str:
    if "<mjx-container" not in output:
        return output
    style = f'<style id="mathjax-svg">{mathjax.stylesheet()}</style>'
    return output.replace("</head>", style + "</head>", 1)
