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


class RopeBwd(nn.Module):
    """RoPE backward: the gradient of Llama's x * cos + rotate_half(x) * sin with respect to x,
    given the upstream gradient g, as an explicit forward function of (g, cos, sin):
    g * cos + rotate_half^T(g * sin), where rotate_half^T(u) = cat(u[..., half:], -u[..., :half])."""

    def forward(self, g, cos, sin):
        half = g.shape[-1] // 2
        u = g * sin
        return g * cos + torch.cat((u[..., half:], -u[..., :half]), dim=-1)


def rope_bwd_jax(p, g, cos, sin):
    import jax.numpy as jnp
    half = g.shape[-1] // 2
    u = g * sin
    return g * cos + jnp.concatenate((u[..., half:], -u[..., :half]), axis=-1)


def _check_rope_bwd(seq=16, dim=8):
    """RopeBwd against torch.autograd's gradient of Rope; not called by default."""
    x = torch.randn(1, 2, seq, dim, dtype=torch.float64, requires_grad=True)
    cos, sin, g = torch.randn(seq, dim, dtype=torch.float64), torch.randn(seq, dim, dtype=torch.float64), \
        torch.randn(1, 2, seq, dim, dtype=torch.float64)
    (auto,) = torch.autograd.grad(Rope()(x, cos, sin), x, g)
    err = (RopeBwd()(g, cos, sin) - auto).abs().max().item()
    assert err < 1e-12, err
    return err


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


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class AttentionRope(nn.Module):
    """Attention with RoPE and softmax, no mask: q, k, v projections, RoPE on q and k (cos / sin
    from Llama's frequencies, buffers), softmax(q k^T / sqrt(d)) v, output projection."""

    def __init__(self, hidden, heads, seq, theta=10000.0):
        super().__init__()
        self.heads, self.head_dim = heads, hidden // heads
        self.q = nn.Linear(hidden, hidden, bias=False)
        self.k = nn.Linear(hidden, hidden, bias=False)
        self.v = nn.Linear(hidden, hidden, bias=False)
        self.o = nn.Linear(hidden, hidden, bias=False)
        inv_freq = 1.0 / (theta ** (torch.arange(0, self.head_dim, 2, dtype=torch.float32) / self.head_dim))
        freqs = torch.outer(torch.arange(seq, dtype=torch.float32), inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        self.register_buffer("cos", emb.cos())
        self.register_buffer("sin", emb.sin())

    def forward(self, x):
        b, s, h = x.shape
        q = self.q(x).view(b, s, self.heads, self.head_dim).transpose(1, 2)
        k = self.k(x).view(b, s, self.heads, self.head_dim).transpose(1, 2)
        v = self.v(x).view(b, s, self.heads, self.head_dim).transpose(1, 2)
        q = q * self.cos + rotate_half(q) * self.sin
        k = k * self.cos + rotate_half(k) * self.sin
        p = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(self.head_dim), dim=-1)
        return self.o((p @ v).transpose(1, 2).reshape(b, s, h))


def attention_rope_jax(module):
    cos, sin = module.cos.numpy(), module.sin.numpy()
    heads, d = module.heads, module.head_dim

    def fn(p, x):
        import jax
        import jax.numpy as jnp

        def rot(t):
            return jnp.concatenate((-t[..., d // 2:], t[..., :d // 2]), axis=-1)

        b, s, h = x.shape
        q, k, v = ((x @ p[f"{n}.weight"].T).reshape(b, s, heads, d).transpose(0, 2, 1, 3) for n in "qkv")
        q = q * cos + rot(q) * sin
        k = k * cos + rot(k) * sin
        a = jax.nn.softmax(q @ k.transpose(0, 1, 3, 2) / math.sqrt(d), axis=-1)
        return (a @ v).transpose(0, 2, 1, 3).reshape(b, s, h) @ p["o.weight"].T
    return fn


class NasRnnCell(nn.Module):
    """One NasRNN cell as TASO's examples/nasrnn.py (the Tensat benchmark) writes it: eight gates
    t_i = x Wx_i + h Wh_i (matmuls sharing x and h), combined by relu / sigmoid / tanh, add and mul
    in a tree down to the new hidden state."""

    def __init__(self, hidden):
        super().__init__()
        scale = 1.0 / math.sqrt(hidden)
        self.wx = nn.ParameterList(nn.Parameter(scale * torch.randn(hidden, hidden)) for _ in range(8))
        self.wh = nn.ParameterList(nn.Parameter(scale * torch.randn(hidden, hidden)) for _ in range(8))

    def forward(self, x, h):
        t = [x @ wx + h @ wh for wx, wh in zip(self.wx, self.wh)]
        m0 = torch.relu(t[0]) + torch.sigmoid(t[3])
        m1 = torch.sigmoid(t[1]) + torch.tanh(t[2])
        m2 = torch.sigmoid(t[4]) * torch.tanh(t[5])
        m3 = torch.sigmoid(t[6]) * torch.relu(t[7])
        m4 = torch.sigmoid(m1) + torch.tanh(m2)
        m5 = torch.tanh(m0) * torch.tanh(m3)
        m6 = torch.tanh(m4) * torch.tanh(m5)
        return torch.tanh(m6)


def nasrnn_jax(p, x, h):
    import jax
    import jax.numpy as jnp
    t = [x @ p[f"wx.{i}"] + h @ p[f"wh.{i}"] for i in range(8)]
    relu = jax.nn.relu
    sig = jax.nn.sigmoid
    m0 = relu(t[0]) + sig(t[3])
    m1 = sig(t[1]) + jnp.tanh(t[2])
    m2 = sig(t[4]) * jnp.tanh(t[5])
    m3 = sig(t[6]) * relu(t[7])
    m4 = sig(m1) + jnp.tanh(m2)
    m5 = jnp.tanh(m0) * jnp.tanh(m3)
    m6 = jnp.tanh(m4) * jnp.tanh(m5)
    return jnp.tanh(m6)


# ---- convolutional workloads --------------------------------------------------------------


def conv_flops(module, inputs):
    """2 * N * M * (C / groups) * prod(kernel) * prod(output spatial) summed over the module's
    convolutions (multiply and add each), their output shapes taken from one forward call."""
    total = [0.0]

    def hook(conv, _, y):
        total[0] += 2.0 * y.shape[0] * conv.out_channels * (conv.in_channels // conv.groups) \
            * math.prod(conv.kernel_size) * math.prod(y.shape[2:])
    handles = [m.register_forward_hook(hook) for m in module.modules() if isinstance(m, nn.modules.conv._ConvNd)]
    try:
        with torch.no_grad():
            module(*[torch.from_numpy(a) for _, a in inputs])
    finally:
        for h in handles:
            h.remove()
    return total[0]


def conv_bn_relu(cin, cout, k, pad=0):
    """GoogLeNet's BasicConv2d: a convolution without bias, batch-norm, ReLU."""
    return nn.Sequential(nn.Conv2d(cin, cout, k, padding=pad, bias=False), nn.BatchNorm2d(cout), nn.ReLU())


class Inception(nn.Module):
    """An Inception block (GoogLeNet's inception 3a, scaled down) over [B, 64, H, W]: four branches
    of one input, each convolution followed by batch-norm and ReLU, concatenated on channels
    (32 + 64 + 16 + 16 = 128): 1x1 (64->32); 1x1 (64->48), 3x3 (48->64, pad 1); 1x1 (64->8), 5x5
    (8->16, pad 2); 3x3 max-pool (stride 1, pad 1), 1x1 (64->16)."""

    def __init__(self, cin=64):
        super().__init__()
        self.b1 = conv_bn_relu(cin, 32, 1)
        self.b2 = nn.Sequential(conv_bn_relu(cin, 48, 1), conv_bn_relu(48, 64, 3, 1))
        self.b3 = nn.Sequential(conv_bn_relu(cin, 8, 1), conv_bn_relu(8, 16, 5, 2))
        self.b4 = nn.Sequential(nn.MaxPool2d(3, stride=1, padding=1), conv_bn_relu(cin, 16, 1))

    def forward(self, x):
        return torch.cat([self.b1(x), self.b2(x), self.b3(x), self.b4(x)], dim=1)


def randomize_batch_norms_(model):
    """Batch-norm statistics and affine parameters away from the identity (as
    scripts/export_cnns.py does it), so a wrong folding shows."""
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.uniform_(-0.2, 0.2)
            m.running_var.uniform_(0.5, 1.5)
            m.weight.data.uniform_(0.5, 1.5)
            m.bias.data.uniform_(-0.2, 0.2)


def _jax_conv(x, w, stride=1, pad=0):
    import jax
    return jax.lax.conv_general_dilated(x, w, (stride, stride), [(pad, pad), (pad, pad)],
                                        dimension_numbers=("NCHW", "OIHW", "NCHW"))


def _jax_batch_norm(p, stats, name, x):
    """Eval-mode batch-norm: the affine parameters from p, the running statistics from stats."""
    import jax
    scale = p[f"{name}.weight"] * jax.lax.rsqrt(stats[f"{name}.running_var"] + 1e-5)
    shift = p[f"{name}.bias"] - stats[f"{name}.running_mean"] * scale
    return x * scale[:, None, None] + shift[:, None, None]


def _running_stats(module):
    return {k: v.numpy() for k, v in module.named_buffers() if k.endswith(("running_mean", "running_var"))}


def resnet_stage_jax(module):
    """scripts/export_cnns.py's ResStage; weights from p, batch-norm statistics (buffers) closed over."""
    stats = _running_stats(module)

    def fn(p, x):
        import jax
        for i, block in enumerate(module.blocks):
            b = f"blocks.{i}"
            stride = block["c1"].stride[0]
            y = jax.nn.relu(_jax_batch_norm(p, stats, f"{b}.b1", _jax_conv(x, p[f"{b}.c1.weight"], stride, 1)))
            y = _jax_batch_norm(p, stats, f"{b}.b2", _jax_conv(y, p[f"{b}.c2.weight"], 1, 1))
            if isinstance(block["down"], nn.Identity):
                r = x
            else:
                r = _jax_batch_norm(p, stats, f"{b}.down.1", _jax_conv(x, p[f"{b}.down.0.weight"], stride))
            x = jax.nn.relu(y + r)
        return x
    return fn


def inception_jax(module):
    stats = _running_stats(module)

    def fn(p, x):
        import jax
        import jax.numpy as jnp

        def cbr(name, h, pad=0):  # conv_bn_relu at `name`: .0 the convolution, .1 the batch-norm
            return jax.nn.relu(_jax_batch_norm(p, stats, f"{name}.1", _jax_conv(h, p[f"{name}.0.weight"], 1, pad)))
        pooled = jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (1, 1, 3, 3), (1, 1, 1, 1),
                                       [(0, 0), (0, 0), (1, 1), (1, 1)])
        return jnp.concatenate([cbr("b1", x), cbr("b2.1", cbr("b2.0", x), 1), cbr("b3.1", cbr("b3.0", x), 2),
                                cbr("b4.1", pooled)], axis=1)
    return fn


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
    out.append(Workload("rope_bwd", RopeBwd(),
                        [("g", randn(12, 1, 32, seq, 128)), ("cos", randn(13, seq, 128)), ("sin", randn(14, seq, 128))],
                        rope_bwd_jax, note="memory-bound"))
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
    seq, hidden, heads = 512 // (4 if small else 1), 512, 8
    attn = AttentionRope(hidden, heads, seq)
    out.append(Workload("attention_rope_512", attn, [("x", randn(15, 1, seq, hidden))], attention_rope_jax(attn),
                        flops=2.0 * seq * hidden * hidden * 4 + 2.0 * 2 * seq * seq * hidden))
    out.append(Workload("nasrnn_cell", NasRnnCell(512), [("x", randn(16, 1, 512)), ("h", randn(17, 1, 512))],
                        nasrnn_jax, flops=2.0 * 16 * 512 * 512))
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
    hw = 28 // (2 if small else 1)
    try:
        import export_cnns as ec  # the ResNet stage of examples/cnn (the module, not its file)
        for b in (1, 8):
            torch.manual_seed(20)
            model = ec.ResStage()
            ec.randomize_batch_norms_(model)
            inputs = [("x", randn(20 + b, b, 32, hw, hw))]
            out.append(Workload(f"resnet_stage_b{b}", model, inputs, resnet_stage_jax(model),
                                flops=conv_flops(model.eval(), inputs), note="convolutions"))
    except ImportError as e:  # the stage needs scripts/export_cnns.py beside this folder
        print(f"peers: resnet stage skipped ({e})", file=sys.stderr)
    for b in (1, 8):
        torch.manual_seed(30)
        model = Inception()
        randomize_batch_norms_(model)
        inputs = [("x", randn(30 + b, b, 64, hw, hw))]
        out.append(Workload(f"inception_b{b}", model, inputs, inception_jax(model),
                            flops=conv_flops(model.eval(), inputs), note="convolutions"))
    return out
