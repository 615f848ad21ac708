"""README's "Add a page", step by step, on a toy site: a page that includes a package section,
runs a fence that asserts, shows a figure, and its Chinese twin that includes the fence; its
fences run as tests, then the strict build shows them in both languages without running them.
The toy lives under .cache/ (so that pytest uses conftest.py) and shares the run's cache."""

from __future__ import annotations

import logging
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = """\
# Toy

```python
--8<-- "encoder/layer_norm.py:formula"
```

<!-- --8<-- [start:check] -->
```python exec="on" session="toy" source="above" result="text"
import torch
from encoder import LayerNorm

y = LayerNorm(4)(torch.arange(8.0).view(2, 4))
print(f"row means: {y.mean(-1).abs().max():.3f}")
assert y.mean(-1).abs().max() < 1e-6
```
<!-- --8<-- [end:check] -->

![A heat map.](figures/attn-weights.svg "A figure of the site.")
"""
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
  - attr_list
  - md_in_html
  - pymdownx.superfences
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


def test_a_new_page_and_its_chinese_twin_from_test_to_build(tmp_path, monkeypatch, caplog):
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    toy = ROOT / ".cache" / f"toy-page-{tmp_path.name}"
    (toy / "docs" / "zh").mkdir(parents=True)
    try:
        (toy / "docs" / "index.md").write_text("# Home\n")
        (toy / "docs" / "zh" / "index.md").write_text("# 首页\n")
        (toy / "docs" / "toy.md").write_text(PAGE)
        (toy / "docs" / "zh" / "toy.md").write_text(TWIN)
        (toy / "mkdocs.yml").write_text(CONFIG)
        tested = subprocess.run(
            [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "docs/toy.md"],
            cwd=toy, capture_output=True, text=True,
        )  # fmt: skip
        assert "2 passed" in tested.stdout, tested.stdout
        monkeypatch.chdir(toy)
        with caplog.at_level(logging.INFO, logger="mkdocs"):
            build(load_config(str(toy / "mkdocs.yml"), site_dir=str(toy / "site"), strict=True))
        assert set(re.findall(r"fences: (\d+) ran", caplog.text)) == {"0"}
        for page, figure in (("toy", "attn-weights"), ("zh/toy", "attn-weights-zh")):
            html = (toy / "site" / page / "index.html").read_text()
            assert "row means: 0.000" in html, page
            assert f"figures/{figure}-dark.svg#only-dark" in html, page
        assert (toy / "site" / "figures" / "attn-weights-zh-dark.svg").exists()
    finally:
        shutil.rmtree(toy, ignore_errors=True)
