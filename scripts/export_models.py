#!/usr/bin/env python3
"""Export whole models (Hugging Face transformers and torchvision) with random weights to ONNX
backend test folders: DIR/<name>/model.onnx and DIR/<name>/test_data_set_0/{input_K,output_K}.pb
(the inputs and PyTorch's eval-mode outputs as TensorProtos), ready for `smelt test DIR/<name>`.

Nothing is downloaded: every model is built from a config (or torchvision's constructor with
weights=None) after torch.manual_seed, so reruns with the same versions give the same weights.
Static shapes, f32, batch 1 (--batch N below: N sequences or images). Language models are fed
token ids (int64, from a seeded torch.Generator), not embeddings.

Full size (default; into build/models, outside git; the files are large):

  gpt2         GPT2LMHeadModel: 12 layers, 768 wide, 12 heads, vocab 50257, 128 tokens;
               input input_ids i64[1,128], output logits f32[1,128,50257]
  bert         BertModel, bert-base config (12 layers, 768, 12 heads, vocab 30522), 128 tokens;
               inputs input_ids, attention_mask (the last 16 positions 0: padding),
               token_type_ids (0 then 1), all i64[1,128]; outputs last_hidden_state, pooler_output
  llama        LlamaForCausalLM: 4 layers, 512 wide, 8 heads / 2 kv heads (GQA), SwiGLU 1376,
               RMSNorm, RoPE, vocab 32000, 128 tokens; input input_ids, output logits
  llama_kv     the same model, one decode step with a KV cache: inputs input_ids i64[1,1] and
               past_key_<l>, past_value_<l> f32[1,2,127,64] per layer; outputs logits and
               present_key_<l>, present_value_<l> f32[1,2,128,64]
  llama_static the same model, one decode step with transformers' StaticCache (written in place,
               ScatterND): inputs input_ids i64[1,1], cache_position i64[1] (126) and
               cache_key_<l>, cache_value_<l> f32[1,2,128,64]; outputs logits and
               written_key_<l>, written_value_<l> f32[1,2,128,64]
  t5           T5EncoderModel, t5-small config (6 layers, 512, 8 heads, relative position
               buckets, ReLU FF 2048, vocab 32128), 128 tokens; output last_hidden_state
  resnet50, mobilenet_v2, efficientnet_b0, vit_b_16
               torchvision, weights=None (batch-norm statistics and norm weights randomized;
               vit_b_16's zero-initialized head made random), input x f32[1,3,224,224], output y f32[1,1000]

--small writes the small variants of the language models instead (committed under
examples/models/, each folder < 1.5 MB): gpt2_small, bert_small, llama_small, llama_small_kv,
llama_small_static, t5_small: 2 layers, 64 wide, 4 heads (llama: 2 kv heads), vocab 1000, 16 tokens
(llama_small_kv: 1 new token after 15 cached; llama_small_static: a 16-row cache, written at 14).

How to run (from the repository root; the virtual environment lives outside git):

  python3 -m venv VENV && VENV/bin/pip install torch torchvision onnx onnxscript transformers numpy
  VENV/bin/python scripts/export_models.py [--out build/models] [--only NAME ...]
  VENV/bin/python scripts/export_models.py --small --out examples/models
  VENV/bin/python scripts/export_models.py --list-ops [--small] [--out DIR] [--only NAME ...]

--batch N exports every model with N sequences or images per input (the same weights; the
same folder names, so into another folder: default build/models-bN, build/models-small-bN with
--small). Where the list above says [1,...] the leading 1 becomes N:

  vision       x f32[N,3,224,224], y f32[N,1000]
  gpt2, llama, t5   input_ids i64[N,128]; logits f32[N,128,vocab] (t5: last_hidden_state f32[N,128,512])
  bert         input_ids, attention_mask, token_type_ids i64[N,128]: sequence b has 16 + 4b padding
               positions at N = 8 (16 + floor(32b/N) in general: 16, 20, ..., 44), its token types 1
               over the second half of the rest; last_hidden_state f32[N,128,768], pooler_output f32[N,768]
  llama_kv     input_ids i64[N,1]; past_key_<l>, past_value_<l> f32[N,2,127,64]; present_* f32[N,2,128,64]
  llama_static input_ids i64[N,1]; cache_key_<l>, cache_value_<l> f32[N,2,128,64]; cache_position
               stays i64[1] (126: every sequence writes the same row, as transformers' StaticCache
               takes it); written_* f32[N,2,128,64]

Token ids and caches are drawn as one [N,...] tensor from the same seeded generators, so batch 1
gives exactly the folders above. bench/models/run reads N from input_0.pb's leading dimension
to rebuild the PyTorch module (rebuild(folder, batch)).

  VENV/bin/python scripts/export_models.py --batch 8 --out build/models-b8
  VENV/bin/python scripts/export_models.py --batch 8 --out build/models-b8 --only gpt2 bert llama llama_kv llama_static t5

--exporter torchscript uses torch.onnx.export(dynamo=False) (opset 17) instead of the default
dynamo=True (opset 20). --list-ops exports nothing: it prints, for the folders already in DIR,
the node count, file size and op histogram (domain:op count), and every index op (Gather,
GatherND, GatherElements, ScatterND, ScatterElements, ...) with its attributes and its inputs'
dtypes and shapes.
"""

import argparse
import os
import sys
import warnings

import numpy as np
import onnx
from onnx import numpy_helper, shape_inference
import torch
import torch.nn as nn

SEED = 0
SMALL = dict(layers=2, width=64, heads=4, kv_heads=2, vocab=1000, tokens=16)
FULL_TOKENS = 128
INDEX_OPS = ("Gather", "GatherND", "GatherElements", "ScatterND", "ScatterElements", "Scatter",
             "OneHot", "TopK", "NonZero", "Compress", "Trilu", "Range", "CumSum")


def token_ids(n: int, vocab: int, seed: int, batch: int = 1) -> torch.Tensor:
    """i64[batch, n]: batch sequences of n token ids from a seeded generator."""
    gen = torch.Generator().manual_seed(seed)
    return torch.randint(0, vocab, (batch, n), generator=gen, dtype=torch.int64)


def randomize_norms_(model: nn.Module) -> None:
    """Norm weights start at ones / zeros and batch-norm statistics at 0 / 1: make them random
    (every module whose class name contains "Norm": BatchNorm2d, LayerNorm, LlamaRMSNorm,
    T5LayerNorm, ...) so the test covers them."""
    with torch.no_grad():
        for m in model.modules():
            if "norm" not in type(m).__name__.lower():
                continue
            if isinstance(m, nn.modules.batchnorm._BatchNorm):
                m.running_mean.uniform_(-0.2, 0.2)
                m.running_var.uniform_(0.5, 1.5)
            for pname, p in m.named_parameters(recurse=False):
                if p.dim() == 1 and pname == "weight":
                    p.copy_(1.0 + 0.1 * torch.randn_like(p))
                elif p.dim() == 1 and pname == "bias":
                    p.copy_(0.1 * torch.randn_like(p))


class Outputs(nn.Module):
    """Calls a transformers model with keyword arguments and returns the named outputs as a
    tuple of tensors (what torch.onnx.export wants)."""

    def __init__(self, model: nn.Module, input_names: list, output_keys: list):
        super().__init__()
        self.model = model
        self.input_names = input_names
        self.output_keys = output_keys

    def forward(self, *inputs):
        out = self.model(**dict(zip(self.input_names, inputs)))
        return tuple(out[k] for k in self.output_keys)


class LlamaStep(nn.Module):
    """One decode step of LlamaForCausalLM with the KV cache as plain tensors: inputs input_ids
    [B,new] then past key, past value [B,kv heads,past,head dim] per layer; outputs logits then
    present key, value per layer. position_ids is [1,new], the same positions for every sequence."""

    def __init__(self, model: nn.Module, layers: int):
        super().__init__()
        self.model = model
        self.layers = layers

    def forward(self, input_ids, *past):
        from transformers import DynamicCache
        cache = DynamicCache(ddp_cache_data=[(past[2 * i], past[2 * i + 1]) for i in range(self.layers)],
                             config=self.model.config)
        past_len = past[0].shape[2]
        new = input_ids.shape[1]
        position_ids = torch.arange(past_len, past_len + new, dtype=torch.int64).unsqueeze(0)
        out = self.model(input_ids=input_ids, cache=cache, position_ids=position_ids, use_cache=True)
        present = out.cache
        flat = []
        for i in range(self.layers):
            layer = present.layers[i]
            flat += [layer.keys, layer.values]
        return (out.logits, *flat)


class LlamaStaticStep(nn.Module):
    """One decode step of LlamaForCausalLM with transformers' StaticCache (a fixed-length cache
    written in place, StaticLayer.update's index_copy_: ScatterND in the export): inputs input_ids
    [B,1], cache_position i64[1] (where the new token goes, the same row for every sequence) then
    key, value [B,kv heads,max_len,head dim] per layer at their full length; outputs logits then
    the written key, value per layer. The cache takes its batch from the key tensors
    (lazy_initialization)."""

    def __init__(self, model: nn.Module, layers: int, max_len: int):
        super().__init__()
        self.model = model
        self.layers = layers
        self.max_len = max_len

    def forward(self, input_ids, cache_position, *past):
        from transformers import StaticCache
        cache = StaticCache(config=self.model.config, max_cache_len=self.max_len)
        for i, layer in enumerate(cache.layers):
            layer.lazy_initialization(past[2 * i][:, :, :1], past[2 * i + 1][:, :, :1])
            layer.keys, layer.values = past[2 * i].clone(), past[2 * i + 1].clone()
            layer.cumulative_length = cache_position.clone()
        out = self.model(input_ids=input_ids, cache=cache, cache_position=cache_position,
                         position_ids=cache_position.unsqueeze(0), use_cache=True)
        flat = []
        for layer in out.cache.layers:
            flat += [layer.keys, layer.values]
        return (out.logits, *flat)


# ---------------------------------------------------------------------------------------------
# Builders: build(small, batch) returns (module returning a tuple, [(input name, tensor)],
# [output names], the module whose norms get randomized). batch: sequences (language models) or
# images (vision models) per input; at batch 1 the inputs are what they always were.


def build_gpt2(small: bool, batch: int = 1):
    from transformers import GPT2Config, GPT2LMHeadModel
    if small:
        cfg = GPT2Config(n_layer=SMALL["layers"], n_embd=SMALL["width"], n_head=SMALL["heads"],
                         vocab_size=SMALL["vocab"], n_positions=64,
                         bos_token_id=SMALL["vocab"] - 1, eos_token_id=SMALL["vocab"] - 1)
        n = SMALL["tokens"]
    else:
        cfg = GPT2Config(n_layer=12, n_embd=768, n_head=12, vocab_size=50257, n_positions=1024)
        n = FULL_TOKENS
    cfg.use_cache = False
    model = GPT2LMHeadModel(cfg)
    ids = token_ids(n, cfg.vocab_size, SEED + 1, batch)
    return Outputs(model, ["input_ids"], ["logits"]), [("input_ids", ids)], ["logits"], model


def build_bert(small: bool, batch: int = 1):
    from transformers import BertConfig, BertModel
    if small:
        cfg = BertConfig(num_hidden_layers=SMALL["layers"], hidden_size=SMALL["width"],
                         num_attention_heads=SMALL["heads"], intermediate_size=4 * SMALL["width"],
                         vocab_size=SMALL["vocab"], max_position_embeddings=64)
        n, pad = SMALL["tokens"], 3
    else:
        cfg = BertConfig()  # bert-base-uncased: 12 layers, 768, 12 heads, 3072, vocab 30522
        n, pad = FULL_TOKENS, 16
    model = BertModel(cfg)
    ids = token_ids(n, cfg.vocab_size, SEED + 2, batch)
    mask = torch.ones(batch, n, dtype=torch.int64)
    types = torch.zeros(batch, n, dtype=torch.int64)
    for b in range(batch):
        # Sequence b has pad + (b * n / 4) / batch padding positions: at batch 1 just pad; at
        # batch 8, 128 tokens: 16, 20, ..., 44 (each row its own mask).
        p = pad + (b * n // 4) // batch
        mask[b, n - p:] = 0
        ids[b, n - p:] = 0  # [PAD]
        types[b, (n - p) // 2: n - p] = 1
    names = ["input_ids", "attention_mask", "token_type_ids"]
    return (Outputs(model, names, ["last_hidden_state", "pooler_output"]),
            list(zip(names, [ids, mask, types])), ["last_hidden_state", "pooler_output"], model)


def llama_config(small: bool):
    from transformers import LlamaConfig
    if small:
        return LlamaConfig(num_hidden_layers=SMALL["layers"], hidden_size=SMALL["width"],
                           num_attention_heads=SMALL["heads"], num_key_value_heads=SMALL["kv_heads"],
                           intermediate_size=176, vocab_size=SMALL["vocab"], max_position_embeddings=64,
                           rms_norm_eps=1e-6, tie_word_embeddings=False)
    return LlamaConfig(num_hidden_layers=4, hidden_size=512, num_attention_heads=8, num_key_value_heads=2,
                       intermediate_size=1376, vocab_size=32000, max_position_embeddings=2048,
                       rms_norm_eps=1e-6, tie_word_embeddings=False)


def build_llama(small: bool, batch: int = 1):
    from transformers import LlamaForCausalLM
    cfg = llama_config(small)
    cfg.use_cache = False
    model = LlamaForCausalLM(cfg)
    ids = token_ids(SMALL["tokens"] if small else FULL_TOKENS, cfg.vocab_size, SEED + 3, batch)
    return Outputs(model, ["input_ids"], ["logits"]), [("input_ids", ids)], ["logits"], model


def build_llama_kv(small: bool, batch: int = 1):
    from transformers import LlamaForCausalLM
    cfg = llama_config(small)
    model = LlamaForCausalLM(cfg)  # the same seed, so the same weights, as llama / llama_small
    total = SMALL["tokens"] if small else FULL_TOKENS
    past_len = total - 1
    ids = token_ids(total, cfg.vocab_size, SEED + 3, batch)
    head_dim = cfg.hidden_size // cfg.num_attention_heads
    gen = torch.Generator().manual_seed(SEED + 4)
    inputs = [("input_ids", ids[:, past_len:])]
    outputs = ["logits"]
    for i in range(cfg.num_hidden_layers):
        for kind in ("key", "value"):
            inputs.append((f"past_{kind}_{i}",
                           torch.randn(batch, cfg.num_key_value_heads, past_len, head_dim, generator=gen)))
            outputs.append(f"present_{kind}_{i}")
    return LlamaStep(model, cfg.num_hidden_layers), inputs, outputs, model


def build_llama_static(small: bool, batch: int = 1):
    from transformers import LlamaForCausalLM
    cfg = llama_config(small)
    model = LlamaForCausalLM(cfg)  # the same seed, so the same weights, as llama / llama_small
    total = SMALL["tokens"] if small else FULL_TOKENS
    ids = token_ids(total, cfg.vocab_size, SEED + 3, batch)
    head_dim = cfg.hidden_size // cfg.num_attention_heads
    gen = torch.Generator().manual_seed(SEED + 4)
    # The new token at position total - 2 (every sequence): the cache's last row stays as it came in.
    inputs = [("input_ids", ids[:, total - 2:total - 1]), ("cache_position", torch.tensor([total - 2]))]
    outputs = ["logits"]
    for i in range(cfg.num_hidden_layers):
        for kind in ("key", "value"):
            inputs.append((f"cache_{kind}_{i}",
                           torch.randn(batch, cfg.num_key_value_heads, total, head_dim, generator=gen)))
            outputs.append(f"written_{kind}_{i}")
    return LlamaStaticStep(model, cfg.num_hidden_layers, total), inputs, outputs, model


def build_t5(small: bool, batch: int = 1):
    from transformers import T5Config, T5EncoderModel
    if small:
        cfg = T5Config(num_layers=SMALL["layers"], d_model=SMALL["width"], num_heads=SMALL["heads"],
                       d_kv=SMALL["width"] // SMALL["heads"], d_ff=2 * SMALL["width"],
                       vocab_size=SMALL["vocab"], relative_attention_num_buckets=32)
        n = SMALL["tokens"]
    else:  # t5-small
        cfg = T5Config(num_layers=6, d_model=512, num_heads=8, d_kv=64, d_ff=2048, vocab_size=32128,
                       relative_attention_num_buckets=32, relative_attention_max_distance=128)
        n = FULL_TOKENS
    cfg.use_cache = False
    model = T5EncoderModel(cfg)
    ids = token_ids(n, cfg.vocab_size, SEED + 5, batch)
    return (Outputs(model, ["input_ids"], ["last_hidden_state"]), [("input_ids", ids)],
            ["last_hidden_state"], model)


def vision(ctor_name: str):
    def build(small: bool, batch: int = 1):
        import torchvision
        model = getattr(torchvision.models, ctor_name)(weights=None)
        with torch.no_grad():  # vit_b_16's classifier head starts at zero: its output would be 0
            for m in model.modules():
                if isinstance(m, nn.Linear) and not m.weight.any():
                    nn.init.normal_(m.weight, std=0.02)
                    if m.bias is not None:
                        nn.init.uniform_(m.bias, -0.1, 0.1)
        x = torch.randn(batch, 3, 224, 224, generator=torch.Generator().manual_seed(SEED + 6))
        return model, [("x", x)], ["y"], model
    return build


LANGUAGE = {"gpt2": build_gpt2, "bert": build_bert, "llama": build_llama, "llama_kv": build_llama_kv,
            "llama_static": build_llama_static, "t5": build_t5}
VISION = {name: vision(name) for name in ("resnet50", "mobilenet_v2", "efficientnet_b0", "vit_b_16")}


SEEDS = {"gpt2": 1, "bert": 2, "llama": 3, "llama_kv": 3, "llama_static": 3, "t5": 5, "resnet50": 6, "mobilenet_v2": 7,
         "efficientnet_b0": 8, "vit_b_16": 9}


def model_names(small: bool) -> dict:
    """Folder name -> (builder, seed); llama and llama_kv share a seed, so their weights."""
    names = {}
    for name, build in LANGUAGE.items():
        folder = name.replace("llama_", "llama_small_") if small and name.startswith("llama_") else \
            (name + "_small" if small else name)
        names[folder] = (build, SEED + SEEDS[name])
    if not small:
        for name, build in VISION.items():
            names[name] = (build, SEED + SEEDS[name])
    return names


def write_tensor(path: str, array: np.ndarray, name: str) -> None:
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(array, name=name).SerializeToString())


def build_seeded(build, seed: int, small: bool, batch: int = 1):
    """The module export_one exports (seeded, norms randomized, eval mode), its [(input name,
    tensor)] and output names. The weights do not depend on batch."""
    torch.manual_seed(seed)
    module, inputs, output_names, inner = build(small, batch)
    if inner is not None:
        randomize_norms_(inner)
    module.eval()
    return module, inputs, output_names


def rebuild(folder: str, batch: int = 1):
    """build_seeded for a folder name this script writes (gpt2, ..., vit_b_16, gpt2_small, ...):
    the same weights and inputs as its model.onnx and test_data_set_0 (with the same versions of
    torch / transformers / torchvision) when batch is the --batch it was exported with (the
    leading dimension of its input_0.pb). KeyError for another name."""
    for small in (False, True):
        names = model_names(small)
        if folder in names:
            build, seed = names[folder]
            return build_seeded(build, seed, small, batch)
    raise KeyError(folder)


def export_one(name: str, build, seed: int, small: bool, out_dir: str, exporter: str, opset: int,
               batch: int = 1) -> None:
    module, inputs, output_names = build_seeded(build, seed, small, batch)
    args = tuple(t for _, t in inputs)
    with torch.no_grad():
        expected = module(*args)
    if isinstance(expected, torch.Tensor):
        expected = (expected,)

    folder = os.path.join(out_dir, name)
    data = os.path.join(folder, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    model_path = os.path.join(folder, "model.onnx")
    input_names = [n for n, _ in inputs]
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if exporter == "dynamo":
            torch.onnx.export(module, args, model_path, input_names=input_names, output_names=output_names,
                              opset_version=opset, dynamo=True, external_data=False, verbose=False)
        else:
            torch.onnx.export(module, args, model_path, input_names=input_names, output_names=output_names,
                              opset_version=opset, dynamo=False, do_constant_folding=True)

    proto = onnx.load(model_path, load_external_data=False)
    graph_inputs = [i.name for i in proto.graph.input]
    # The exporter may drop an input the graph does not use (none of these); write what it kept.
    k = 0
    for in_name, tensor in inputs:
        if in_name in graph_inputs:
            write_tensor(os.path.join(data, f"input_{k}.pb"), tensor.numpy(), in_name)
            k += 1
    if len(proto.graph.output) != len(expected):
        raise RuntimeError(f"{name}: {len(proto.graph.output)} graph outputs, PyTorch gave {len(expected)}")
    for k, (out, value) in enumerate(zip(proto.graph.output, expected)):
        write_tensor(os.path.join(data, f"output_{k}.pb"), value.numpy(), out.name)
    print(f"{name}: exported ({exporter}, opset {opset}); inputs "
          + ", ".join(f"{n} {str(t.dtype).replace('torch.', '')}{list(t.shape)}" for n, t in inputs)
          + "; outputs " + ", ".join(f"{o.name} {list(v.shape)}" for o, v in zip(proto.graph.output, expected)))
    list_ops(name, folder)


# ---------------------------------------------------------------------------------------------
# --list-ops


def _type_str(vi) -> str:
    if vi is None or not vi.type.HasField("tensor_type"):
        return "?"
    t = vi.type.tensor_type
    dims = ",".join(str(d.dim_value) if d.HasField("dim_value") else (d.dim_param or "?") for d in t.shape.dim)
    return f"{onnx.helper.tensor_dtype_to_np_dtype(t.elem_type).name if t.elem_type else '?'}[{dims}]"


def folder_size(folder: str) -> int:
    return sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(folder) for f in fs)


def list_ops(name: str, folder: str) -> dict:
    model_path = os.path.join(folder, "model.onnx")
    proto = onnx.load(model_path, load_external_data=False)
    try:
        inferred = shape_inference.infer_shapes(proto)
    except Exception:  # noqa: BLE001 - shapes are only for the report
        inferred = proto
    g = inferred.graph
    types = {vi.name: vi for vi in list(g.value_info) + list(g.input) + list(g.output)}
    for init in g.initializer:
        types[init.name] = onnx.helper.make_tensor_value_info(init.name, init.data_type, list(init.dims))
    hist = {}
    for node in g.node:
        key = f"{node.domain or 'ai.onnx'}:{node.op_type}"
        hist[key] = hist.get(key, 0) + 1
    opset = ", ".join(f"{o.domain or 'ai.onnx'} {o.version}" for o in proto.opset_import)
    print(f"{name}: {len(g.node)} nodes, {len(g.initializer)} initializers, model.onnx "
          f"{os.path.getsize(model_path):,} bytes, folder {folder_size(folder):,} bytes; opsets {opset}")
    print("  inputs: " + ", ".join(f"{i.name} {_type_str(i)}" for i in proto.graph.input))
    print("  outputs: " + ", ".join(f"{o.name} {_type_str(o)}" for o in proto.graph.output))
    print("  ops: " + ", ".join(f"{k.replace('ai.onnx:', '')} {v}" for k, v in sorted(hist.items())))
    init_names = {i.name for i in g.initializer}
    for node in g.node:
        if node.op_type in INDEX_OPS or node.domain not in ("", "ai.onnx"):
            attrs = ", ".join(f"{a.name}={onnx.helper.get_attribute_value(a)}" for a in node.attribute)
            ins = ", ".join(f"{i}{'(init)' if i in init_names else ''} {_type_str(types.get(i))}"
                            for i in node.input if i)
            outs = ", ".join(_type_str(types.get(o)) for o in node.output)
            print(f"    {node.op_type} [{attrs}] ({ins}) -> {outs}")
    return hist


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=None, help="output folder (default build/models, or examples/models "
                                                "with --small; with --batch N > 1 build/models-bN, or "
                                                "build/models-small-bN with --small)")
    ap.add_argument("--small", action="store_true", help="the small language models (gpt2_small, ...)")
    ap.add_argument("--exporter", choices=["dynamo", "torchscript"], default="dynamo",
                    help="torch.onnx.export path: dynamo (dynamo=True, default) or torchscript (dynamo=False)")
    ap.add_argument("--opset", type=int, default=None, help="ONNX opset (default 20 dynamo, 17 torchscript)")
    ap.add_argument("--only", nargs="*", help="export (or list) only these folders")
    ap.add_argument("--batch", type=int, default=1,
                    help="sequences (language models) or images (vision models) per input (default 1)")
    ap.add_argument("--list-ops", action="store_true",
                    help="export nothing; print the op histogram of the folders already in --out")
    args = ap.parse_args()
    if args.batch < 1:
        ap.error("--batch must be at least 1")
    if args.out:
        out = args.out
    elif args.batch > 1:  # never over the batch-1 folders (examples/models is in git)
        out = f"build/models-small-b{args.batch}" if args.small else f"build/models-b{args.batch}"
    else:
        out = "examples/models" if args.small else "build/models"
    names = model_names(args.small)
    for n in args.only or []:
        if n not in names:
            ap.error(f"unknown model {n}; known: {', '.join(names)}")
    selected = args.only or list(names)
    if args.list_ops:
        for n in selected:
            if os.path.exists(os.path.join(out, n, "model.onnx")):
                list_ops(n, os.path.join(out, n))
        return 0
    torch.set_num_threads(max(1, min(4, os.cpu_count() or 1)))
    if args.opset is None:
        args.opset = 20 if args.exporter == "dynamo" else 17
    import transformers
    try:
        import torchvision
        tv = torchvision.__version__
    except ImportError:
        tv = "missing"
    print(f"torch {torch.__version__}, torchvision {tv}, transformers {transformers.__version__}, "
          f"onnx {onnx.__version__}, numpy {np.__version__}, exporter {args.exporter}, opset {args.opset}, "
          f"batch {args.batch}, into {out}")
    failed = []
    for n in selected:
        build, seed = names[n]
        try:
            export_one(n, build, seed, args.small, out, args.exporter, args.opset, args.batch)
        except Exception as e:  # noqa: BLE001 - report and go on with the next model
            msg = str(e).strip().splitlines()
            print(f"{n}: FAILED: {type(e).__name__}: {msg[0] if msg else ''}", file=sys.stderr)
            failed.append(n)
    if failed:
        print("failed: " + ", ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
