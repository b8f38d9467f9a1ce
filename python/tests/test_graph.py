"""Graphs built by hand with smelt.Graph, as with C++'s ir::Builder."""

import numpy as np
import pytest

import smelt
from conftest import EXAMPLES


def test_builder_graph_matches_numpy(silu_graph):
    prog = smelt.compile(silu_graph)
    h = np.random.default_rng(0).standard_normal((64, 256), dtype=np.float32)
    s = h[:, :128].astype(np.float64)
    np.testing.assert_allclose(prog(h), s / (1 + np.exp(-s)), rtol=1e-5, atol=1e-6)


def test_tensor_facts_and_text(silu_graph):
    [h] = silu_graph.inputs
    assert (h.name, h.dtype, h.shape, h.op) == ("h", "f32", (64, 256), "input")
    [y] = silu_graph.outputs
    assert (y.shape, y.op) == ((64, 128), "mul")
    text = str(silu_graph)
    assert text.startswith("graph silu_slices") and "sigmoid(" in text
    # The .sg text parses back to the same graph.
    assert str(smelt.parse(text)) == text


def test_hand_written_example_equals_the_file():
    """examples/mlir_dot_slice.sg written with the builder computes what the file does."""
    loaded = smelt.load(EXAMPLES / "mlir_dot_slice.sg")
    g = smelt.Graph("mlir_dot_slice")
    a = g.input("a", "f32", [64, 1024])
    b = g.input("b", np.float32, [1024, 4096])
    bias = g.input("bias", "f32", [4096])
    c = a @ b + smelt.broadcast(bias, [64, 4096])
    left = smelt.slice(c, [0, 0], [64, 2048], [1, 1])
    right = smelt.slice(c, [0, 2048], [64, 4096], [1, 1])
    g.output(left * smelt.sigmoid(right))
    inputs = smelt.random_inputs(loaded, seed=4)
    [want] = smelt.reference(loaded, inputs)
    np.testing.assert_allclose(smelt.compile(g)(*inputs), want, rtol=1e-4, atol=1e-3)


def test_numbers_become_full_tensors_and_ops_cover_the_builder():
    g = smelt.Graph()
    x = g.input("x", "f32", [4, 8])
    idx = g.iota([4, 8], axis=1)
    y = smelt.reduce_sum(smelt.exp(x) * 2.0 - 1.0, [1], keepdims=True)  # [4, 1]
    z = smelt.where(smelt.lt(smelt.cast(idx, "f32"), 4.0), x, g.full([4, 8], 0.5))
    w = smelt.concat([smelt.reshape(y, [4]), smelt.reduce_max(z, [1])], 0)  # [8]
    g.output(w, smelt.permute(z, [1, 0]))
    x_value = np.linspace(-1, 1, 32, dtype=np.float32).reshape(4, 8)
    got_w, got_t = smelt.compile(g)(x_value)
    want_y = (np.exp(x_value.astype(np.float64)) * 2 - 1).sum(axis=1)
    want_z = np.where(np.arange(8) < 4, x_value, 0.5)
    np.testing.assert_allclose(got_w, np.concatenate([want_y, want_z.max(axis=1)]), rtol=1e-5)
    np.testing.assert_array_equal(got_t, want_z.T)


def test_constant_from_array():
    g = smelt.Graph()
    x = g.input("x", "i32", [2, 3])
    k = g.constant([[1, 2, 3], [4, 5, 6]], dtype="i32")
    g.output(x * k + 1)
    x_value = np.arange(6, dtype=np.int32).reshape(2, 3)
    np.testing.assert_array_equal(smelt.compile(g)(x_value), x_value * (np.arange(6).reshape(2, 3) + 1) + 1)


def test_shape_mismatch_is_an_error_when_the_op_is_added():
    g = smelt.Graph()
    a = g.input("a", "f32", [2, 3])
    b = g.input("b", "f32", [3, 2])
    with pytest.raises(smelt.Error) as caught:
        smelt.add(a, b)
    assert caught.value.kind == "shape"
    assert "equal shapes" in str(caught.value)
    assert caught.value.file is None


def test_operands_of_two_graphs_are_refused():
    a = smelt.Graph().input("a", "f32", [2])
    b = smelt.Graph().input("b", "f32", [2])
    with pytest.raises(smelt.Error, match="different graphs"):
        smelt.matmul(a, b)
    with pytest.raises(smelt.Error, match="different graphs"):
        smelt.add(a, b)


def test_unknown_dtype():
    with pytest.raises(smelt.Error, match="unknown dtype float64"):
        smelt.Graph().input("x", np.float64, [2])


def test_tensors_keep_their_graph_alive():
    def make():
        g = smelt.Graph("temporary")
        return smelt.relu(g.input("x", "f32", [3]))

    y = make()  # the graph is only reachable through y
    assert y.shape == (3,) and y.op == "relu"


def test_compiling_a_graph_without_outputs_is_an_error():
    g = smelt.Graph()
    g.input("x", "f32", [3])
    with pytest.raises(smelt.Error, match="no outputs"):
        smelt.compile(g)


def test_conv_matches_a_numpy_convolution():
    """smelt.conv with stride, padding and groups against a direct numpy loop."""
    g = smelt.Graph("conv")
    x = g.input("x", "f32", [2, 4, 7, 6])
    w = g.input("w", "f32", [6, 2, 3, 3])
    y = smelt.conv(x, w, strides=[2, 1], lo=[1, 0], hi=[1, 1], groups=2)
    assert y.shape == (2, 6, 4, 5)
    g.output(smelt.relu(y))
    rng = np.random.default_rng(3)
    xv = rng.standard_normal((2, 4, 7, 6), dtype=np.float32)
    wv = rng.standard_normal((6, 2, 3, 3), dtype=np.float32)
    padded = np.pad(xv.astype(np.float64), ((0, 0), (0, 0), (1, 1), (0, 1)))
    want = np.zeros((2, 6, 4, 5))
    for m in range(6):
        group = m // 3
        for i in range(4):
            for j in range(5):
                window = padded[:, 2 * group:2 * group + 2, 2 * i:2 * i + 3, j:j + 3]
                want[:, m, i, j] = (window * wv[m]).sum(axis=(1, 2, 3))
    np.testing.assert_allclose(smelt.compile(g)(xv, wv), np.maximum(want, 0), rtol=1e-4, atol=1e-5)
    with pytest.raises(smelt.Error, match="groups"):
        smelt.conv(x, w, groups=3)
