#!/usr/bin/env python3
"""Export small, real transformer blocks from PyTorch to ONNX backend test folders.

Writes, for each block, DIR/<name>/model.onnx and DIR/<name>/test_data_set_0/{input_0,output_0}.pb
(the input and PyTorch's eval-mode output as TensorProtos), ready for `smelt test DIR/<name>`:

  gpt2_block   GPT-2 block: LayerNorm, fused qkv Linear + split, causal softmax attention, output
               projection, residual; LayerNorm, MLP with GELU (tanh approximation), residual
  llama_block  Llama block: RMSNorm, q/k/v projections, RoPE (precomputed cos/sin),
               scaled_dot_product_attention (causal), o-proj, residual; RMSNorm, SwiGLU MLP, residual
  bert_layer   BERT layer: self-attention (softmax, no mask), dropout off (eval), dense + residual
               + LayerNorm; intermediate dense + GELU (erf), dense + residual + LayerNorm

Weights are random with fixed seeds; shapes are static (batch 1, seq 64, hidden 128, 4 heads).
torch is only needed to regenerate the folders; smelt's build and tests never need it.

How to run (from the repository root; the virtual environment lives outside the repository):

  python3 -m venv /work/venv-torch
  /work/venv-torch/bin/pip install torch onnx onnxscript numpy
  /work/venv-torch/bin/python scripts/export_blocks.py [--out examples/blocks]
      [--exporter dynamo|torchscript] [--opset N] [--only NAME ...]

The default is torch.onnx.export's default exporter (dynamo=True) at opset 20; every op it emits
for these blocks (Gelu, LayerNormalization, Split, Where, Softmax, ...) is one smelt imports.
--exporter torchscript (dynamo=False, opset 17) is the older path (Constant nodes, Trilu/Where
causal mask, Tanh/Erf-expanded GELU).
"""

import argparse
import math
import os
import sys
import warnings

import numpy as np
import onnx
from onnx import numpy_helper
import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 1
SEQ = 64
HIDDEN = 128
HEADS = 4
HEAD_DIM = HIDDEN // HEADS
LLAMA_INTERMEDIATE = 352
NORM_EPS_LN = 1e-5    # GPT-2 / Llama-style epsilon
NORM_EPS_BERT = 1e-12  # BERT's LayerNorm epsilon
RMS_EPS = 1e-6
ROPE_THETA = 10000.0


def randomize_norm_(module: nn.Module) -> None:
    """LayerNorm / RMSNorm weights start at ones / zeros; make them random so the test covers them."""
    with torch.no_grad():
        for name, p in module.named_parameters():
            if "norm" in name.lower() or name.startswith("ln"):
                if name.endswith("weight"):
                    p.copy_(1.0 + 0.1 * torch.randn_like(p))
                else:
                    p.copy_(0.1 * torch.randn_like(p))


# ---------------------------------------------------------------------------------------------
# (a) GPT-2 block, written as in Hugging Face's modeling_gpt2 (eager attention).


class GPT2Attention(nn.Module):
    def __init__(self, hidden: int, heads: int, max_positions: int):
        super().__init__()
        self.heads = heads
        self.head_dim = hidden // heads
        self.c_attn = nn.Linear(hidden, 3 * hidden)
        self.c_proj = nn.Linear(hidden, hidden)
        causal = torch.tril(torch.ones(max_positions, max_positions, dtype=torch.bool))
        self.register_buffer("bias", causal.view(1, 1, max_positions, max_positions), persistent=False)

    def split_heads(self, t: torch.Tensor) -> torch.Tensor:
        b, s, _ = t.shape
        return t.view(b, s, self.heads, self.head_dim).permute(0, 2, 1, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, h = x.shape
        q, k, v = self.c_attn(x).split(h, dim=2)
        q, k, v = self.split_heads(q), self.split_heads(k), self.split_heads(v)
        w = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_dim)
        mask = self.bias[:, :, :s, :s]
        w = torch.where(mask, w, torch.tensor(torch.finfo(w.dtype).min, dtype=w.dtype))
        w = F.softmax(w, dim=-1)
        out = torch.matmul(w, v)
        out = out.permute(0, 2, 1, 3).contiguous().view(b, s, h)
        return self.c_proj(out)


class GPT2MLP(nn.Module):
    def __init__(self, hidden: int):
        super().__init__()
        self.c_fc = nn.Linear(hidden, 4 * hidden)
        self.c_proj = nn.Linear(4 * hidden, hidden)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.c_proj(F.gelu(self.c_fc(x), approximate="tanh"))


class GPT2Block(nn.Module):
    def __init__(self, hidden: int = HIDDEN, heads: int = HEADS, max_positions: int = SEQ):
        super().__init__()
        self.ln_1 = nn.LayerNorm(hidden, eps=NORM_EPS_LN)
        self.attn = GPT2Attention(hidden, heads, max_positions)
        self.ln_2 = nn.LayerNorm(hidden, eps=NORM_EPS_LN)
        self.mlp = GPT2MLP(hidden)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


# ---------------------------------------------------------------------------------------------
# (b) Llama block, written as in Hugging Face's modeling_llama (sdpa attention).


class LlamaRMSNorm(nn.Module):
    def __init__(self, hidden: int, eps: float = RMS_EPS):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden))
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        dtype = x.dtype
        x = x.to(torch.float32)
        variance = x.pow(2).mean(-1, keepdim=True)
        x = x * torch.rsqrt(variance + self.eps)
        return self.weight * x.to(dtype)


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2 :]
    return torch.cat((-x2, x1), dim=-1)


class LlamaAttention(nn.Module):
    def __init__(self, hidden: int, heads: int, max_positions: int):
        super().__init__()
        self.heads = heads
        self.head_dim = hidden // heads
        self.q_proj = nn.Linear(hidden, hidden, bias=False)
        self.k_proj = nn.Linear(hidden, hidden, bias=False)
        self.v_proj = nn.Linear(hidden, hidden, bias=False)
        self.o_proj = nn.Linear(hidden, hidden, bias=False)
        inv_freq = 1.0 / (ROPE_THETA ** (torch.arange(0, self.head_dim, 2, dtype=torch.float32) / self.head_dim))
        t = torch.arange(max_positions, dtype=torch.float32)
        freqs = torch.outer(t, inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        self.register_buffer("cos_cached", emb.cos(), persistent=False)
        self.register_buffer("sin_cached", emb.sin(), persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, h = x.shape
        q = self.q_proj(x).view(b, s, self.heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(x).view(b, s, self.heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(x).view(b, s, self.heads, self.head_dim).transpose(1, 2)
        cos = self.cos_cached[:s].unsqueeze(0).unsqueeze(0)
        sin = self.sin_cached[:s].unsqueeze(0).unsqueeze(0)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        out = out.transpose(1, 2).reshape(b, s, h)
        return self.o_proj(out)


class LlamaMLP(nn.Module):
    def __init__(self, hidden: int, intermediate: int):
        super().__init__()
        self.gate_proj = nn.Linear(hidden, intermediate, bias=False)
        self.up_proj = nn.Linear(hidden, intermediate, bias=False)
        self.down_proj = nn.Linear(intermediate, hidden, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class LlamaBlock(nn.Module):
    def __init__(self, hidden: int = HIDDEN, heads: int = HEADS, intermediate: int = LLAMA_INTERMEDIATE,
                 max_positions: int = SEQ):
        super().__init__()
        self.input_layernorm = LlamaRMSNorm(hidden)
        self.self_attn = LlamaAttention(hidden, heads, max_positions)
        self.post_attention_layernorm = LlamaRMSNorm(hidden)
        self.mlp = LlamaMLP(hidden, intermediate)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.self_attn(self.input_layernorm(x))
        return x + self.mlp(self.post_attention_layernorm(x))


# ---------------------------------------------------------------------------------------------
# (c) BERT layer, written as in Hugging Face's modeling_bert (eager attention, no attention mask).


class BertSelfAttention(nn.Module):
    def __init__(self, hidden: int, heads: int):
        super().__init__()
        self.heads = heads
        self.head_dim = hidden // heads
        self.query = nn.Linear(hidden, hidden)
        self.key = nn.Linear(hidden, hidden)
        self.value = nn.Linear(hidden, hidden)
        self.dropout = nn.Dropout(0.1)

    def transpose_for_scores(self, t: torch.Tensor) -> torch.Tensor:
        b, s, _ = t.shape
        return t.view(b, s, self.heads, self.head_dim).permute(0, 2, 1, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, h = x.shape
        q = self.transpose_for_scores(self.query(x))
        k = self.transpose_for_scores(self.key(x))
        v = self.transpose_for_scores(self.value(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_dim)
        probs = self.dropout(F.softmax(scores, dim=-1))
        ctx = torch.matmul(probs, v).permute(0, 2, 1, 3).contiguous()
        return ctx.view(b, s, h)


class BertOutput(nn.Module):
    """BertSelfOutput (in_features = hidden) and BertOutput (in_features = 4 * hidden)."""

    def __init__(self, in_features: int, hidden: int):
        super().__init__()
        self.dense = nn.Linear(in_features, hidden)
        self.LayerNorm = nn.LayerNorm(hidden, eps=NORM_EPS_BERT)
        self.dropout = nn.Dropout(0.1)

    def forward(self, h: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
        return self.LayerNorm(self.dropout(self.dense(h)) + residual)


class BertLayer(nn.Module):
    def __init__(self, hidden: int = HIDDEN, heads: int = HEADS):
        super().__init__()
        self.attention_self = BertSelfAttention(hidden, heads)
        self.attention_output = BertOutput(hidden, hidden)
        self.intermediate_dense = nn.Linear(hidden, 4 * hidden)
        self.output = BertOutput(4 * hidden, hidden)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a = self.attention_output(self.attention_self(x), x)
        i = F.gelu(self.intermediate_dense(a))  # exact (erf) GELU, as BERT
        return self.output(i, a)


# ---------------------------------------------------------------------------------------------

BLOCKS = {
    "gpt2_block": (GPT2Block, 0),
    "llama_block": (LlamaBlock, 1),
    "bert_layer": (BertLayer, 2),
}


def export_one(name: str, out_dir: str, exporter: str, opset: int) -> list:
    cls, seed = BLOCKS[name]
    torch.manual_seed(seed)
    model = cls()
    randomize_norm_(model)
    model.eval()
    x = torch.randn(BATCH, SEQ, HIDDEN, dtype=torch.float32)
    with torch.no_grad():
        y = model(x)

    folder = os.path.join(out_dir, name)
    data = os.path.join(folder, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    model_path = os.path.join(folder, "model.onnx")

    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if exporter == "dynamo":
            torch.onnx.export(model, (x,), model_path, input_names=["x"], output_names=["y"],
                              opset_version=opset, dynamo=True, external_data=False, verbose=False)
        else:
            torch.onnx.export(model, (x,), model_path, input_names=["x"], output_names=["y"],
                              opset_version=opset, dynamo=False, do_constant_folding=True)

    proto = onnx.load(model_path)
    onnx.checker.check_model(proto, full_check=True)
    in_name = proto.graph.input[0].name
    out_name = proto.graph.output[0].name
    with open(os.path.join(data, "input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x.numpy(), name=in_name).SerializeToString())
    with open(os.path.join(data, "output_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(y.numpy(), name=out_name).SerializeToString())

    ops = {}
    for node in proto.graph.node:
        ops[node.op_type] = ops.get(node.op_type, 0) + 1
    opset_used = next((o.version for o in proto.opset_import if o.domain in ("", "ai.onnx")), None)
    params = sum(p.numel() for p in model.parameters())
    written = [model_path, os.path.join(data, "input_0.pb"), os.path.join(data, "output_0.pb")]
    print(f"{name}: {len(proto.graph.node)} nodes, opset {opset_used}, {params} parameters, "
          f"input {in_name} {list(x.shape)}, output {out_name} {list(y.shape)}")
    print("  ops: " + ", ".join(f"{k} {v}" for k, v in sorted(ops.items())))
    for path in written:
        print(f"  wrote {path} ({os.path.getsize(path)} bytes)")
    return written


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="examples/blocks", help="output folder (default examples/blocks)")
    ap.add_argument("--exporter", choices=["dynamo", "torchscript"], default="dynamo",
                    help="torch.onnx.export path: dynamo (torch's default, dynamo=True) or "
                         "torchscript (dynamo=False)")
    ap.add_argument("--opset", type=int, default=None,
                    help="ONNX opset (default 20 for dynamo, torch 2.15's default; 17 for torchscript)")
    ap.add_argument("--only", nargs="*", choices=sorted(BLOCKS), help="export only these blocks")
    args = ap.parse_args()
    torch.set_num_threads(1)
    if args.opset is None:
        args.opset = 20 if args.exporter == "dynamo" else 17
    print(f"torch {torch.__version__}, onnx {onnx.__version__}, numpy {np.__version__}, "
          f"exporter {args.exporter}, opset {args.opset}")
    for name in args.only or BLOCKS:
        export_one(name, args.out, args.exporter, args.opset)
    return 0


if __name__ == "__main__":
    sys.exit(main())
