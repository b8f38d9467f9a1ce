"""The usage examples in README.md's tour (Python, torch.compile) run as written."""

import os

import pytest
from conftest import REPO

MARKER = "<!-- python/tests/test_readme.py runs this block -->"
TORCH_MARKER = "<!-- python/tests/test_readme.py runs this block where torch is installed -->"


def readme_example(marker=MARKER):
    text = (REPO / "README.md").read_text()
    after = text[text.index(marker) + len(marker):]
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


def test_readme_torch_compile_example_runs():
    pytest.importorskip("torch", reason="torch is not installed: the torch.compile example needs it")
    pytest.importorskip("onnx", reason="smelt.torch.backend exports through torch.onnx (needs onnx)")
    import torch

    torch._dynamo.reset()
    code = readme_example(TORCH_MARKER)
    assert "backend=smelt.torch.backend" in code
    exec(compile(code, "README.md (torch.compile)", "exec"), {})
