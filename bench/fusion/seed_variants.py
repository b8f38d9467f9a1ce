#!/usr/bin/env python3
"""Writes the seed cases' variants (tests/fusion/graphs/variants/*.sg).

The five seeds (examples/) each show one fusion; these vary them the way real
models do, so that a pick tuned to the seeds' exact shapes shows up as wrong:
  dot-slice  (examples/mlir_dot_slice.sg): 2-D and 3-D activations, with and
             without a bias, uneven and unaligned column splits, three-way
             splits, the halves taken through a reshape, a transposed weight;
  towers     (examples/migraphx_mlp_towers.sg): 3 to 10 towers of 2 layers, a
             3-D activation, towers of different widths;
  permutes   (examples/ratchet_permute.sg): a permute before, after and around
             transcendental chains, and before a reduction.
Sizes are small enough for the reference interpreter in the tests
(tests/fusion/seed_variants_test.cpp) and large enough that the kernels'
times are not only their launch. bench/fusion/pick_vs_measured times them.

usage: bench/fusion/seed_variants.py [OUT_DIR]   (default tests/fusion/graphs/variants)
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def shape(s):
    return "[" + ",".join(str(x) for x in s) + "]"


def slice_last(name, src, full, lo, hi):
    start = [0] * len(full)
    stop = list(full)
    start[-1], stop[-1] = lo, hi
    out = list(full)
    out[-1] = hi - lo
    return (f"{name} = slice({src}, start={shape(start)}, stop={shape(stop)}, step={shape([1] * len(full))})"
            f" : f32{shape(out)}")


def dot_slice(name, rows, k, n, *, bias=True, combine="sigmoid", extra=0, transposed=False, reshaped=False,
              note=""):
    """y = left (op) right over C = A @ B (+ bias), C's columns split at n
    (and `extra` more columns, output through tanh)."""
    width = 2 * n + extra
    lines = [f"# dot-slice variant: {note}", f"graph {name}", ""]
    lines.append(f"a = input() : f32{shape(rows + [k])}")
    if transposed:
        lines.append(f"bt = input() : f32{shape([width, k])}")
        lines.append(f"b = permute(bt, perm=[1,0]) : f32{shape([k, width])}")
    else:
        lines.append(f"b = input() : f32{shape([k, width])}")
    full = rows + [width]
    lines.append(f"dot = matmul(a, b) : f32{shape(full)}")
    c = "dot"
    if bias:
        lines.append(f"bias = input() : f32[{width}]")
        lines.append(f"bias_b = broadcast(bias, shape={shape(full)}) : f32{shape(full)}")
        lines.append(f"c = add(dot, bias_b) : f32{shape(full)}")
        c = "c"
    half = rows + [n]
    if reshaped:
        assert extra == 0
        split = rows + [2, n]
        lines.append(f"halves = reshape({c}, shape={shape(split)}) : f32{shape(split)}")
        for i, side in enumerate(["left", "right"]):
            start = [0] * len(split)
            stop = list(split)
            start[-2], stop[-2] = i, i + 1
            one = rows + [1, n]
            lines.append(f"{side}3 = slice(halves, start={shape(start)}, stop={shape(stop)}, "
                         f"step={shape([1] * len(split))}) : f32{shape(one)}")
            lines.append(f"{side} = reshape({side}3, shape={shape(half)}) : f32{shape(half)}")
    else:
        lines.append(slice_last("left", c, full, 0, n))
        lines.append(slice_last("right", c, full, n, 2 * n))
    outputs = ["y"]
    if combine == "sigmoid":
        lines += ["gate = sigmoid(right)", "y = mul(left, gate)"]
    elif combine == "silu":
        lines += ["sig = sigmoid(left)", "silu = mul(left, sig)", "y = mul(silu, right)"]
    elif combine == "gelu":
        lines += ["g = gelu(left)", "y = mul(g, right)"]
    if extra:
        lines.append(slice_last("rest", c, full, 2 * n, 2 * n + extra))
        lines.append("z = tanh(rest)")
        outputs.append("z")
    lines.append("output " + ", ".join(outputs))
    return name, "\n".join(lines) + "\n"


def three_way(name, m, k, n):
    full = [m, 3 * n]
    lines = ["# dot-slice variant: three column blocks of one product, a * sigmoid(b) + c",
             f"graph {name}", "",
             f"a = input() : f32[{m},{k}]", f"b = input() : f32[{k},{3 * n}]",
             f"dot = matmul(a, b) : f32{shape(full)}",
             slice_last("p", "dot", full, 0, n), slice_last("q", "dot", full, n, 2 * n),
             slice_last("r", "dot", full, 2 * n, 3 * n),
             "sq = sigmoid(q)", "pq = mul(p, sq)", "y = add(pq, r)", "output y"]
    return name, "\n".join(lines) + "\n"


def towers(name, count, rows, width, layers=2, widths=None, note=""):
    """`count` towers of `layers` dot -> add(bias) -> SiLU on one input."""
    widths = widths or [width] * count
    lines = [f"# towers variant: {note}", f"graph {name}", ""]
    x_shape = rows + [width]
    lines.append(f"x = input() : f32{shape(x_shape)}")
    outputs = []
    for t in range(count):
        prev, prev_w = "x", width
        for layer in range(1, layers + 1):
            w = widths[t]
            out = rows + [w]
            p = f"t{t}_l{layer}"
            lines.append(f"w_{p} = input() : f32[{prev_w},{w}]")
            lines.append(f"b_{p} = input() : f32[{w}]")
            lines.append(f"{p}_dot = matmul({prev}, w_{p}) : f32{shape(out)}")
            lines.append(f"{p}_bias = broadcast(b_{p}, shape={shape(out)}) : f32{shape(out)}")
            lines.append(f"{p}_z = add({p}_dot, {p}_bias)")
            lines.append(f"{p}_sig = sigmoid({p}_z)")
            lines.append(f"{p}_act = mul({p}_z, {p}_sig) : f32{shape(out)}")
            prev, prev_w = f"{p}_act", w
        outputs.append(prev)
    lines.append("output " + ", ".join(outputs))
    return name, "\n".join(lines) + "\n"


def permuted(name, dims, perm, chain, *, where="before", reduce_last=False, note=""):
    out_dims = [dims[p] for p in perm]
    lines = [f"# permute variant: {note}", f"graph {name}", "", f"x = input() : f32{shape(dims)}"]
    cur, cur_dims = "x", dims
    if where in ("before", "around"):
        lines.append(f"xp = permute(x, perm={shape(perm)}) : f32{shape(out_dims)}")
        cur, cur_dims = "xp", out_dims
    for i, op in enumerate(chain):
        lines.append(f"c{i} = {op}({cur})")
        cur = f"c{i}"
    if where in ("after", "around"):
        inverse = [perm.index(i) for i in range(len(perm))] if where == "around" else perm
        back = [cur_dims[p] for p in inverse]
        lines.append(f"yp = permute({cur}, perm={shape(inverse)}) : f32{shape(back)}")
        cur, cur_dims = "yp", back
    if reduce_last:
        red = cur_dims[:-1]
        lines.append(f"y = reduce_sum({cur}, axes=[{len(cur_dims) - 1}]) : f32{shape(red)}")
    else:
        lines.append(f"y = neg({cur})" if cur == "x" else f"y = mul({cur}, {cur})")
    lines.append("output y")
    return name, "\n".join(lines) + "\n"


def variants():
    yield dot_slice("ds_2d_sigmoid", [64], 256, 256, note="2-D, bias, left * sigmoid(right)")
    yield dot_slice("ds_2d_silu_nobias", [64], 256, 256, bias=False, combine="silu",
                    note="2-D, no bias, silu(left) * right (SwiGLU)")
    yield dot_slice("ds_2d_gelu_rows8", [8], 512, 256, combine="gelu", note="8 rows (decode), gelu(left) * right")
    yield dot_slice("ds_3d_nobias", [2, 32], 256, 256, bias=False, combine="silu",
                    note="3-D activation [2,32,256] @ [256,512] (an ONNX Linear), SwiGLU")
    yield dot_slice("ds_3d_bias", [4, 16], 128, 192, note="3-D activation, bias, 192-wide halves")
    yield dot_slice("ds_uneven_extra", [64], 256, 256, extra=128,
                    note="the product is 640 wide: two 256-wide halves and 128 more columns through tanh")
    yield dot_slice("ds_unaligned", [48], 200, 200, note="unaligned extents: 48 rows, K 200, halves of 200 columns")
    yield dot_slice("ds_reshaped", [64], 256, 256, reshaped=True,
                    note="halves through a reshape to [64,2,256] and a slice of the middle axis (torch chunk)")
    yield dot_slice("ds_reshaped_3d", [2, 32], 128, 128, bias=False, reshaped=True,
                    note="3-D, halves through a reshape to [2,32,2,128]")
    yield dot_slice("ds_transposed_weight", [64], 256, 256, transposed=True,
                    note="the weight stored [2N, K] and permuted (ONNX Gemm transB)")
    yield three_way("ds_three_way", 64, 256, 128)
    for count in (3, 4, 6, 8, 10):
        yield towers(f"towers_{count}x2", count, [32], 64, note=f"{count} towers of 2 layers on x [32,64]")
    yield towers("towers_3d_6x2", 6, [2, 16], 64, note="6 towers of 2 layers on a 3-D activation [2,16,64]")
    yield towers("towers_uneven_4x2", 4, [32], 64, widths=[64, 96, 64, 128],
                 note="4 towers of different widths (64, 96, 64, 128)")
    yield towers("towers_wide_3x2", 3, [64], 256, note="3 towers 256 wide on x [64,256]")
    yield permuted("perm_before_chain", [4, 16, 32, 8], [0, 2, 1, 3], ["gelu", "exp", "cos"],
                   note="permute then gelu, exp, cos (the ratchet seed at another shape)")
    yield permuted("perm_after_chain", [2, 16, 8, 32], [0, 2, 1, 3], ["exp", "tanh", "sin"], where="after",
                   note="exp, tanh, sin, then a permute")
    yield permuted("perm_around_chain", [8, 64, 32], [0, 2, 1], ["sigmoid", "exp"], where="around",
                   note="a transpose, sigmoid and exp, and the transpose back")
    yield permuted("perm_last_axis_chain", [64, 32, 16], [2, 1, 0], ["tanh", "exp"],
                   note="a permute that moves the last axis first, then tanh and exp")
    yield permuted("perm_then_reduce", [4, 32, 64], [0, 2, 1], ["exp"], reduce_last=True,
                   note="permute, exp, and a sum over the new last axis")
    yield permuted("perm_2d_chain", [256, 128], [1, 0], ["gelu", "tanh"], note="a 2-D transpose then gelu, tanh")


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "tests", "fusion", "graphs", "variants")
    os.makedirs(out, exist_ok=True)
    count = 0
    for name, text in variants():
        with open(os.path.join(out, name + ".sg"), "w") as f:
            f.write(text)
        count += 1
    print(f"{count} variants in {out}")


if __name__ == "__main__":
    main()
