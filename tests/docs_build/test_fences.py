"""docs_build/fences.py on a toy site: outputs cached and reused, failures and skipped fences
reported, a session replayed after an edit.

The toy site has the real site's fence machinery (pymdownx.superfences and .snippets, markdown-exec,
the hook) and no theme, search or torch, so each build takes about two seconds. It is built three
times on one cache: cold, again unchanged, and after an edit of one fence.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from docs_build import fence_worker
from docs_build.run import Build

ROOT = Path(__file__).resolve().parents[2]

CONFIG = f"""\
site_name: toy
markdown_extensions:
  - admonition
  - pymdownx.details
  - pymdownx.superfences
  - pymdownx.tabbed: {{alternate_style: true}}
  - pymdownx.snippets: {{base_path: [docs, {ROOT}], check_paths: true, dedent_subsections: true}}
plugins: [markdown-exec]
hooks: [{ROOT / "docs_build" / "fences.py"}]
"""

RUNS = 'python exec="on" session="s" source="above" result="text"'
PAGES = {
    # A session of three fences, two of them snippet sections; a package section.
    "a.md": f"""
        # A

        <!-- --8<-- [start:define] -->
        ```{RUNS}
        value = 41
        print("defined")
        ```
        <!-- --8<-- [end:define] -->

        === "A tab"

            <!-- --8<-- [start:use] -->
            ```{RUNS}
            print(value + 1)
            ```
            <!-- --8<-- [end:use] -->

        ??? note "Deeper"

            ```{RUNS}
            print(value * 2)
            ```

        ```python
        --8<-- "encoder/masks.py:causal"
        ```
        """,
    # A page that includes them, as a Chinese page does.
    "b.md": """
        # B

        --8<-- "a.md:define"

        --8<-- "a.md:use"
        """,
    # Another session does not see the names of the first one.
    "failing.md": """
        ```python exec="on" session="other"
        print(value)
        ```
        """,
    # Fences whose output the page would not show: three indented one level too deep (Markdown
    # shows them as indented code, whether or not markdown-exec ran them), and one that neither
    # runs nor includes a section.
    "skipped.md": """
        1. Run this:

                ```python exec="on"
                print("in a list")
                ```

        === "Tab"

                ```python exec="on"
                print("in a tab")
                ```

        !!! note

                ```{.python exec="on"}
                print("in an admonition")
                ```

        ```python
        print("shown, never run")
        ```
        """,
}


@pytest.fixture(scope="module")
def toy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("toy")
    (root / "mkdocs.yml").write_text(CONFIG)
    (root / "docs").mkdir()
    for name, text in PAGES.items():
        (root / "docs" / name).write_text(textwrap.dedent(text).lstrip())
    return root


def build(root: Path, name: str) -> tuple[Build, dict[str, dict]]:
    """Build the toy site into ``name``/ on its cache: the build, and its record of fences."""
    env = {"DOCS_CACHE": str(root / "cache")}
    done = Build(root / name, config=root / "mkdocs.yml", env=env).wait()
    record = json.loads((root / "cache" / "fences" / "record.json").read_text())
    return done, record["pages"]


def statuses(record: dict, page: str) -> list[str]:
    return [fence["status"] for fence in record[page]["fences"]]


@pytest.fixture(scope="module")
def cold(toy: Path):
    return build(toy, "cold")


@pytest.fixture(scope="module")
def warm(toy: Path, cold):
    return build(toy, "warm")


@pytest.fixture(scope="module")
def edited(toy: Path, warm):
    page = toy / "docs" / "a.md"
    page.write_text(page.read_text().replace("value + 1", "value + 2"))
    return build(toy, "edited")


def test_each_fence_runs_once_and_a_page_that_includes_it_reuses_its_output(toy, cold):
    _, record = cold
    assert statuses(record, "a.md") == ["ran", "ran", "ran"]
    assert statuses(record, "b.md") == ["cached", "cached"]
    for page in ("a", "b"):
        html = (toy / "cold" / page / "index.html").read_text()
        assert "defined" in html and "42" in html
    assert "82" in (toy / "cold" / "a" / "index.html").read_text()


def test_a_failing_fence_fails_the_build_with_its_traceback(cold):
    built, record = cold
    assert built.returncode != 0
    [fence] = record["failing.md"]["fences"]
    assert fence["status"] == "failed"
    assert "print(value)" in fence["log"]
    assert "NameError: name 'value' is not defined" in fence["log"]


def test_fences_shown_but_not_run_fail_the_build(cold):
    built, record = cold
    problems = record["skipped.md"]["problems"]
    assert len(problems) == 4, problems
    assert sum("shows the fence line" in p for p in problems) == 3
    assert "neither runs" in problems[0] and "shown, never run" in problems[0]
    assert all(f"skipped.md: {p}" in built.log for p in problems)
    assert record["a.md"]["problems"] == record["b.md"]["problems"] == []


def test_a_second_build_runs_nothing_and_renders_the_same_pages(toy, cold, warm):
    _, record = warm
    assert statuses(record, "a.md") == ["cached", "cached", "cached"]
    assert statuses(record, "b.md") == ["cached", "cached"]
    for page in ("a", "b"):
        html = [(toy / name / page / "index.html").read_text() for name in ("cold", "warm")]
        assert html[0] == html[1]


def test_an_edited_fence_runs_again_after_its_session_is_replayed(toy, edited):
    # The edited fence reads `value`, which the cached fence before it defines.
    _, record = edited
    assert statuses(record, "a.md") == ["cached", "ran", "ran"]
    assert statuses(record, "b.md") == ["cached", "cached"]
    assert record["a.md"]["problems"] == []
    assert "43" in (toy / "edited" / "b" / "index.html").read_text()


def test_the_second_process_runs_pages_from_the_end_into_the_cache_the_build_reads(
    toy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    # docs_build/fence_worker.py on a cache of its own, the build not started: it takes the
    # pages last first, records each beside its claim, and a build then runs none of them again.
    monkeypatch.setenv("DOCS_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(toy)  # MkDocs' folder: the snippets' base_path is relative
    claims = tmp_path / "claims"
    claims.mkdir()
    worker = fence_worker.start(str(toy / "mkdocs.yml"), claims, ["a.md", "b.md"])
    assert worker.wait(timeout=60) == 0
    assert sorted(p.name for p in claims.iterdir()) == ["a.md", "a.md.json", "b.md", "b.md.json"]
    worked = {page: fence_worker.wait_for(worker, claims, page) for page in ("a.md", "b.md")}
    assert statuses(worked, "b.md") == ["ran", "ran"]  # b.md first: it shows a.md's two fences
    assert statuses(worked, "a.md") == ["cached", "cached", "ran"]
    assert not fence_worker.claim(claims, "a.md")  # the build would wait for it instead
    Build(tmp_path / "site", config=toy / "mkdocs.yml").wait()
    record = json.loads((tmp_path / "cache" / "fences" / "record.json").read_text())["pages"]
    assert statuses(record, "a.md") == ["cached"] * 3
