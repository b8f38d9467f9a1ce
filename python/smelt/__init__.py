"""smelt: an equality-saturation fusion compiler for tensor programs, from Python.

    import numpy as np, smelt

    g = smelt.Graph("silu_slices")
    h = g.input("h", "f32", [64, 256])
    s = smelt.slice_axis(h, 1, 0, 128)
    g.output(s * smelt.sigmoid(s))

    prog = smelt.compile(g)                  # fuse, lower with LLVM, load on the host
    x = np.random.rand(64, 256).astype(np.float32)
    y = prog(x)                              # numpy in, numpy out
    [want] = smelt.reference(g, [x])         # smelt's reference interpreter

Graphs also come from files: smelt.load("model.onnx") or smelt.load("graph.sg").
Every error is a smelt.Error (kind, message, and file/line/col where it has a place).
PyTorch: torch.compile(model, backend=smelt.torch.backend) (module smelt.torch).
"""

from ._error import Error
from ._smelt import (
    Graph,
    Limits,
    Program,
    Tensor,
    abs,
    add,
    broadcast,
    cast,
    compare,
    compile,
    concat,
    cos,
    default_tolerance,
    div,
    eq,
    erf,
    exp,
    exp2,
    gelu,
    le,
    load,
    log,
    log2,
    lt,
    matmul,
    conv,
    max,
    min,
    mul,
    neg,
    pad,
    parse,
    permute,
    pow,
    random_inputs,
    recip,
    reduce_max,
    reduce_sum,
    reference_with_error_scales,
    reference,
    relu,
    reshape,
    rsqrt,
    sigmoid,
    sin,
    slice,
    slice_axis,
    sqrt,
    sub,
    tanh,
    where,
)



def bf16_bits_to_f32(bits):
    """bfloat16 tensors travel as uint16 arrays of their bits (numpy has no bfloat16):
    this widens such an array to float32 values, exactly."""
    import numpy as np

    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


def f32_to_bf16_bits(values):
    """float32 values rounded to the nearest bfloat16 (ties to even), as the uint16
    bits smelt takes for a bf16 input. NaN stays NaN."""
    import numpy as np

    u = np.asarray(values, dtype=np.float32).view(np.uint32)
    rounded = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(np.asarray(values, dtype=np.float32))
    return np.where(nan, np.uint16(0x7FC0), rounded).astype(np.uint16)


# abs, max, min, pow and slice are left out of `from smelt import *`: they would
# shadow Python's builtins. Use them as smelt.max(...).
__all__ = [
    "Error", "Graph", "Limits", "Program", "Tensor",
    "load", "parse", "compile", "reference", "reference_with_error_scales", "compare", "random_inputs",
    "default_tolerance",
    "bf16_bits_to_f32", "f32_to_bf16_bits",
    "add", "sub", "mul", "div", "lt", "le", "eq", "where", "neg", "exp", "exp2", "log", "log2",
    "sin", "cos", "tanh", "sqrt", "rsqrt", "recip", "relu", "sigmoid", "gelu", "erf", "cast",
    "reshape", "permute", "slice_axis", "pad", "broadcast", "concat",
    "reduce_sum", "reduce_max", "matmul", "conv",
]
