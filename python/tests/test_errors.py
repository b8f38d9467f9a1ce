"""smelt.Error: one exception class, with kind, message and the place in a file."""

import pickle

import numpy as np
import pytest

import smelt
from conftest import EXAMPLES


def test_error_is_an_exception_class():
    assert issubclass(smelt.Error, Exception)


def test_bad_sg_file_has_file_line_col(tmp_path):
    path = tmp_path / "bad.sg"
    path.write_text("graph bad\n\nx = input() : f32[4]\ny = frobnicate(x) : f32[4]\noutput y\n")
    with pytest.raises(smelt.Error) as caught:
        smelt.load(path)
    e = caught.value
    assert e.kind == "parse"
    assert (e.file, e.line) == (str(path), 4)
    assert e.col >= 1
    assert str(e) == f"{path}:4:{e.col}: {e.message}"
    assert "frobnicate" in e.message


def test_missing_file_is_a_parse_error_at_1_1(tmp_path):
    with pytest.raises(smelt.Error) as caught:
        smelt.load(tmp_path / "absent.sg")
    assert (caught.value.kind, caught.value.line, caught.value.col) == ("parse", 1, 1)


def test_parse_names_the_given_file():
    with pytest.raises(smelt.Error, match=r"^mine\.sg:2:\d+: "):
        smelt.parse("graph g\nx = input() : f32[2\n", "mine.sg")


def test_bad_onnx_model(tmp_path):
    path = tmp_path / "model.onnx"
    path.write_bytes(b"not a protobuf")
    with pytest.raises(smelt.Error) as caught:
        smelt.load(path)
    assert caught.value.kind == "import"
    assert caught.value.file is None


def test_error_pickles_with_its_attributes():
    e = smelt.Error("boom", "parse", "f.sg", 3, 7)
    copy = pickle.loads(pickle.dumps(e))
    assert (copy.kind, copy.file, copy.line, copy.col, str(copy)) == ("parse", "f.sg", 3, 7, "f.sg:3:7: boom")


@pytest.fixture(scope="module")
def dot_slice():
    graph = smelt.load(EXAMPLES / "mlir_dot_slice.sg")
    return graph, smelt.compile(graph), smelt.random_inputs(graph, seed=5)


def test_wrong_dtype_names_input_expected_and_got(dot_slice):
    _, prog, (a, b, bias) = dot_slice
    with pytest.raises(smelt.Error) as caught:
        prog(a, b.astype(np.float64), bias)
    assert caught.value.kind == "input"
    assert str(caught.value) == "input 'b' (1): expected f32[1024,4096] (numpy float32), got float64[1024,4096]"


def test_wrong_shape_names_input_expected_and_got(dot_slice):
    _, prog, (a, b, bias) = dot_slice
    with pytest.raises(smelt.Error, match=r"input 'bias' \(2\): expected f32\[4096\] .*, got float32\[4095\]"):
        prog.run({"a": a, "b": b, "bias": bias[:-1]})


def test_wrong_count_and_names(dot_slice):
    _, prog, (a, b, bias) = dot_slice
    with pytest.raises(smelt.Error, match=r"takes 3 inputs \(a, b, bias\), got 2"):
        prog(a, b)
    with pytest.raises(smelt.Error, match="missing input 'bias'"):
        prog.run({"a": a, "b": b})
    with pytest.raises(smelt.Error, match="no input named 'c'"):
        prog.run({"a": a, "b": b, "bias": bias, "c": bias})


def test_non_array_inputs(dot_slice):
    _, prog, (a, b, bias) = dot_slice
    with pytest.raises(smelt.Error, match="got float64"):
        prog(a, b, [0.0] * 4096)  # a list becomes an array first, then the dtype is checked
    with pytest.raises(smelt.Error, match="expected an array"):
        prog(a, b, object())


def test_strided_input_is_copied_and_correct(dot_slice):
    graph, prog, (a, b, bias) = dot_slice
    wide = np.zeros((64, 2048), dtype=np.float32)
    wide[:, ::2] = a
    strided = wide[:, ::2]
    assert not strided.flags.c_contiguous
    np.testing.assert_array_equal(prog(strided, b, bias), prog(a, b, bias))


def test_reference_checks_inputs_too(dot_slice):
    graph, _, (a, b, bias) = dot_slice
    with pytest.raises(smelt.Error, match="input 'a'"):
        smelt.reference(graph, [a.T, b, bias])


def test_unknown_target_and_emit_kind(dot_slice):
    graph, prog, _ = dot_slice
    with pytest.raises(smelt.Error, match="unknown target tpu"):
        smelt.compile(graph, target="tpu")
    with pytest.raises(smelt.Error, match="unknown emit kind"):
        prog.emit("wasm")
    with pytest.raises(smelt.Error) as caught:
        prog.emit("asm", target="gpu")
    assert caught.value.kind == "invalid_argument"


def test_bad_profile_path(dot_slice, tmp_path):
    graph, _, _ = dot_slice
    with pytest.raises(smelt.Error, match="absent.json"):
        smelt.compile(graph, profile=tmp_path / "absent.json")
