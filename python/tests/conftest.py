"""Shared helpers: the repository's examples and output comparison with smelt's tolerances."""

from pathlib import Path

import pytest

import smelt

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"


def assert_matches_reference(graph, inputs, outputs):
    """The check smelt applies to every compiled path (ir/tensor_compare.h, smelt.compare):
    each element within the dtype's rtol of max(|reference|, its error scale)."""
    want, scales = smelt.reference_with_error_scales(graph, inputs)
    assert len(outputs) == len(want) == len(graph.outputs)
    for got, w, scale, out in zip(outputs, want, scales, graph.outputs):
        assert got.shape == tuple(out.shape)
        result = smelt.compare(got, w, scale, dtype=out.dtype)
        assert result["ok"], f"{out.dtype} output: {result['message']}"


def outputs_tuple(result):
    return result if isinstance(result, tuple) else (result,)


@pytest.fixture
def silu_graph():
    """The README's graph: silu of the left half of h."""
    g = smelt.Graph("silu_slices")
    h = g.input("h", "f32", [64, 256])
    s = smelt.slice_axis(h, 1, 0, 128)
    g.output(s * smelt.sigmoid(s))
    return g
