"""The fences of a toy page: each a pytest-markdown-docs item (conftest.py), then a build that
shows them from the cache (docs_build/fences.py).

The toy page has a markdown-exec session across a tab and a fold, an include fence and a
figure; it lives under .cache/ (inside the repository, so that pytest uses conftest.py), with a
cache of its own. The toy site has the real site's fence machinery and no theme.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

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
CONFIG = f"""\
site_name: toy
docs_dir: docs
markdown_extensions:
  - admonition
  - pymdownx.details
  - pymdownx.superfences
  - pymdownx.tabbed: {{alternate_style: true}}
  - pymdownx.snippets: {{base_path: [{ROOT}], check_paths: true, dedent_subsections: true}}
  - attr_list
  - md_in_html
plugins: [markdown-exec]
hooks: [{ROOT / "docs_build/fences.py"}]
"""


@pytest.fixture
def toy():
    folder = ROOT / ".cache" / f"toy-{os.getpid()}"
    (folder / "docs").mkdir(parents=True, exist_ok=True)
    (folder / "docs" / "index.md").write_text(PAGE)
    (folder / "mkdocs.yml").write_text(CONFIG)
    yield folder
    subprocess.run(["rm", "-rf", str(folder)], check=True)


def run(toy: Path, *command: str, cache: str = "cache") -> subprocess.CompletedProcess:
    env = {**os.environ, "DOCS_CACHE": str(toy / cache), "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run(
        [sys.executable, "-m", *command], cwd=toy, env=env, capture_output=True, text=True
    )


def pytest_items(toy: Path, *args: str) -> subprocess.CompletedProcess:
    return run(toy, "pytest", "-p", "no:cacheprovider", "-rA", "-q", *args, "docs/index.md")


def mkdocs_build(toy: Path, dest: str, cache: str, monkeypatch, caplog) -> str:
    """``mkdocs build --strict`` of the toy, in this process (torch is imported already);
    returns its log."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    monkeypatch.setenv("DOCS_CACHE", str(toy / cache))
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="mkdocs"):
        build(load_config(str(toy / "mkdocs.yml"), site_dir=str(toy / dest), strict=True))
    return caplog.text


def test_cold_build_then_items_then_a_build_that_runs_no_fence(toy, monkeypatch, caplog):
    cold = mkdocs_build(toy, "cold", "cold", monkeypatch, caplog)
    assert "fences: 3 ran in this build" in cold, cold
    assert "82" in (toy / "cold" / "index.html").read_text()
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
    built = mkdocs_build(toy, "site", "cache", monkeypatch, caplog)
    assert "fences: 0 ran in this build" in built, built
    html = (toy / "site" / "index.html").read_text()
    assert "42" in html and "82" in html  # the outputs, from the items' cache
    assert (toy / "site" / "figures" / "toy-line-dark.svg").exists()
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
