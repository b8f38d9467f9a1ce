"""The usage example in README.md's Python section runs as written."""

import os

from conftest import REPO

MARKER = "<!-- python/tests/test_readme.py runs this block -->"


def readme_example():
    text = (REPO / "README.md").read_text()
    after = text[text.index(MARKER) + len(MARKER):]
    start = after.index("```python\n") + len("```python\n")
    return after[start:after.index("```", start)]


def test_readme_example_runs(capsys):
    code = readme_example()
    assert "smelt.compile" in code
    cwd = os.getcwd()
    os.chdir(REPO)  # the example names files relative to the repository root
    try:
        exec(compile(code, "README.md (Python)", "exec"), {})
    finally:
        os.chdir(cwd)
    printed = capsys.readouterr().out
    assert "before (one kernel per op)" in printed and "after (fused)" in printed
