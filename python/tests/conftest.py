"""Shared helpers: the repository's examples and output comparison with smelt's tolerances."""

from pathlib import Path

import numpy as np
import pytest

import smelt

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"


def as_values(array, dtype):
    """An output as float64 values (bf16 outputs arrive as their uint16 bits)."""
    if dtype == "bf16":
        return smelt.bf16_bits_to_f32(array).astype(np.float64)
    return np.asarray(array).astype(np.float64)


def assert_matches(got, want, dtype):
    """The check smelt applies to every compiled path (ir/tensor_compare.h): the
    largest error relative to max(1, largest |reference| element) within the
    dtype's tolerance; exact for integers and bool."""
    got_values, want_values = as_values(got, dtype), as_values(want, dtype)
    assert got_values.shape == want_values.shape
    scale = max(1.0, float(np.max(np.abs(want_values), initial=0.0)))
    error = float(np.max(np.abs(got_values - want_values), initial=0.0)) / scale
    assert error <= smelt.default_tolerance(dtype), f"relative error {error:.3g} ({dtype})"


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
