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

# abs, max, min, pow and slice are left out of `from smelt import *`: they would
# shadow Python's builtins. Use them as smelt.max(...).
__all__ = [
    "Error", "Graph", "Limits", "Program", "Tensor",
    "load", "parse", "compile", "reference", "random_inputs", "default_tolerance",
    "add", "sub", "mul", "div", "lt", "le", "eq", "where", "neg", "exp", "exp2", "log", "log2",
    "sin", "cos", "tanh", "sqrt", "rsqrt", "recip", "relu", "sigmoid", "gelu", "erf", "cast",
    "reshape", "permute", "slice_axis", "pad", "broadcast", "concat",
    "reduce_sum", "reduce_max", "matmul",
]
