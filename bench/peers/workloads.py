"""The workloads of the peer benchmark (issue 15): each a PyTorch module (what smelt and ONNX
Runtime get, exported by torch.onnx.export; what torch eager and torch.compile run), its
inputs, a JAX version of the same function where one is written, and what bounds it
physically (bytes moved, flops).

Weights are module parameters, so the exported ONNX holds them as initializers (constants), as
every exporter writes them; activations are inputs.
"""

import math
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))


class Workload:
    def __init__(self, name, module, inputs, jax_fn=None, flops=0.0, note=""):
        self.name = name
        self.module = module.eval()
        self.inputs = inputs  # list of (name, numpy array)
        self.jax_fn = jax_fn  # (params dict of numpy, *inputs) -> output, or None
        self.flops = flops
        self.note = note

    def count_flops(self):
        """The matmul flops, as torch counts them, where the workload does not say."""
        if self.flops:
            return self.flops
        from torch.utils.flop_counter import FlopCounterMode
        counter = FlopCounterMode(display=False)
        with torch.no_grad(), counter:
            self.module(*[torch.from_numpy(a) for _, a in self.inputs])
        return float(counter.get_total_flops())

    def params(self):
        return {k: v.detach().numpy() for k, v in self.module.named_parameters()}

    def bytes_moved(self, output_bytes):
        weights = sum(p.numel() * p.element_size() for p in self.module.parameters())
        return weights + sum(a.nbytes for _, a in self.inputs) + output_bytes


def rng(seed):
    return np.random.default_rng(seed)


def randn(seed, *shape):
    return rng(seed).standard_normal(shape).astype(np.float32)


# ---- elementwise and view workloads --------------------------------------------------------


class LuminalChain(nn.Module):
    """The luminal seed at 16M elements: relu(exp2(a) - sin(b)) + 2.123 / d."""

    def forward(self, a, b, d):
        return torch.relu(torch.exp2(a) - torch.sin(b)) + 2.123 / d


def luminal_jax(p, a, b, d):
    import jax.numpy as jnp
    return jnp.maximum(jnp.exp2(a) - jnp.sin(b), 0) + 2.123 / d


class RatchetPermute(nn.Module):
    """The ratchet seed: permute, then gelu (erf), exp, cos."""

    def forward(self, x):
        return torch.cos(torch.exp(F.gelu(x.permute(0, 2, 1, 3))))


def ratchet_jax(p, x):
    import jax
    import jax.numpy as jnp
    return jnp.cos(jnp.exp(jax.nn.gelu(jnp.transpose(x, (0, 2, 1, 3)), approximate=False)))


class Rope(nn.Module):
    """RoPE forward: x * cos + rotate_half(x) * sin (Llama's)."""

    def forward(self, x, cos, sin):
        half = x.shape[-1] // 2
        rotated = torch.cat((-x[..., half:], x[..., :half]), dim=-1)
        return x * cos + rotated * sin


def rope_jax(p, x, cos, sin):
    import jax.numpy as jnp
    half = x.shape[-1] // 2
    rotated = jnp.concatenate((-x[..., half:], x[..., :half]), axis=-1)
    return x * cos + rotated * sin


# ---- gemm-bound workloads -----------------------------------------------------------------


class SwigluDotSlice(nn.Module):
    """The mlir dot-slice seed as a SwiGLU: C = x W + b; silu(C[:, :N]) * C[:, N:]."""

    def __init__(self, k, n):
        super().__init__()
        self.proj = nn.Linear(k, 2 * n)

    def forward(self, x):
        gate, up = self.proj(x).chunk(2, dim=-1)
        return F.silu(gate) * up


def swiglu_jax(p, x):
    import jax
    c = x @ p["proj.weight"].T + p["proj.bias"]
    n = c.shape[-1] // 2
    return jax.nn.silu(c[:, :n]) * c[:, n:]


class MlpTowers(nn.Module):
    """MIGraphX's MLP towers: T towers of L Linear + SiLU layers over one input, concatenated."""

    def __init__(self, towers, layers, hidden):
        super().__init__()
        self.towers = nn.ModuleList(
            nn.ModuleList(nn.Linear(hidden, hidden) for _ in range(layers)) for _ in range(towers))

    def forward(self, x):
        outs = []
        for tower in self.towers:
            h = x
            for layer in tower:
                h = F.silu(layer(h))
            outs.append(h)
        return torch.cat(outs, dim=-1)


def towers_jax(towers, layers):
    def fn(p, x):
        import jax
        import jax.numpy as jnp
        outs = []
        for t in range(towers):
            h = x
            for l in range(layers):
                h = jax.nn.silu(h @ p[f"towers.{t}.{l}.weight"].T + p[f"towers.{t}.{l}.bias"])
            outs.append(h)
        return jnp.concatenate(outs, axis=-1)
    return fn


class LlamaMlp(nn.Module):
    """RMSNorm + SwiGLU MLP + residual (Llama's feed-forward half)."""

    def __init__(self, hidden, inter):
        super().__init__()
        self.norm = nn.Parameter(1 + 0.1 * torch.randn(hidden))
        self.gate = nn.Linear(hidden, inter, bias=False)
        self.up = nn.Linear(hidden, inter, bias=False)
        self.down = nn.Linear(inter, hidden, bias=False)

    def forward(self, x):
        xn = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5) * self.norm
        return self.down(F.silu(self.gate(xn)) * self.up(xn)) + x


def llama_mlp_jax(p, x):
    import jax
    import jax.numpy as jnp
    xn = x * jax.lax.rsqrt(jnp.mean(x * x, axis=-1, keepdims=True) + 1e-5) * p["norm"]
    h = jax.nn.silu(xn @ p["gate.weight"].T) * (xn @ p["up.weight"].T)
    return h @ p["down.weight"].T + x


def all_workloads(small=False):
    """Every workload; `small`: reduced sizes for a quick run of the harness itself."""
    torch.manual_seed(0)
    s = 16 if small else 1
    out = []
    n = (1 << 24) // s
    out.append(Workload("luminal_chain_16M", LuminalChain(),
                        [("a", randn(1, n)), ("b", randn(2, n)), ("d", randn(3, n) + 4.0)],
                        luminal_jax, note="memory-bound"))
    shape = (64, 128, 64 // (4 if small else 1), 64)
    out.append(Workload("ratchet_permute_gelu", RatchetPermute(), [("x", randn(4, *shape) * 0.5)],
                        ratchet_jax, note="transcendental-bound"))
    seq = 2048 // s
    out.append(Workload("rope_fwd", Rope(),
                        [("x", randn(5, 1, 32, seq, 128)), ("cos", randn(6, seq, 128)), ("sin", randn(7, seq, 128))],
                        rope_jax, note="memory-bound"))
    k, nn_ = 1024, 4096 // (4 if small else 1)
    for m in (64, 512):
        out.append(Workload(f"swiglu_dot_slice_m{m}", SwigluDotSlice(k, nn_), [("x", randn(8, m, k))], swiglu_jax,
                            flops=2.0 * m * k * 2 * nn_))
    for b in (1, 64):
        out.append(Workload(f"mlp_towers_6x4_b{b}", MlpTowers(6, 4, 256), [("x", randn(9, b, 256))],
                            towers_jax(6, 4), flops=2.0 * b * 256 * 256 * 24))
    tokens = 512 // (4 if small else 1)
    out.append(Workload("llama_mlp_512", LlamaMlp(512, 1376), [("x", randn(10, tokens, 512))], llama_mlp_jax,
                        flops=6.0 * tokens * 512 * 1376))
    try:
        import export_blocks as eb
        for name, (cls, seed) in eb.BLOCKS.items():
            torch.manual_seed(seed)
            model = cls()
            eb.randomize_norm_(model)
            x = randn(11 + seed, eb.BATCH, eb.SEQ, eb.HIDDEN)
            out.append(Workload(name, model, [("x", x)], None, note="exported block"))
    except ImportError as e:  # the blocks need scripts/export_blocks.py beside this folder
        print(f"peers: blocks skipped ({e})", file=sys.stderr)
    return out
