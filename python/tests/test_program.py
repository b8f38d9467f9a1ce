"""smelt.Program: calls, named runs, reports, code, benchmarks, threads."""

import sys
import threading
import time

import numpy as np
import pytest

import smelt
from conftest import EXAMPLES


@pytest.fixture(scope="module")
def towers():
    """Several inputs and six outputs."""
    graph = smelt.load(EXAMPLES / "migraphx_mlp_towers.sg")
    return graph, smelt.compile(graph)


def test_call_equals_run(towers):
    graph, prog = towers
    inputs = smelt.random_inputs(graph, seed=6)
    positional = prog(*inputs)
    named = prog.run(dict(zip(graph.input_names, inputs)))
    assert isinstance(positional, tuple) and len(positional) == len(graph.outputs)
    assert list(named) == prog.output_names == graph.output_names
    for p, n in zip(positional, named.values()):
        np.testing.assert_array_equal(p, n)


def test_outputs_are_fresh_numpy_arrays(silu_graph):
    prog = smelt.compile(silu_graph)
    x = np.ones((64, 256), dtype=np.float32)
    first, second = prog(x), prog(x)
    assert isinstance(first, np.ndarray) and first.dtype == np.float32 and first.flags.c_contiguous
    assert not np.shares_memory(first, second)
    first[:] = 0  # writable and independent
    assert second.min() > 0


def test_kernels_report_and_fusion_facts(towers):
    graph, prog = towers
    facts = prog.fusion
    assert len(prog.kernels) == facts["kernels_after"] < facts["kernels_before"]
    assert prog.predicted_us == facts["predicted_us_after"] > 0
    report = prog.report()
    assert report.startswith(f"{graph.source}: graph migraphx_mlp_towers\n")
    assert f"after (fused):              {len(prog.kernels)} kernels" in report
    for name in prog.kernels:
        assert f"kernel {name}: " in report
    assert "rules that changed the e-graph:" in report
    assert repr(prog).startswith("<smelt.Program migraphx_mlp_towers: ")


def test_no_fusion_runs_one_kernel_per_op(silu_graph):
    prog = smelt.compile(silu_graph, fusion=False)
    assert len(prog.kernels) == prog.fusion["kernels_before"] == 3


def test_emit(silu_graph):
    prog = smelt.compile(silu_graph)
    assert "define" in prog.emit("llvm")
    assert prog.emit("kernels").count("kernel ") >= len(prog.kernels)
    ptx = prog.emit("ptx")  # the kind names its target: cuda, lowered without a GPU
    assert ".target sm_80" in ptx
    assert isinstance(prog.emit("hsaco"), bytes)


def test_benchmark(silu_graph):
    prog = smelt.compile(silu_graph, threads=1)
    seconds = prog.benchmark(5)
    assert len(seconds) == 5 and all(0 < s < 1 for s in seconds)
    x = np.ones((64, 256), dtype=np.float32)
    assert len(prog.benchmark(reps=2, warmup=0, inputs={"h": x})) == 2
    with pytest.raises(smelt.Error, match="reps"):
        prog.benchmark(0)


def test_limits_and_options(silu_graph):
    limits = smelt.Limits()
    limits.iterations = 1
    prog = smelt.compile(silu_graph, limits=limits, rewrites=False, threads=1)
    assert prog.fusion["extractor"] != ""
    assert "host" in prog.device and prog.target == "host"


def test_unsafe_fp_adds_the_real_arithmetic_rules():
    """A per-map scale of a convolution (a batch-norm's) may go into its weights only with unsafe_fp."""
    g = smelt.Graph("conv_scale")
    x = g.input("x", "f32", [1, 2, 6, 6])
    w = g.input("w", "f32", [3, 2, 3, 3])
    k = g.input("k", "f32", [1, 3, 1, 1])
    g.output(smelt.mul(smelt.conv(x, w, lo=[1, 1], hi=[1, 1]), smelt.broadcast(k, [1, 3, 6, 6])))
    exact = smelt.compile(g, threads=1)
    assert "conv-scale-into-weights" not in exact.fusion["rules_fired"]
    fast = smelt.compile(g, threads=1, unsafe_fp=True)
    assert fast.fusion["rules_fired"]["conv-scale-into-weights"] >= 1
    inputs = smelt.random_inputs(g, seed=3)
    got_all = fast(*inputs)
    got_all = got_all if isinstance(got_all, (list, tuple)) else [got_all]
    for got, want in zip(got_all, smelt.reference(g, inputs)):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_runs_from_many_threads(towers):
    """Runs of one program from several threads take turns and each gets its own results."""
    graph, prog = towers
    cases = [smelt.random_inputs(graph, seed=s) for s in range(4)]
    expected = [prog(*inputs) for inputs in cases]
    failures = []

    def worker(i):
        for _ in range(20):
            got = prog(*cases[i])
            if not all(np.array_equal(g, w) for g, w in zip(got, expected[i])):
                failures.append(i)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []


def test_a_run_releases_the_gil():
    """While one thread is inside a run, another Python thread runs. No clock: with the switch
    interval at 30 s the GIL changes hands only where a thread gives it up (the main thread's
    sleeps, the run if it releases the GIL), so the main thread's counter moves between the
    worker's two reads around the run exactly when the run released the GIL."""
    g = smelt.Graph("big_matmul")
    a = g.input("a", "f32", [2048, 2048])
    g.output(a @ a)
    prog = smelt.compile(g, threads=1)
    [x] = smelt.random_inputs(g)
    prog(x)
    counter, moved, done = [0], [], threading.Event()

    def worker():
        before = counter[0]
        prog(x)
        moved.append(counter[0] - before)
        done.set()

    interval = sys.getswitchinterval()
    sys.setswitchinterval(30)
    try:
        thread = threading.Thread(target=worker)
        thread.start()
        while not done.is_set():
            counter[0] += 1
            time.sleep(0.0001)
        thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert moved[0] > 0, "the main thread did not run while the worker was inside prog(x)"


def test_compile_runs_without_the_gil(silu_graph):
    """Two compilations in two threads both finish with correct programs."""
    results = {}

    def compile_in_thread(key):
        results[key] = smelt.compile(silu_graph, threads=1)

    threads = [threading.Thread(target=compile_in_thread, args=(k,)) for k in "ab"]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    x = np.ones((64, 256), dtype=np.float32)
    np.testing.assert_array_equal(results["a"](x), results["b"](x))


def test_bf16_inputs_and_outputs_travel_as_bits():
    g = smelt.Graph()
    x = g.input("x", "bf16", [8])
    g.output(x * 2.0)
    values = np.linspace(-3, 3, 8, dtype=np.float32)
    bits = smelt.f32_to_bf16_bits(values)
    out = smelt.compile(g)(bits)
    assert out.dtype == np.uint16
    np.testing.assert_array_equal(smelt.bf16_bits_to_f32(out), 2 * smelt.bf16_bits_to_f32(bits))
