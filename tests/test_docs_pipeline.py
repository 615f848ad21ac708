"""Tests of the root conftest.py: how every python fence of the site is collected and run.

Each test writes a tiny project into a temporary folder: a copy of the root ``conftest.py``, a
``mkdocs.yml`` configuring pymdownx.snippets as the site does, a package ``toypkg`` with
snippet sections, and one Markdown page. It then runs pytest on that page in a subprocess, as
``make test`` runs the site's pages (``--markdown-docs --markdown-docs-syntax=superfences``),
and checks the outcome. ``toypkg`` imports no torch, so each run takes about a second.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parent.parent

# The snippets options have the shape of the site's mkdocs.yml (read by conftest.py, not copied).
MKDOCS_YML = """\
site_name: probe
markdown_extensions:
  - admonition
  - pymdownx.details
  - pymdownx.snippets:
      base_path: [!relative $config_dir]
      check_paths: true
      dedent_subsections: true
  - pymdownx.superfences
  - pymdownx.tabbed:
      alternate_style: true
      slugify: !!python/object/apply:pymdownx.slugs.slugify
        kwds:
          case: lower
"""

# hypothesis' pytest plugin costs a second of imports per run; these runs do not need it.
PYTEST_INI = """\
[pytest]
addopts = --markdown-docs --markdown-docs-syntax=superfences -p no:cacheprovider
          -p no:hypothesispytest
"""

MODULE = '''\
"""A module the pages include sections from."""

import math

_SCALE = 2.0
_runs = []


# --8<-- [start:area]
def area(r):
    return _SCALE * math.pi * r * r / 2
# --8<-- [end:area]


class Circle:
    def __init__(self, r):
        self.r = r

    # --8<-- [start:circle-area]
    def area(self):
        return math.pi * self.r**2
    # --8<-- [end:circle-area]


# --8<-- [start:typo]
class Scaler:
    def __init__(self, factor):
        self.factor = factor

    def forward(self, x):
        output = x * self.factor
        return outpu
# --8<-- [end:typo]


# --8<-- [start:runs-once]
_runs.append(1)
assert len(_runs) == 1, "the section ran a second time"
# --8<-- [end:runs-once]
'''


def page(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    path = pytester.path
    (path / "conftest.py").write_text((ROOT / "conftest.py").read_text())
    (path / "mkdocs.yml").write_text(MKDOCS_YML)
    (path / "pytest.ini").write_text(PYTEST_INI)
    (path / "toypkg").mkdir()
    (path / "toypkg" / "__init__.py").write_text("")
    (path / "toypkg" / "shapes.py").write_text(MODULE)
    return pytester


def run(project: pytest.Pytester, text: str, *args: str) -> pytest.RunResult:
    """pytest on one page holding ``text``, in a subprocess (the conftest registers runners)."""
    (project.path / "page.md").write_text(page(text))
    return project.runpytest_subprocess("page.md", *args, timeout=120)


def module_line(needle: str) -> int:
    """1-based line of ``needle`` in MODULE."""
    return next(n for n, line in enumerate(MODULE.splitlines(), 1) if needle in line)


# --- includes -------------------------------------------------------------------------------------
def test_included_sections_run_in_their_module_namespace(project):
    # `area` reads the module's import `math` and its private `_SCALE`; the method section is
    # indented in its class and dedented by the include.
    result = run(
        project,
        """
        # Included

        ```python
        --8<-- "toypkg/shapes.py:area"
        ```

        ```python
        --8<-- "toypkg/shapes.py:circle-area"
        ```

        ```python
        from toypkg.shapes import area

        assert abs(area(1.0) - 3.14159) < 1e-5
        ```
        """,
    )
    result.assert_outcomes(passed=3)
    assert result.ret == 0


@pytest.mark.parametrize(
    ("include", "message"),
    [
        ('"toypkg/missing.py:area"', "Snippet at path 'toypkg/missing.py' could not be found"),
        ('"toypkg/shapes.py:no-such-section"', "section 'no-such-section' could not be located"),
    ],
    ids=["missing-file", "missing-section"],
)
def test_broken_include_fails_the_run(project, include, message):
    result = run(
        project,
        f"""
        ```python
        --8<-- {include}
        ```

        ```python
        assert True
        ```
        """,
    )
    result.assert_outcomes(errors=1)
    assert result.ret != 0
    result.stdout.fnmatch_lines([f"*SnippetMissingError*{message}*"])


def test_typo_in_included_code_fails_though_no_fence_calls_it(project):
    # Scaler.forward reads `outpu`; executing the section only defines the class.
    result = run(
        project,
        """
        ```python
        --8<-- "toypkg/shapes.py:typo"
        ```
        """,
    )
    result.assert_outcomes(failed=1)
    assert "reads undefined name(s) ['outpu']" in result.stdout.str()


def test_failure_in_included_code_points_at_the_module_line(project):
    # The section asserts it runs once; the module ran it at import, so the fence fails, and the
    # traceback must name the module's own line (not one shifted by the fence's page line).
    result = run(
        project,
        """
        # A page

        Some text, so the fence is not on the first lines of the page.

        ```python
        --8<-- "toypkg/shapes.py:runs-once"
        ```
        """,
    )
    result.assert_outcomes(failed=1)
    line = module_line('assert len(_runs) == 1, "the section ran a second time"')
    result.stdout.fnmatch_lines(
        [f'*File "*toypkg/shapes.py", line {line}, in <module>', "*the section ran a second time*"]
    )


# --- nested fences --------------------------------------------------------------------------------
def test_fences_in_content_tabs_run(project):
    result = run(
        project,
        """
        === "Works"

            ```python
            assert 1 + 1 == 2
            ```

        === "Raises"

            ```python
            raise RuntimeError("raised in a tab")
            ```

        ===+ "Includes a typo"

            ```python
            --8<-- "toypkg/shapes.py:typo"
            ```

        ===! "A new tab set"

            ```python
            assert 2 + 2 == 4
            ```

        ===!+ "Selected, in a new tab set"

            ```python
            raise RuntimeError("raised in a selected tab of a new set")
            ```
        """,
    )
    result.assert_outcomes(passed=2, failed=3)
    result.stdout.fnmatch_lines(["*RuntimeError: raised in a selected tab of a new set*"])
    result.stdout.fnmatch_lines(["*RuntimeError: raised in a tab*"])
    assert "reads undefined name(s) ['outpu']" in result.stdout.str()


def test_fences_in_admonitions_and_collapsibles_run(project):
    result = run(
        project,
        """
        !!! tip "Works"

            ```python
            assert 1 + 1 == 2
            ```

        !!! note "Raises"

            ```python
            raise RuntimeError("raised in an admonition")
            ```

        ??? note "Collapsed"

            ```python
            raise RuntimeError("raised in a collapsible")
            ```

        ???+ warning "Open collapsible"

            ```python
            raise RuntimeError("raised in an open collapsible")
            ```
        """,
    )
    result.assert_outcomes(passed=1, failed=3)
    for where in ("an admonition", "a collapsible", "an open collapsible"):
        result.stdout.fnmatch_lines([f"*RuntimeError: raised in {where}"])


@pytest.mark.parametrize(
    ("text", "line"),
    [
        (  # indented one level too deep under a list item: CommonMark reads indented code
            """
            1. Run this:

                    ```python
                    raise RuntimeError("never collected")
                    ```
            """,
            3,
        ),
        (  # indented after a paragraph line: a lazy continuation of the paragraph
            """
            Some text that goes on
                ```python
                raise RuntimeError("never collected")
                ```
            """,
            2,
        ),
        (  # indented eight spaces under a content tab: indented code inside the tab
            """
            === "Tab"

                    ```python
                    raise RuntimeError("never collected")
                    ```
            """,
            3,
        ),
        (  # same under an admonition, brace syntax
            """
            !!! note

                    ```{.python}
                    raise RuntimeError("never collected")
                    ```
            """,
            3,
        ),
    ],
    ids=["list-item", "paragraph", "tab", "admonition"],
)
def test_python_fence_not_parsed_as_a_fence_fails_collection(project, text, line):
    result = run(project, page(text) + "\n```python\nassert True\n```\n")
    result.assert_outcomes(errors=1)
    assert result.ret != 0
    result.stdout.fnmatch_lines([f"*line {line} opens a python fence that was not parsed as one*"])


# --- markdown-exec sessions -----------------------------------------------------------------------
SESSIONS = """
```python exec="on" session="a"
value = 41
```

```python exec="on" session="a" source="above" result="text"
assert value + 1 == 42
print(value + 1)
```

```python exec="on" session="b"
print(value)
```

```python
print(value)
```
"""


def test_fences_of_a_session_share_names_and_no_other_fence_sees_them(project):
    result = run(project, SESSIONS)
    result.assert_outcomes(passed=2, failed=2)
    result.stdout.fnmatch_lines(["*NameError: name 'value' is not defined*"])
    assert result.stdout.str().count("NameError: name 'value' is not defined") >= 2


def test_a_session_fence_selected_alone_runs_the_earlier_fences_of_its_session(project):
    (project.path / "page.md").write_text(page(SESSIONS))
    result = project.runpytest_subprocess("page.md::[CodeFence#2][line:5]", timeout=120)
    result.assert_outcomes(passed=1)


# --- notest ---------------------------------------------------------------------------------------
def test_notest_fences_are_not_run(project):
    result = run(
        project,
        """
        ```python notest
        raise RuntimeError("a notest fence ran")
        ```

        ```{.python notest}
        raise RuntimeError("a notest fence ran")
        ```

        ```{.python notest}
        --8<-- "toypkg/shapes.py:typo"
        ```

        ```python
        assert True
        ```
        """,
    )
    result.assert_outcomes(passed=1)
    assert "a notest fence ran" not in result.stdout.str()
