#!/usr/bin/env python3
"""smelt against PyTorch on a GPU (issue 36), side by side in one process run.

For each workload: the PyTorch module of bench/peers/workloads.py (or written here) is exported
with torch.onnx.export (dynamo) and run by `smelt run MODEL --target cuda --reps N --json`, fused
and with --no-fusion (CUDA events around the kernels, as Program::benchmark times them); the same
module runs in PyTorch eager and, where time is left, under torch.compile (Inductor), each timed
call by call with CUDA events around the Python call, as users make it. Medians. Where the inputs
are f32, smelt's output (on the same .npy inputs) is compared with eager's before its time counts.

Writes OUT/gpu_results.csv and prints a table (smelt vs eager, vs Inductor, fused vs unfused,
achieved bandwidth against the device's measured copy bandwidth, or TFLOP/s).

Needs: torch with CUDA, onnx + onnxscript (the exporter), the smelt binary. bench/gpu/run calls it.
"""

import argparse
import copy
import csv
import json
import math
import os
import subprocess
import sys
import time

import numpy as np
import torch
import torch.nn as nn

DEVICE = "cuda"  # torch's device; "cpu" with --target host
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench", "peers"))
import workloads as wl  # noqa: E402


def log(*args):
    print(*args, file=sys.stderr, flush=True)


class Gemm(nn.Module):
    def forward(self, a, b):
        return a @ b


class Spec:
    def __init__(self, name, module, inputs, dtype=torch.float32, bytes_moved=0.0, flops=0.0, note=""):
        self.name, self.module, self.inputs, self.dtype = name, module.eval(), inputs, dtype
        self.bytes_moved, self.flops, self.note = bytes_moved, flops, note


def specs(small):
    out = []
    seq = 512 if small else 8192  # the nvFuser seed's [1, 32, 8192, 128], bf16
    rope_inputs = [("g", wl.randn(12, 1, 32, seq, 128)), ("cos", wl.randn(13, seq, 128)), ("sin", wl.randn(14, seq, 128))]
    rope_bytes = 2.0 * (2 * 32 * seq * 128 + 2 * seq * 128)  # g read, dx written, cos / sin read once
    out.append(Spec("rope_bwd_bf16", wl.RopeBwd(), rope_inputs, torch.bfloat16, rope_bytes, note="nvFuser seed size"))
    x_inputs = [("x", wl.randn(5, 1, 32, seq, 128)), ("cos", wl.randn(6, seq, 128)), ("sin", wl.randn(7, seq, 128))]
    out.append(Spec("rope_fwd_bf16", wl.Rope(), x_inputs, torch.bfloat16, rope_bytes, note="nvFuser seed size"))
    byname = {w.name: w for w in wl.all_workloads(small=small)}
    n = 1024 if small else 4096
    for dtype, tag in ((torch.bfloat16, "bf16"), (torch.float16, "f16"), (torch.float32, "f32")):
        out.append(Spec(f"gemm_{n}_{tag}", Gemm(), [("a", wl.randn(40, n, n)), ("b", wl.randn(41, n, n))], dtype,
                        0.0, 2.0 * n ** 3, "cuBLAS through torch.matmul"))
    # The seeds' workloads first (the device's minutes are few), then the blocks.
    for name in ["swiglu_dot_slice_m512", "mlp_towers_6x4_b64", "gpt2_block", "llama_block", "resnet_stage_b1",
                 "attention_rope_512", "llama_mlp_512", "resnet_stage_b8", "bert_layer", "swiglu_dot_slice_m64",
                 "mlp_towers_6x4_b1"]:
        w = byname.get(name)
        if w is None:
            log(f"gpu bench: workload {name} not found")
            continue
        out.append(Spec(name, w.module, w.inputs, torch.float32, 0.0, w.count_flops(), w.note))
    return out


def cuda_times(fn, reps, warmup):
    for _ in range(warmup):
        fn()
    if DEVICE == "cpu":  # --target host: the harness itself, tried where there is no GPU
        times = []
        for _ in range(reps):
            t0 = time.perf_counter()
            fn()
            times.append((time.perf_counter() - t0) * 1e6)
        return times
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    stops = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    for i in range(reps):
        starts[i].record()
        fn()
        stops[i].record()
    torch.cuda.synchronize()
    return [s.elapsed_time(e) * 1e3 for s, e in zip(starts, stops)]  # microseconds


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if len(xs) % 2 else 0.5 * (xs[len(xs) // 2 - 1] + xs[len(xs) // 2])


def export(spec, folder):
    import onnx
    model = os.path.join(folder, "model.onnx")
    tensors = tuple(torch.from_numpy(a).to(spec.dtype) for _, a in spec.inputs)
    module = copy.deepcopy(spec.module).to("cpu", spec.dtype)  # the timed module stays on the GPU
    with torch.no_grad():
        torch.onnx.export(module, tensors, model, input_names=[n for n, _ in spec.inputs], output_names=["y"],
                          opset_version=20, dynamo=True, external_data=False, verbose=False)
    onnx.checker.check_model(onnx.load(model))
    if spec.dtype == torch.float32:
        os.makedirs(os.path.join(folder, "inputs"), exist_ok=True)
        for n, a in spec.inputs:
            np.save(os.path.join(folder, "inputs", n + ".npy"), a)
    return model


def smelt_run(args, model, folder, spec, fused):
    cmd = [args.smelt, "run", model, "--target", args.target, "--reps", str(args.reps), "--warmup", "5", "--json"]
    if args.profile:
        cmd += ["--profile", args.profile]
    if not fused:
        cmd.append("--no-fusion")
    if spec.dtype == torch.float32:
        out_dir = os.path.join(folder, "out_fused" if fused else "out_unfused")
        os.makedirs(out_dir, exist_ok=True)
        cmd += ["--inputs", os.path.join(folder, "inputs"), "--outputs", out_dir]
    started = time.time()
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=args.smelt_timeout)
    if r.returncode != 0:
        raise RuntimeError(f"smelt exit {r.returncode}: {r.stderr.strip()[-400:]}")
    j = json.loads(r.stdout)
    j["wall_s"] = time.time() - started
    return j


def row_for(spec, system, us, extra=None):
    row = {"workload": spec.name, "dtype": str(spec.dtype).replace("torch.", ""), "system": system,
           "median_us": round(us, 2), "note": spec.note}
    if spec.bytes_moved:
        row["gbps"] = round(spec.bytes_moved / us / 1e3, 1)
    if spec.flops:
        row["tflops"] = round(spec.flops / us / 1e6, 2)
    row.update(extra or {})
    return row


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--smelt", default=os.path.join(ROOT, "build", "cli", "smelt"))
    p.add_argument("--profile", default="", help="the GPU profile smelt costs with (default: the shipped one)")
    p.add_argument("--out", default=os.path.join(ROOT, "bench", "gpu"))
    p.add_argument("--work", default="/tmp/smelt-gpu-bench")
    p.add_argument("--reps", type=int, default=50)
    p.add_argument("--small", action="store_true", help="reduced sizes: a quick run of the harness itself")
    p.add_argument("--only", nargs="*", default=None)
    p.add_argument("--deadline-s", type=float, default=300, help="stop starting Inductor compiles past this")
    p.add_argument("--smelt-timeout", type=float, default=120)
    p.add_argument("--target", default="cuda", choices=["cuda", "host"],
                   help="host: try the harness itself on a machine without a GPU (torch on the CPU)")
    args = p.parse_args()
    global DEVICE
    DEVICE = "cuda" if args.target == "cuda" else "cpu"
    if DEVICE == "cuda" and not torch.cuda.is_available():
        log("error: no CUDA device for PyTorch")
        return 1
    started = time.time()
    device = torch.cuda.get_device_name(0) if DEVICE == "cuda" else "cpu"
    log(f"gpu bench on {device}, torch {torch.__version__}")
    # The device's copy bandwidth (bytes read + written), the roof for memory-bound workloads.
    big = torch.empty(1 << (29 if DEVICE == "cuda" else 24), dtype=torch.uint8, device=DEVICE)  # 512 MB, past L2
    dst = torch.empty_like(big)
    copy_us = median(cuda_times(lambda: dst.copy_(big), 20, 3))
    copy_gbps = 2 * big.numel() / copy_us / 1e3
    del big, dst
    log(f"device copy bandwidth: {copy_gbps:.0f} GB/s (512 MB copy, {copy_us:.0f} us)")
    rows = [{"workload": "device_copy_512MB", "dtype": "u8", "system": "torch", "median_us": round(copy_us, 2),
             "gbps": round(copy_gbps, 1), "note": device}]
    os.makedirs(args.work, exist_ok=True)
    os.makedirs(args.out, exist_ok=True)
    out_csv = os.path.join(args.out, "gpu_results.csv")

    def flush():
        keys = []
        for r in rows:
            keys += [k for k in r if k not in keys]
        with open(out_csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=keys)
            w.writeheader()
            w.writerows(rows)

    for spec in specs(args.small):
        if args.only and spec.name not in args.only:
            continue
        folder = os.path.join(args.work, spec.name)
        os.makedirs(folder, exist_ok=True)
        log(f"--- {spec.name} ({time.time() - started:.0f} s)")
        tensors = [torch.from_numpy(a).to(DEVICE, spec.dtype) for _, a in spec.inputs]
        module = spec.module.to(DEVICE, spec.dtype)
        with torch.no_grad():
            want = module(*tensors)
            eager = median(cuda_times(lambda: module(*tensors), args.reps, 3))
        rows.append(row_for(spec, "torch_eager", eager))
        try:
            model = export(spec, folder)
        except Exception as e:  # noqa: BLE001 - reported per workload
            log(f"{spec.name}: export failed: {str(e)[:300]}")
            rows.append({"workload": spec.name, "system": "smelt", "status": "export failed"})
            flush()
            continue
        for fused in (True, False):
            system = "smelt" if fused else "smelt_unfused"
            try:
                j = smelt_run(args, model, folder, spec, fused)
            except Exception as e:  # noqa: BLE001
                log(f"{spec.name} {system}: {str(e)[:400]}")
                rows.append({"workload": spec.name, "system": system, "status": "failed"})
                continue
            extra = {"kernels": j.get("kernels"), "predicted_us": round(j.get("predicted_us") or 0, 2),
                     "compile_and_run_s": round(j["wall_s"], 1)}
            if spec.dtype == torch.float32:
                got = np.load(os.path.join(folder, "out_fused" if fused else "out_unfused", "y.npy"))
                ref = want.float().cpu().numpy()
                err = float(np.max(np.abs(got - ref))) if got.shape == ref.shape else float("inf")
                scale = float(np.max(np.abs(ref))) or 1.0
                extra["max_abs_err_vs_eager"] = err
                extra["status"] = "ok" if err <= 1e-3 * scale + 1e-5 else "MISMATCH"
            rows.append(row_for(spec, system, j["median_us"], extra))
            log(f"{spec.name} {system}: {j['median_us']:.1f} us (eager {eager:.1f} us), {j.get('kernels')} kernels, "
                f"predicted {j.get('predicted_us', 0):.1f} us {extra.get('status', '')}")
        if time.time() - started < args.deadline_s and not spec.name.startswith("gemm"):
            try:
                compiled = torch.compile(module)
                t0 = time.time()
                with torch.no_grad():
                    compiled(*tensors)
                    if DEVICE == "cuda":
                        torch.cuda.synchronize()
                    inductor = median(cuda_times(lambda: compiled(*tensors), args.reps, 3))
                rows.append(row_for(spec, "torch_inductor", inductor, {"compile_s": round(time.time() - t0, 1)}))
            except Exception as e:  # noqa: BLE001
                log(f"{spec.name}: torch.compile failed: {str(e)[:200]}")
        elif spec.name.startswith("gemm"):
            pass  # cuBLAS is the peer; Inductor calls it too
        else:
            log(f"{spec.name}: Inductor skipped (past the {args.deadline_s:.0f} s deadline)")
        flush()
    flush()
    # The table.
    by = {}
    for r in rows:
        by.setdefault(r["workload"], {})[r["system"]] = r
    print(f"\n{device}; copy bandwidth {copy_gbps:.0f} GB/s; medians in us")
    print(f"{'workload':24} {'eager':>9} {'inductor':>9} {'smelt':>9} {'unfused':>9} {'vs eager':>8} {'vs ind.':>8}"
          f" {'fused/unf':>9} {'of roof':>8}")
    for name, d in by.items():
        if name.startswith("device_copy"):
            continue
        e, i, s, u = (d.get(k, {}).get("median_us") for k in ("torch_eager", "torch_inductor", "smelt", "smelt_unfused"))
        fmt = lambda v: f"{v:9.1f}" if v else f"{'-':>9}"  # noqa: E731
        ratio = lambda a, b: f"{a / b:7.2f}x" if a and b else f"{'-':>8}"  # noqa: E731
        roof = "-"
        if s and d["smelt"].get("gbps"):
            roof = f"{100 * d['smelt']['gbps'] / copy_gbps:.0f}%"
        elif s and d["smelt"].get("tflops") and e and name.startswith("gemm"):
            roof = f"{100 * e / s:.0f}%cuBLAS"
        print(f"{name:24} {fmt(e)} {fmt(i)} {fmt(s)} {fmt(u)} {ratio(e, s)} {ratio(i, s)} {ratio(u, s):>9} {roof:>8}")
    print(f"csv: {out_csv}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
