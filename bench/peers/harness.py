"""What the benchmark drivers share (bench/peers/run.py, bench/models/run): logging, thread
pinning, sample statistics, `smelt run --json` as a subprocess, the malloc regimes and CSV
writing. Import it with bench/peers on sys.path (`import harness`)."""

import csv
import json
import os
import statistics
import subprocess
import sys
import time

# Environment per allocation regime (see bench/peers/run.py's docstring).
REGIMES = {
    "default": {},
    "reused": {"MALLOC_MMAP_MAX_": "0", "MALLOC_TRIM_THRESHOLD_": "100000000000"},
}


def log(*args):
    print(*args, file=sys.stderr, flush=True)


def error_text(error):
    """One line for a failure: the exception's type and the first line of its message."""
    return f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"[:200]


def pinned(cmd, threads, regime="default"):
    """(command, environment) running `cmd` on cores 0..threads-1 (taskset) with every
    library's thread count (OpenMP, OpenBLAS, MKL, XLA) set to `threads`, under `regime`."""
    env = dict(os.environ, **REGIMES[regime])
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = str(threads)
    env["XLA_FLAGS"] = f"--xla_cpu_multi_thread_eigen={'true' if threads > 1 else 'false'}"
    return ["taskset", "-c", f"0-{threads - 1}"] + list(cmd), env


def sample_stats(samples_s):
    """median_ms, spread ((p75 - p25) / median) and runs of timings in seconds."""
    xs = sorted(samples_s)
    med = statistics.median(xs)
    q1, q3 = xs[len(xs) // 4], xs[(3 * len(xs)) // 4]
    return {"median_ms": med * 1e3, "spread": (q3 - q1) / med if med > 0 else 0.0, "runs": len(xs)}


def max_abs_error(reference, got):
    """max |got - reference| in f64; ValueError if the shapes differ."""
    import numpy as np
    if got.shape != reference.shape:
        raise ValueError(f"shape {got.shape} != {reference.shape}")
    if reference.size == 0:
        return 0.0
    return float(np.max(np.abs(got.astype(np.float64) - reference.astype(np.float64))))


def check(reference, got):
    """"" when got matches reference within 2e-3 x max(1, max |reference|), else what differs."""
    import numpy as np
    if got.shape != reference.shape:
        return f"shape {got.shape} != {reference.shape}"
    scale = max(1.0, float(np.max(np.abs(reference)))) if reference.size else 1.0
    err = max_abs_error(reference, got)
    return "" if err <= 2e-3 * scale else f"max abs error {err:.3g} (scale {scale:.3g})"


def time_calls(fn, n):
    """n calls of fn, each timed with perf_counter; the seconds."""
    samples = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t)
    return samples


def smelt_json(smelt, args, timeout=None):
    """Runs `smelt ARGS` (which must include --json) and returns its JSON object; a nonzero exit
    raises RuntimeError with the exit code and the start of stderr."""
    r = subprocess.run([smelt] + list(args), capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        raise RuntimeError(f"smelt exit {r.returncode}: {r.stderr.strip()[:300]}")
    return json.loads(r.stdout)


def safe_file_name(name):
    """The file name `smelt run --outputs` gives output `name` (without .npy)."""
    return "".join(c if c.isalnum() or c in "_-." else "_" for c in name)


def load_average():
    with open("/proc/loadavg") as f:
        return f.read().split()[0]


def write_csv(path, fields, rows):
    """rows (dicts) as CSV with these columns; floats with 4 significant digits."""
    with open(path, "w", newline="") as f:
        wr = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        wr.writeheader()
        for r in rows:
            wr.writerow({k: (f"{v:.4g}" if isinstance(v, float) else v) for k, v in r.items()})
