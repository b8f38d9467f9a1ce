#!/usr/bin/env python3
"""smelt against its peers, side by side (issue 15).

  bench/peers/setup                      # once: a virtual environment with the peers, under build/
  build/peers-venv/bin/python bench/peers/run.py [--threads 1 2] [--rounds 10] [--only NAME ...]

The workloads (bench/peers/workloads.py): elementwise and view chains (luminal, ratchet, RoPE forward
and backward), GEMM-bound ones (SwiGLU, MLP towers, Llama MLP, attention, NasRNN), three exported
transformer blocks (scripts/export_blocks.py) and, for convolutions (issue 19), the ResNet-18 stage
of scripts/export_cnns.py (resnet_stage_b1, _b8: input [B,32,28,28]) and an Inception block
(inception_b1, _b8: GoogLeNet 3a-like, input [B,64,28,28]); their flops count every convolution's
multiply-adds. For every workload and thread count, in two regimes:
  default        every peer call allocates its outputs as a user's process does (glibc maps and
                 page-faults large buffers each time)
  reused         MALLOC_MMAP_MAX_=0 MALLOC_TRIM_THRESHOLD_=1e11: freed memory is reused, so the
                 peers' kernels alone are timed (what a serving process with a caching allocator sees)
it runs PyTorch eager, torch.compile (Inductor; --max-autotune adds mode="max-autotune"), JAX jit
(where workloads.py has a JAX version), ONNX Runtime (the torch.onnx.export'ed model) and smelt
(`smelt run` on that same ONNX file). Each worker process is pinned to `threads` cores (taskset)
with every library's thread count set to match. Every system's output is checked against torch
eager before any of its timings count. Timings: after two warm-up calls, --rounds rounds, each
system --per-round calls per round, in an order that rotates from round to round; the median and
the spread ((p75 - p25) / median) over all of them. smelt's times are its `--reps` samples after
`--warmup 5` (Program::benchmark: the kernels and the runtime's loop, no process start or
compilation; each round is a new smelt process, the peers' processes live through all rounds); the
peers' are the Python call, as users make it.

Writes bench/peers/results.csv (one row per workload, threads, regime and system, with smelt's
ratio to that system and to the best peer), bench/peers/results.png (smelt's speedup over the
best peer per workload), and prints a table. The physical limit per workload is
max(bytes moved / copy bandwidth, flops / matmul peak), both measured at the start of each worker
(torch copy of 256 MB; the best of torch.mm and ONNX Runtime's MatMul at 2048^3).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
from harness import (REGIMES, check, error_text, load_average, log, pinned,  # noqa: E402
                     safe_file_name, sample_stats, smelt_json, write_csv)


# ---- the worker: one regime, one thread count ---------------------------------------------


def measure_machine(threads):
    import torch
    torch.set_num_threads(threads)
    a = torch.empty(1 << 26)  # 256 MB
    a.fill_(1.0)
    b = torch.empty_like(a)
    times = []
    for _ in range(5):
        t = time.perf_counter()
        b.copy_(a)
        times.append(time.perf_counter() - t)
    bandwidth = 2 * a.numel() * 4 / min(times)  # read + write, bytes/s
    # The matmul peak: the best of torch's and ONNX Runtime's (MLAS) 2048^3 products.
    x = torch.randn(2048, 2048)
    candidates = [lambda: torch.mm(x, x)]
    try:
        import onnx
        import onnxruntime as ort
        from onnx import helper, TensorProto
        node = helper.make_node("MatMul", ["a", "b"], ["c"])
        io = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2048, 2048]) for n in ("a", "b", "c")]
        model = helper.make_model(helper.make_graph([node], "mm", io[:2], io[2:]),
                                  opset_imports=[helper.make_opsetid("", 17)])
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        sess = ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])
        xn = x.numpy()
        candidates.append(lambda: sess.run(None, {"a": xn, "b": xn}))
    except Exception:  # noqa: BLE001 - torch's alone then
        pass
    best = float("inf")
    for fn in candidates:
        fn()
        for _ in range(5):
            t = time.perf_counter()
            fn()
            best = min(best, time.perf_counter() - t)
    peak = 2 * 2048 ** 3 / best
    return bandwidth, peak


class System:
    """A way to run a workload: prepare once, then call() returns the output as numpy."""

    def __init__(self, name):
        self.name = name


def make_systems(w, work_dir, args):
    import numpy as np
    import torch
    systems = []
    tensors = [torch.from_numpy(a) for _, a in w.inputs]

    def torch_system(name, module):
        s = System(name)

        def call():
            with torch.no_grad():
                return module(*tensors)
        s.call = call
        s.to_numpy = lambda y: y.detach().numpy()
        return s

    systems.append(torch_system("torch_eager", w.module))
    modes = [("inductor", None)] + ([("inductor_max_autotune", "max-autotune")] if args.max_autotune else [])
    for name, mode in modes:
        try:
            compiled = torch.compile(w.module, mode=mode) if mode else torch.compile(w.module)
            systems.append(torch_system(name, compiled))
        except Exception as e:  # noqa: BLE001 - a peer that cannot build is reported, not fatal
            systems.append(failed(name, e))
    if w.jax_fn is not None:
        try:
            import jax
            params = {k: jax.numpy.asarray(v) for k, v in w.params().items()}
            args_j = [jax.numpy.asarray(a) for _, a in w.inputs]
            fn = jax.jit(lambda *xs: w.jax_fn(params, *xs))
            s = System("jax_jit")
            s.call = lambda: fn(*args_j).block_until_ready()
            s.to_numpy = lambda y: np.asarray(y)
            systems.append(s)
        except Exception as e:  # noqa: BLE001
            systems.append(failed("jax_jit", e))
    try:
        import onnxruntime as ort
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = args.threads
        opts.inter_op_num_threads = 1
        sess = ort.InferenceSession(os.path.join(work_dir, "model.onnx"), opts, providers=["CPUExecutionProvider"])
        feed = {i.name: a for i, (_, a) in zip(sess.get_inputs(), w.inputs)}
        s = System("onnxruntime")
        s.call = lambda: sess.run(None, feed)[0]
        s.to_numpy = lambda y: y
        systems.append(s)
    except Exception as e:  # noqa: BLE001
        systems.append(failed("onnxruntime", e))
    systems.append(smelt_system(work_dir, args))
    return systems


def failed(name, error):
    s = System(name)
    s.error = error_text(error)
    return s


def smelt_system(work_dir, args):
    """smelt through its CLI: each call is one `smelt run --reps N` process; its samples count."""
    import numpy as np
    s = System("smelt")
    model = os.path.join(work_dir, "model.onnx")
    base = ["run", model, "--inputs", os.path.join(work_dir, "inputs"), "--threads", str(args.threads), "--json"]
    s.info = {}

    def run(extra):
        return smelt_json(args.smelt, base + extra)

    def output():
        with tempfile.TemporaryDirectory() as out:
            j = run(["--outputs", out])
            s.info = {"kernels": j["kernels"], "compile_s": j["compile_seconds"]}
            name = j["outputs"][0]["name"]
            return np.load(os.path.join(out, safe_file_name(name) + ".npy"))

    s.output = output
    # Each round is a fresh process: its first runs fault in pages and pack weights, while the
    # peers' processes have run every earlier round. Five untimed runs bring it to steady state.
    s.timed = lambda n: [us * 1e-6 for us in run(["--reps", str(n), "--warmup", "5"])["samples_us"]]
    return s


def run_worker(args):
    import numpy as np
    import torch
    torch.set_num_threads(args.threads)
    import workloads as wl
    bandwidth, peak = measure_machine(args.threads)
    log(f"[{args.regime}, {args.threads}t] copy {bandwidth / 1e9:.1f} GB/s, matmul {peak / 1e9:.1f} GFLOP/s")
    results = []
    for w in wl.all_workloads(args.small):
        if args.only and w.name not in args.only:
            continue
        work_dir = os.path.join(args.work, w.name)
        with torch.no_grad():
            reference = w.module(*[torch.from_numpy(a) for _, a in w.inputs]).numpy()
        limit_s = max(w.bytes_moved(reference.nbytes) / bandwidth, w.count_flops() / peak)
        systems = make_systems(w, work_dir, args)
        live = []
        for s in systems:
            row = {"workload": w.name, "threads": args.threads, "regime": args.regime, "system": s.name,
                   "limit_ms": limit_s * 1e3, "note": w.note}
            if hasattr(s, "error"):
                row["status"] = "failed: " + s.error
                results.append(row)
                continue
            try:
                got = s.output() if hasattr(s, "output") else s.to_numpy(s.call())
                if not hasattr(s, "output"):
                    s.call()  # the second warm-up call
                problem = check(reference, got)
            except Exception as e:  # noqa: BLE001
                problem = error_text(e)
            if problem:
                row["status"] = "wrong or failed: " + problem
                results.append(row)
                continue
            row["status"] = "ok"
            row["samples"] = []
            live.append((s, row))
        for r in range(args.rounds):
            order = live[r % len(live):] + live[:r % len(live)] if live else []
            for s, row in order:
                if hasattr(s, "timed"):
                    row["samples"] += s.timed(args.per_round)
                    continue
                for _ in range(args.per_round):
                    t = time.perf_counter()
                    s.call()
                    row["samples"].append(time.perf_counter() - t)
        for s, row in live:
            row.update(sample_stats(row.pop("samples")))
            row.update(getattr(s, "info", {}))
            results.append(row)
        done = ", ".join(f"{row['system']} {row['median_ms']:.3f}" for _, row in live)
        log(f"[{args.regime}, {args.threads}t] {w.name}: {done} ms (limit {limit_s * 1e3:.3f})")
    with open(args.json_out, "w") as f:
        json.dump(results, f)


# ---- the driver ---------------------------------------------------------------------------


def prepare(args):
    """Exports every workload to ONNX and writes its inputs as .npy, once for all workers."""
    import numpy as np
    import onnx
    import torch
    import warnings
    import logging
    import workloads as wl
    logging.getLogger("torch.onnx").setLevel(logging.ERROR)  # "torchvision is not installed" x4 per export
    for w in wl.all_workloads(args.small):
        if args.only and w.name not in args.only:
            continue
        work_dir = os.path.join(args.work, w.name)
        os.makedirs(os.path.join(work_dir, "inputs"), exist_ok=True)
        for name, a in w.inputs:
            np.save(os.path.join(work_dir, "inputs", name + ".npy"), a)
        model = os.path.join(work_dir, "model.onnx")
        tensors = tuple(torch.from_numpy(a) for _, a in w.inputs)
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(w.module, tensors, model, input_names=[n for n, _ in w.inputs], output_names=["y"],
                              opset_version=20, dynamo=True, external_data=False, verbose=False)
        onnx.checker.check_model(onnx.load(model))
        log(f"exported {w.name}: {model}")


def summarize(rows, out_csv, out_png):
    best = {}
    for r in rows:
        if r.get("status") != "ok" or r["system"] == "smelt":
            continue
        key = (r["workload"], r["threads"], r["regime"])
        if key not in best or r["median_ms"] < best[key]["median_ms"]:
            best[key] = r
    smelt = {(r["workload"], r["threads"], r["regime"]): r for r in rows if r["system"] == "smelt"}
    for r in rows:
        key = (r["workload"], r["threads"], r["regime"])
        s = smelt.get(key)
        ok = s is not None and s.get("status") == "ok"
        r["smelt_ratio"] = r["median_ms"] / s["median_ms"] if ok and r.get("status") == "ok" else ""
        r["smelt_vs_best_peer"] = best[key]["median_ms"] / s["median_ms"] if ok and key in best else ""
        r["best_peer"] = best[key]["system"] if key in best else ""
    fields = ["workload", "threads", "regime", "system", "status", "median_ms", "spread", "runs", "limit_ms",
              "smelt_ratio", "best_peer", "smelt_vs_best_peer", "kernels", "compile_s", "note"]
    write_csv(out_csv, fields, rows)
    print(f"\n{'workload':24} {'t':>2} {'best peer (default)':>28} {'best peer (reused)':>28} {'smelt':>9}"
          f" {'vs best, default':>16} {'vs best, reused':>15} {'smelt/limit':>11}")
    workloads = sorted({(r["workload"], r["threads"]) for r in rows}, key=lambda k: (k[1], k[0]))
    for name, t in workloads:
        cells = []
        for regime in ("default", "reused"):
            b = best.get((name, t, regime))
            cells.append(f"{b['median_ms']:.3f} ({b['system']})" if b else "-")
        s = smelt.get((name, t, "reused")) or smelt.get((name, t, "default"))
        if not s or s.get("status") != "ok":
            print(f"{name:24} {t:>2} {cells[0]:>28} {cells[1]:>28} {'-':>9}  smelt: {s.get('status') if s else 'no run'}")
            continue
        ratios = []
        for regime in ("default", "reused"):
            b, sr = best.get((name, t, regime)), smelt.get((name, t, regime))
            ratios.append(f"{b['median_ms'] / sr['median_ms']:.2f}x" if b and sr and sr.get("status") == "ok" else "-")
        print(f"{name:24} {t:>2} {cells[0]:>28} {cells[1]:>28} {s['median_ms']:>9.3f} {ratios[0]:>16} {ratios[1]:>15}"
              f" {s['median_ms'] / s['limit_ms']:>10.2f}x")
    failures = [r for r in rows if r.get("status") != "ok"]
    for r in failures:
        print(f"  {r['workload']} {r['threads']}t {r['regime']} {r['system']}: {r['status']}")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        threads = sorted({t for _, t in workloads})
        names = sorted({n for n, _ in workloads})
        fig, ax = plt.subplots(figsize=(max(8, len(names) * 0.9), 5))
        width = 0.8 / (2 * len(threads))
        k = 0
        for t in threads:
            for regime, hatch in (("default", ""), ("reused", "//")):
                ys = []
                for n in names:
                    b, s = best.get((n, t, regime)), smelt.get((n, t, regime))
                    ys.append(b["median_ms"] / s["median_ms"] if b and s and s.get("status") == "ok" else 0)
                ax.bar([i + k * width for i in range(len(names))], ys, width, hatch=hatch,
                       label=f"{t} thread{'s' if t > 1 else ''}, {regime}")
                k += 1
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_yscale("log")
        ax.set_xticks([i + (k - 1) * width / 2 for i in range(len(names))])
        ax.set_xticklabels(names, rotation=35, ha="right", fontsize=8)
        ax.set_ylabel("smelt speedup over the best peer (x, log)")
        ax.set_title("smelt vs the best of PyTorch eager / Inductor / JAX / ONNX Runtime")
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(out_png, dpi=110)
        print(f"wrote {out_csv} and {out_png}")
    except ImportError:
        print(f"wrote {out_csv} (no matplotlib: no plot)")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    p.add_argument("--regimes", nargs="+", default=list(REGIMES), choices=list(REGIMES))
    p.add_argument("--rounds", type=int, default=10)
    p.add_argument("--per-round", type=int, default=3)
    p.add_argument("--only", nargs="*", default=[], help="workload names (default: all)")
    p.add_argument("--small", action="store_true", help="reduced sizes: a quick run of the harness itself")
    p.add_argument("--max-autotune", action="store_true", help="also torch.compile(mode='max-autotune') (slow)")
    p.add_argument("--smelt", default=os.path.join(ROOT, "build", "cli", "smelt"))
    p.add_argument("--work", default=os.path.join(ROOT, "build", "peers"))
    p.add_argument("--out", help="CSV to write (default: bench/peers/results.csv for a full run; "
                   "with --only or --small, results.csv in --work, so a partial run never replaces the committed table)")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--regime", default="default", help=argparse.SUPPRESS)
    p.add_argument("--json-out", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        args.threads = args.threads[0]
        run_worker(args)
        return 0
    if not os.access(args.smelt, os.X_OK):
        log(f"error: {args.smelt} is not built (scripts/build smelt)")
        return 1
    cores = os.cpu_count() or 1
    if max(args.threads) > cores:
        log(f"error: --threads {max(args.threads)} on a {cores}-core machine")
        return 1
    log(f"load before: {load_average()} ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})")
    if args.out is None:
        partial = bool(args.only) or args.small
        args.out = os.path.join(args.work if partial else HERE, "results.csv")
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)  # found before the run, not after
    prepare(args)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for regime in args.regimes:
            for t in args.threads:
                out = os.path.join(tmp, f"{regime}_{t}.json")
                cmd = [sys.executable, os.path.abspath(__file__), "--worker",
                       "--regime", regime, "--threads", str(t), "--rounds", str(args.rounds), "--per-round",
                       str(args.per_round), "--smelt", args.smelt, "--work", args.work, "--json-out", out]
                cmd += (["--only"] + args.only if args.only else []) + (["--small"] if args.small else [])
                cmd += ["--max-autotune"] if args.max_autotune else []
                cmd, env = pinned(cmd, t, regime)
                r = subprocess.run(cmd, env=env)
                if r.returncode != 0:
                    log(f"error: the worker for {regime}, {t} threads failed (exit {r.returncode})")
                    return 1
                with open(out) as f:
                    rows += json.load(f)
    log(f"load after: {load_average()}")
    summarize(rows, args.out, os.path.splitext(args.out)[0] + ".png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
