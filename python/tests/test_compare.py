"""smelt.compare: the one comparison rule, from Python (ir/tensor_compare.h)."""

import numpy as np

import smelt


def test_a_one_percent_error_in_a_small_element_fails():
    want = np.full(4096, 500.0, dtype=np.float32)
    want[17] = 0.02
    got = want.copy()
    got[17] *= 1.01
    result = smelt.compare(got, want)
    assert not result["ok"]
    assert result["worst_element"] == [17]
    assert result["failed_elements"] == 1
    assert "element [17]" in result["message"]


def test_a_cancelling_sum_is_judged_by_its_terms():
    g = smelt.Graph("dot")
    x = g.input("x", "f32", [1, 4096])
    y = g.input("y", "f32", [4096, 1])
    g.output(smelt.matmul(x, y))
    rng = np.random.default_rng(1)
    a = (rng.uniform(0.5, 1.5, 2048) * 100).astype(np.float32)
    b = rng.uniform(0.5, 1.5, 2048).astype(np.float32)
    xv = np.concatenate([a, -a]).reshape(1, 4096)
    yv = np.concatenate([b, b * np.float32(1 + 1e-5)]).reshape(4096, 1)
    (want,), (scale,) = smelt.reference_with_error_scales(g, [xv, yv])
    # Another order of the f32 sum, as a compiled kernel takes it.
    got = np.array([[np.sum((xv[0, ::-1] * yv[::-1, 0]).astype(np.float32), dtype=np.float32)]], dtype=np.float32)
    assert smelt.compare(got, want, scale)["ok"]
    assert scale[0, 0] > 100 * abs(want[0, 0])  # judged by a share of the terms' size, not by its own


def test_bf16_needs_its_dtype_and_integers_are_exact():
    bits = smelt.f32_to_bf16_bits(np.array([1.0, 2.0], dtype=np.float32))
    assert smelt.compare(bits, bits, dtype="bf16")["ok"]
    assert smelt.compare(np.array([1, 2], np.int32), np.array([1, 2], np.int32))["ok"]
    assert not smelt.compare(np.array([1, 3], np.int32), np.array([1, 2], np.int32))["ok"]
