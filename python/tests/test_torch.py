"""smelt.torch.backend with torch.compile, where torch is installed (the whole
module is skipped without it; test_torch_import.py runs everywhere)."""

import logging

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed: the backend's tests need it")
import smelt.torch  # noqa: E402


class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.up = torch.nn.Linear(32, 64)
        self.down = torch.nn.Linear(64, 32)

    def forward(self, x):
        h = self.up(x)
        return self.down(torch.nn.functional.gelu(h)) + x, torch.sigmoid(h)


def test_backend_matches_eager(caplog):
    torch._dynamo.reset()
    model = Mlp().eval()
    x = torch.randn(8, 32)
    with torch.no_grad(), caplog.at_level(logging.INFO, logger="smelt.torch"):
        got = torch.compile(model, backend=smelt.torch.backend)(x)
        want = model(x)
    assert "compiled" in caplog.text and "eagerly" not in caplog.text
    assert isinstance(got, tuple) and len(got) == 2
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w, rtol=1e-4, atol=1e-5)


def test_autograd_falls_back_with_the_reason_logged(caplog):
    torch._dynamo.reset()
    model = Mlp()
    x = torch.randn(8, 32)
    with caplog.at_level(logging.WARNING, logger="smelt.torch"):
        got, _ = torch.compile(model, backend=smelt.torch.backend)(x)
    assert "running the graph eagerly" in caplog.text and "no backward" in caplog.text
    assert got.requires_grad  # PyTorch ran it: gradients still flow
    torch.testing.assert_close(got, model(x)[0])


def test_an_unsupported_op_runs_eagerly_and_the_rest_in_smelt(caplog):
    torch._dynamo.reset()

    def f(x):
        y = torch.sin(x) * 2
        return torch.exp(torch.cumsum(y, dim=0)) + 1

    x = torch.randn(16)
    with torch.no_grad(), caplog.at_level(logging.INFO, logger="smelt.torch"):
        got = torch.compile(f, backend=smelt.torch.backend)(x)
    assert "op by op: 2 partition(s) in smelt" in caplog.text, caplog.text
    assert "cumsum" in caplog.text and "CumSum" in caplog.text  # the op, and why: the importer lacks CumSum
    assert caplog.text.count("compiled") == 2  # each partition, on its first call
    torch.testing.assert_close(got, f(x))


def _blocks():
    """scripts/export_blocks.py: the GPT-2 and Llama blocks of examples/blocks, as PyTorch modules."""
    import importlib.util
    import pathlib

    pytest.importorskip("onnx", reason="scripts/export_blocks.py imports onnx")
    path = pathlib.Path(__file__).resolve().parents[2] / "scripts" / "export_blocks.py"
    spec = importlib.util.spec_from_file_location("export_blocks", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", ["GPT2Block", "LlamaMLP"])
def test_transformer_blocks_through_torch_compile_match_eager(name, caplog):
    blocks = _blocks()
    torch._dynamo.reset()
    torch.manual_seed(3)
    args = (blocks.HIDDEN, blocks.LLAMA_INTERMEDIATE) if name == "LlamaMLP" else ()
    model = getattr(blocks, name)(*args)
    blocks.randomize_norm_(model)
    model.eval()
    x = torch.randn(blocks.BATCH, blocks.SEQ, blocks.HIDDEN)
    with torch.no_grad(), caplog.at_level(logging.INFO, logger="smelt.torch"):
        got = torch.compile(model, backend=smelt.torch.backend)(x)
        want = model(x)
    assert "compiled" in caplog.text and "eagerly" not in caplog.text, caplog.text
    torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4)
