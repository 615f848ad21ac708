"""The build's HTML edits (docs_build/html.py, and the formulas mathjax.py finds with its parser):
each changes what it targets and leaves every other character as it was."""

from __future__ import annotations

from types import SimpleNamespace

from docs_build import html, mathjax

# Tags that fool a regular expression: a "</p>" in a script, a ">" in an attribute, a comment
# and an element left open.
TRICKY = '<p title="a > b">x<script>s = "</p>"</script><!-- <b> --><li>open</p>'


def test_parse_finds_each_tag_where_it_is_and_edit_keeps_the_rest():
    p, text, script, _, _, li, _ = html.parse(TRICKY)
    assert TRICKY[p.start : p.inner] == '<p title="a > b">' and TRICKY[p.close : p.end] == "</p>"
    assert TRICKY[script.inner : script.close] == 's = "</p>"' and script.parent is p
    assert li.parent is p and li.end == p.close  # closed with its parent
    assert html.edit(TRICKY, [(text.start, text.end, "y")]) == TRICKY.replace(">x<", ">y<")
    assert html.edit(TRICKY, [(p.start, p.end, ""), (text.start, text.end, "y")]) == ""


def test_page_edits():
    empty = '<div class="language-text highlight"><pre><span></span><code>\n</code></pre></div>'
    printed = '<div class="language-text highlight"><pre><code>42\n</code></pre></div>'
    code = '<code><span class="n">x</span><span class="w"> </span><span class="o">=</span></code>'
    page = f'{empty}{printed}<p><span class="n">n</span></p>{code}'
    assert html.edit(page, html.page_edits(page, html.parse(page))) == (
        '<div class="language-text highlight" data-search-exclude><pre><code>42\n</code></pre>'
        '</div><p><span class="n">n</span></p><code>x <span class="o">=</span></code>'
    )


def test_notebook_edits_and_formulas():
    """Formulas are found in markdown cells, outside code."""
    cell = '<div class="jp-RenderedMarkdown"><p>$a &lt; b$ and <code>$c$</code></p></div>'
    arithmatex = '<span class="arithmatex">\\(e\\)</span>'
    math = f"<p>$d$</p>{cell}{arithmatex}"
    page = (
        '<!-- Load mathjax --><script src=""> </script><!-- End of mathjax configuration -->'
        '<script type="module">q(".jp-Mermaid > pre")</script>\n<style>p {}</style>'
        '<h2 id="1">第 1 步 <code>x</code><a class="anchor-link" href="#1">¶</a></h2>'
        '<h2 id="step-2">Step 2<a class="anchor-link" href="#step-2">¶</a></h2>'
        f'<div class="jp-InputPrompt jp-InputArea-prompt">In [1]:</div>{math}'
    )
    toc = [SimpleNamespace(title="第 1 步 x", id="1", children=[])]
    toc.append(SimpleNamespace(title="Step 2", id="step-2", children=[]))
    nodes = html.parse(page)
    assert html.edit(page, html.notebook_edits(page, nodes, toc)) == (
        '<style>p {}</style><h2 id="第-1-步-x">第 1 步 <code>x</code>'
        '<a class="anchor-link" href="#第-1-步-x" data-search-exclude="chrome">¶</a></h2>'
        '<h2 id="step-2">Step 2<a class="anchor-link" href="#step-2" '
        'data-search-exclude="chrome">¶</a></h2><div class="jp-InputPrompt jp-InputArea-prompt" '
        f'data-search-exclude="chrome">In [1]:</div>{math}'
    )
    assert [item.id for item in toc] == ["第-1-步-x", "step-2"]
    found = [(page[a:b], tex, d) for a, b, tex, d, _ in mathjax._formulas(page, nodes, True)]
    assert found == [("$a &lt; b$", "a < b", False), (arithmatex, "e", False)]


def test_page_head_drops_mkdocstrings_css_reading_the_head_only():
    """(Its language links are checked on the build: tests/site/test_i18n.py.)"""
    link = '<link rel="stylesheet" href="../assets/_mkdocstrings.css">\n'
    page = f"<head>{link}</head><body>{link}</body>"
    assert html.page_head(page, {}, drop_css=True) == f"<head></head><body>{link}</body>"
    assert html.page_head(page, {}, drop_css=False) == page
