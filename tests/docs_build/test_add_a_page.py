"""README's "Add a page", step by step, on a toy site: a page with a markdown-exec session across
a tab and a fold, an include fence, a figure its fence draws and one of the site's, and its
Chinese twin that includes one of its fences. Each python fence is a pytest-markdown-docs item
(conftest.py), whose outputs the strict build (the site's plugin) then shows in both languages
without running them again (docs_build/fences.py); a fence edited since runs in the build.
The toy lives under .cache/ (so that pytest uses conftest.py) and shares the run's cache: its
sessions are named after the toy, so no other run's fences are found there.
"""

from __future__ import annotations

import logging
import re
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from mkdocs.commands.build import build
from mkdocs.config import load_config

from docs_build import fences

ROOT = Path(__file__).resolve().parents[2]
RUNS = 'python exec="on" session="s" source="above" result="text"'
PAGE = f"""\
# Toy

```{RUNS}
value = 41
runs = globals().get("runs", 0) + 1  # 2 if its session ran it again
```

=== "A tab"

    ```{RUNS}
    print("plus one:", value + 1)


    more = value * 2  # after two blank lines, as pages have them
    ```

??? note "A fold"

    ```{RUNS}
    from docs_build.figures import save

    print("doubled:", more)
    assert runs == 1, runs  # the first fence ran once, whichever fence ran it
    save("toy-line", lambda theme: __import__("matplotlib.pyplot").pyplot.figure())
    ```

```python
--8<-- "encoder/layer_norm.py:formula"
```

<!-- --8<-- [start:check] -->
```python exec="on" session="toy" source="above" result="text"
import torch
from encoder import LayerNorm

y = LayerNorm(4)(torch.arange(8.0).view(2, 4))
print(f"row means: {{y.mean(-1).abs().max():.3f}}")
assert y.mean(-1).abs().max() < 1e-6
```
<!-- --8<-- [end:check] -->

![A line, drawn by a fence.](figures/toy-line.svg "A figure drawn by a fence.")

![A heat map.](figures/attn-weights.svg "A figure of the site.")
"""
# A fence of the same session on the page built before: each page's sessions start empty.
HOME = '# Home\n\n```python exec="on" session="s"\nhome = True\n```\n'
TWIN = """\
# 玩具

--8<-- "docs/toy.md:check"

![一张热图。](figures/attn-weights-zh.svg "网站的一张图。")
"""
CONFIG = f"""\
site_name: toy
site_url: http://127.0.0.1:8000/
theme: {{name: material, font: false}}
nav: [{{Home: index.md}}, {{Toy: toy.md}}]
markdown_extensions:
  - admonition
  - pymdownx.details
  - pymdownx.superfences
  - pymdownx.tabbed: {{alternate_style: true}}
  - pymdownx.snippets: {{base_path: [".", {ROOT}], check_paths: true, dedent_subsections: true}}
plugins:
  - markdown-exec: {{languages: []}}
  - i18n:
      docs_structure: folder
      languages:
        - {{locale: en, name: English, default: true}}
        - {{locale: zh, name: 中文, nav: [{{首页: index.md}}, {{玩具: toy.md}}]}}
  - mkdocs-jupyter
  - encoder-site
"""


@pytest.fixture
def toy(monkeypatch):
    toy = ROOT / ".cache" / f"toy-page-{uuid.uuid4().hex[:8]}"
    (toy / "docs" / "zh").mkdir(parents=True)
    pages = {"index.md": HOME, "toy.md": PAGE, "zh/index.md": "# 首页\n", "zh/toy.md": TWIN}
    for path, text in pages.items():
        (toy / "docs" / path).write_text(text.replace('session="', f'session="{toy.name}-'))
    (toy / "mkdocs.yml").write_text(CONFIG)
    monkeypatch.chdir(toy)
    yield toy
    shutil.rmtree(toy, ignore_errors=True)


def pytest_items(*args: str) -> str:
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rA", "-q", *args]
    return subprocess.run([*command, "docs/toy.md"], capture_output=True, text=True).stdout


def test_parse_finds_each_fence_with_its_lines_and_its_code_as_on_the_page():
    found = fences.parse(PAGE)
    assert [(f.start, f.end) for f in found] == [(3, 6), (10, 15), (19, 25), (27, 29), (32, 39)]
    assert found[1].options == {"exec": "on", "session": "s", "source": "above", "result": "text"}
    assert found[1].code == (  # the page's lines, less the tab's indentation
        'print("plus one:", value + 1)\n\n\n'
        "more = value * 2  # after two blank lines, as pages have them"
    )


def test_a_new_page_and_its_chinese_twin_from_test_to_build(toy, caplog):
    tested = pytest_items()
    assert "5 passed" in tested, tested
    for line in (3, 10, 19, 27, 32):  # the fences' info lines, in a tab, a fold, an include
        assert re.search(rf"docs/toy.md::\[CodeFence#\d\]\[line:{line}\]", tested), tested
    # The fold's fence edited (as under `mkdocs serve`): the build runs it after its session's
    # earlier fences, which it shows from the items' cache, as it shows the twin's fence.
    page = toy / "docs" / "toy.md"
    page.write_text(page.read_text().replace("more)", 'more, "(edited)")'))
    with caplog.at_level(logging.INFO, logger="mkdocs"):
        build(load_config(str(toy / "mkdocs.yml"), site_dir=str(toy / "site"), strict=True))
    assert re.findall(r"fences: (\d+) ran", caplog.text) == ["2", "0"]  # home's, the fold's
    english = (toy / "site" / "toy" / "index.html").read_text()
    assert "plus one: 42" in english and "doubled: 82 (edited)" in english
    for shown, figure in (("toy", "attn-weights"), ("zh/toy", "attn-weights-zh")):
        html = (toy / "site" / shown / "index.html").read_text()
        assert "row means: 0.000" in html, shown
        assert f"figures/{figure}-dark.svg#only-dark" in html, shown
    for figure in ("attn-weights-zh-dark", "toy-line-dark"):  # the site's, the fence's
        assert (toy / "site" / "figures" / f"{figure}.svg").exists(), figure
    # A failing fence fails its own item, with its page and line: the tab's fence, selected
    # with the fold's and without the first, runs the first before it (once), and its
    # statements after the failing one still run, so the fold's fence passes.
    shown = '    print("plus one:", value + 1)\n'
    page.write_text(page.read_text().replace(shown, shown + "    assert False\n"))
    tested = pytest_items("-k", "line:10 or line:20")  # the fold moved down
    assert "1 failed, 1 passed, 3 deselected" in tested, tested
    assert "FAILED docs/toy.md::[CodeFence#2][line:10]" in tested
    assert 'docs/toy.md", line 12' in tested  # the planted line, in the page
