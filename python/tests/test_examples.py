"""Every seed graph in examples/ and the GPT-2 block: loaded, compiled, run, and
compared with smelt's reference interpreter (and with numpy where it is easy)."""

import numpy as np
import pytest

import smelt
from conftest import EXAMPLES, assert_matches_reference, outputs_tuple

SEED_GRAPHS = sorted(EXAMPLES.glob("*.sg"))


def test_there_are_thirteen_example_graphs():
    # The ten seed graphs, issue 19's conv_block and issue 32's gpt2_embedding and kv_cache_scatter.
    assert len(SEED_GRAPHS) == 13


@pytest.mark.parametrize("path", SEED_GRAPHS, ids=[p.stem for p in SEED_GRAPHS])
def test_example_matches_reference(path):
    graph = smelt.load(path)
    assert graph.source == str(path)
    prog = smelt.compile(graph)
    inputs = smelt.random_inputs(graph, seed=1)
    assert_matches_reference(graph, inputs, outputs_tuple(prog(*inputs)))


def test_mlir_dot_slice_matches_numpy():
    graph = smelt.load(EXAMPLES / "mlir_dot_slice.sg")
    prog = smelt.compile(graph)
    a, b, bias = smelt.random_inputs(graph, seed=2)
    c = a.astype(np.float64) @ b.astype(np.float64) + bias
    want = c[:, :2048] / (1 + np.exp(-c[:, 2048:]))
    np.testing.assert_allclose(prog(a, b, bias), want, rtol=1e-4, atol=1e-4 * np.abs(want).max())


def test_gpt2_block_onnx_matches_reference():
    graph = smelt.load(EXAMPLES / "blocks" / "gpt2_block" / "model.onnx")
    prog = smelt.compile(graph)
    assert len(prog.kernels) > 1
    inputs = smelt.random_inputs(graph, seed=3)
    assert_matches_reference(graph, inputs, outputs_tuple(prog(*inputs)))
