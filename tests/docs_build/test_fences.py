"""The fences of a toy page: each a pytest-markdown-docs item (conftest.py), then rendered from
the cache by ``fences.Fences``, as the build renders them (docs_build/fences.py).

The toy page has a markdown-exec session across a tab and a fold, an include fence and a
figure; it lives under .cache/ (inside the repository, so that pytest uses conftest.py), with a
cache of its own. Python-Markdown renders it with the site's fence extensions, the python fences
given to ``Fences`` as the site's plugin gives them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import markdown
import markdown_exec
import pytest

from docs_build import fences

ROOT = Path(__file__).resolve().parents[2]
RUNS = 'python exec="on" session="s" source="above" result="text"'
PAGE = f"""\
# Toy

```{RUNS}
value = 41
print("defined")
```

=== "A tab"

    ```{RUNS}
    print(value + 1)


    more = value * 2  # after two blank lines, as pages have them
    ```

??? note "A fold"

    ```{RUNS}
    from docs_build.figures import save

    print(more)
    save("toy-line", lambda theme: __import__("matplotlib.pyplot").pyplot.figure())
    ```

```python
--8<-- "encoder/layer_norm.py:formula"
```

![A line, drawn by a fence.](figures/toy-line.svg)
"""


@pytest.fixture
def toy():
    folder = ROOT / ".cache" / f"toy-{os.getpid()}"
    (folder / "docs").mkdir(parents=True, exist_ok=True)
    (folder / "docs" / "index.md").write_text(PAGE)
    yield folder
    subprocess.run(["rm", "-rf", str(folder)], check=True)


def pytest_items(toy: Path, *args: str) -> subprocess.CompletedProcess:
    command = ["pytest", "-p", "no:cacheprovider", "-rA", "-q", *args, "docs/index.md"]
    env = {**os.environ, "DOCS_CACHE": str(toy / "cache")}
    return subprocess.run(
        [sys.executable, "-m", *command], cwd=toy, env=env, capture_output=True, text=True
    )


def render(toy: Path, site: fences.Fences) -> str:
    """The toy page in HTML, its python fences formatted by ``site``."""
    python = {"validator": markdown_exec.validator, "format": site.formatter, "class": "python"}
    md = markdown.Markdown(
        extensions=["admonition", "pymdownx.details", "pymdownx.superfences", "pymdownx.tabbed"],
        extension_configs={
            "pymdownx.superfences": {"custom_fences": [{"name": "python", **python}]},
            "pymdownx.tabbed": {"alternate_style": True},
        },
    )
    site.new_page()
    return md.convert(fences.expand((toy / "docs" / "index.md").read_text()))


def test_parse_finds_each_fence_with_its_lines_and_its_code_as_on_the_page():
    found = fences.parse(PAGE)
    assert [(f.start, f.end) for f in found] == [(3, 6), (10, 15), (19, 24), (26, 28)]
    assert found[1].options == {"exec": "on", "session": "s", "source": "above", "result": "text"}
    assert found[1].code == (  # the page's lines, less the tab's indentation
        "print(value + 1)\n\n\nmore = value * 2  # after two blank lines, as pages have them"
    )


def test_cold_render_then_items_then_a_render_that_runs_no_fence(toy, monkeypatch):
    monkeypatch.setenv("DOCS_CACHE", str(toy / "cold"))
    published: dict[str, str] = {}
    cold = fences.Fences(publish=published.update)
    html = render(toy, cold)
    assert cold.ran == 3 and "82" in html, html
    assert "figures/toy-line-dark.svg" in published
    render(toy, cold)  # again: new_page() empties the sessions, so each fence is found
    assert cold.ran == 3
    # The items, on a cache of their own; the first fence counts its runs, the third checks it.
    page = toy / "docs" / "index.md"
    count = 'print("defined"); import builtins; builtins.ran = getattr(builtins, "ran", 0) + 1'
    check = "    print(more); assert __import__('builtins').ran == 1  # shared, not replayed\n"
    page.write_text(PAGE.replace('print("defined")', count).replace("    print(more)\n", check))
    tested = pytest_items(toy)
    assert "4 passed" in tested.stdout, tested.stdout
    for line in (3, 10, 19, 26):  # the fences' info lines, in a tab, a fold, an include
        assert "docs/index.md::[CodeFence#" in tested.stdout
        assert f"[line:{line}]" in tested.stdout, tested.stdout
    monkeypatch.setenv("DOCS_CACHE", str(toy / "cache"))
    published.clear()
    warm = fences.Fences(publish=published.update)
    html = render(toy, warm)
    assert warm.ran == 0
    assert "42" in html and "82" in html  # the outputs, from the items' cache
    assert "figures/toy-line-dark.svg" in published
    alone = pytest_items(toy, "-k", "line:19")  # the third fence: its session's run first
    assert "1 passed, 3 deselected" in alone.stdout, alone.stdout


def test_a_failing_fence_fails_its_item_alone_with_its_page_and_line(toy):
    page = toy / "docs" / "index.md"
    planted = "    print(value + 1)\n    assert False\n"
    page.write_text(PAGE.replace("    print(value + 1)\n", planted))
    tested = pytest_items(toy)
    assert "1 failed, 3 passed" in tested.stdout, tested.stdout  # fence 3 uses fence 2's names
    assert "FAILED docs/index.md::[CodeFence#2][line:10]" in tested.stdout
    assert 'docs/index.md", line 12' in tested.stdout  # the planted line, in the page
