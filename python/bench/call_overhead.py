"""What one Python call of a tiny compiled program costs beyond C++'s Program::run_into.

    build/python-venv/bin/python python/bench/call_overhead.py [--threads N] [--size N]

Both sides run the same program on the same numpy arrays in one process: the C++
side is Program::run_into called in a C++ loop (Program._run_into_seconds, each
call timed with steady_clock); the Python side is prog(x) and prog.run({"x": x})
timed in batches. The difference is the binding's cost per call: converting and
checking the input, allocating the output array, releasing and taking the GIL.
The target is at most 5 us above C++. A benchmark, not a test: numbers move with
the machine's load.
"""

import argparse
import statistics
import time

import numpy as np

import smelt


def per_call_us(fn, calls=2000, batches=25):
    """Median over batches of the mean time per call, in microseconds."""
    for _ in range(calls // 10):
        fn()
    samples = []
    for _ in range(batches):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        samples.append((time.perf_counter() - start) / calls * 1e6)
    return statistics.median(samples)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1, help="host threads of the program (0: every core)")
    parser.add_argument("--size", type=int, default=16, help="elements of the input vector")
    args = parser.parse_args()

    g = smelt.Graph("tiny")
    x = g.input("x", "f32", [args.size])
    g.output(smelt.relu(x) * 2.0)
    prog = smelt.compile(g, threads=args.threads)
    x_value = np.linspace(-1, 1, args.size, dtype=np.float32)
    np.testing.assert_allclose(prog(x_value), np.maximum(x_value, 0) * 2)

    prog._run_into_seconds([x_value], 2000)  # warm up
    cpp = statistics.median(
        statistics.median(prog._run_into_seconds([x_value], 2000)) * 1e6 for _ in range(25))
    call = per_call_us(lambda: prog(x_value))
    named = per_call_us(lambda: prog.run({"x": x_value}))
    print(f"tiny program: relu(x) * 2 on f32[{args.size}], {len(prog.kernels)} kernel(s), "
          f"{prog.device}")
    print(f"{'path':<38} {'us per call':>12} {'above C++':>10}")
    print(f"{'C++ Program::run_into':<38} {cpp:12.2f} {'':>10}")
    print(f"{'Python prog(x)':<38} {call:12.2f} {call - cpp:10.2f}")
    print(f"{'Python prog.run({x: ...})':<38} {named:12.2f} {named - cpp:10.2f}")
    print(f"target: at most 5 us above C++: {'met' if call - cpp <= 5 else 'NOT met'} by prog(x)")


if __name__ == "__main__":
    main()
