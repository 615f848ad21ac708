"""README.md's python code runs under pytest (Sybil). The pages' code runs in the site's build:
tests/site/test_strict_build.py reports it."""

from sybil import Sybil
from sybil.parsers.markdown import PythonCodeBlockParser

pytest_collect_file = Sybil(parsers=[PythonCodeBlockParser()], patterns=["README.md"]).pytest()
