"""README's "Add a page", step by step, on a toy site: a page with a markdown-exec session across
a tab and a fold, an include fence, a figure its fence draws and one of the site's, and its
Chinese twin that includes one of its fences. The strict build (the site's plugin) runs each
fence once and shows it in both languages; each python fence is a pytest-markdown-docs item
(conftest.py), whose outputs the next build shows without running it (docs_build/fences.py).
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
    print("plus one:", value + 1)


    more = value * 2  # after two blank lines, as pages have them
    ```

??? note "A fold"

    ```{RUNS}
    from docs_build.figures import save

    print("doubled:", more)
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


def build(toy: Path, caplog) -> list[str]:
    """The strict build of the toy site; how many fences each language's build ran."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    caplog.clear()
    with caplog.at_level(logging.INFO, logger="mkdocs"):
        build(load_config(str(toy / "mkdocs.yml"), site_dir=str(toy / "site"), strict=True))
    return re.findall(r"fences: (\d+) ran", caplog.text)


def test_parse_finds_each_fence_with_its_lines_and_its_code_as_on_the_page():
    found = fences.parse(PAGE)
    assert [(f.start, f.end) for f in found] == [(3, 6), (10, 15), (19, 24), (26, 28), (31, 38)]
    assert found[1].options == {"exec": "on", "session": "s", "source": "above", "result": "text"}
    assert found[1].code == (  # the page's lines, less the tab's indentation
        'print("plus one:", value + 1)\n\n\n'
        "more = value * 2  # after two blank lines, as pages have them"
    )


def test_a_new_page_and_its_chinese_twin_from_build_to_test_to_build(toy, caplog):
    assert build(toy, caplog) == ["5", "0"]  # the twin's fence is the English page's, cached
    assert "doubled: 82" in (toy / "site" / "toy" / "index.html").read_text()
    assert (toy / "site" / "figures" / "toy-line-dark.svg").exists()
    # The items; the first fence counts its runs, the third checks it.
    count = 'print("defined"); import builtins; builtins.ran = getattr(builtins, "ran", 0) + 1'
    check = 'print("doubled:", more); assert __import__("builtins").ran == 1  # not replayed'
    page = toy / "docs" / "toy.md"
    text = page.read_text().replace('print("defined")', count)
    page.write_text(text.replace('print("doubled:", more)', check))
    tested = pytest_items()
    assert "5 passed" in tested, tested
    for line in (3, 10, 19, 26, 31):  # the fences' info lines, in a tab, a fold, an include
        assert re.search(rf"docs/toy.md::\[CodeFence#\d\]\[line:{line}\]", tested), tested
    assert build(toy, caplog) == ["0", "0"]  # each fence from the items' cache
    english = (toy / "site" / "toy" / "index.html").read_text()
    assert "plus one: 42" in english and "doubled: 82" in english
    for shown, figure in (("toy", "attn-weights"), ("zh/toy", "attn-weights-zh")):
        html = (toy / "site" / shown / "index.html").read_text()
        assert "row means: 0.000" in html, shown
        assert f"figures/{figure}-dark.svg#only-dark" in html, shown
    for figure in ("attn-weights-zh-dark", "toy-line-dark"):  # the site's, the fence's
        assert (toy / "site" / "figures" / f"{figure}.svg").exists(), figure
    alone = pytest_items("-k", "line:19")  # the third fence: its session's run first
    assert "1 passed, 4 deselected" in alone, alone


def test_a_failing_fence_fails_its_item_alone_with_its_page_and_line(toy):
    page = toy / "docs" / "toy.md"
    shown = '    print("plus one:", value + 1)\n'
    page.write_text(page.read_text().replace(shown, shown + "    assert False\n"))
    tested = pytest_items()
    assert "1 failed, 4 passed" in tested, tested  # fence 3 uses fence 2's names
    assert "FAILED docs/toy.md::[CodeFence#2][line:10]" in tested
    assert 'docs/toy.md", line 12' in tested  # the planted line, in the page
