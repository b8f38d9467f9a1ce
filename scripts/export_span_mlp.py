#!/usr/bin/env python3
"""Export an MLP whose outputs span five orders of magnitude, and three wrong copies of it, as ONNX
backend test folders that all ship the *correct* model's PyTorch outputs (issue 31):

  correct        Linear 32->64, SiLU, Linear 64->64, LeakyReLU(0.1), Linear 64->16, times per-column
                 scales 1e-3 ... 1e2: outputs from about 1e-4 to 500
  bias_1pct      the last layer's bias 1 % off
  slope_5pct     LeakyReLU's negative slope 0.105 instead of 0.1
  column_masked  the smallest output column (scale 1e-3) set to zero

`smelt test DIR/correct` must pass with default tolerances on every target; `smelt test` on each
wrong folder must fail (tests/onnx/onnx_cli_test.cpp). Weights are random with a fixed seed, batch 8.
torch is only needed to regenerate the folders:

  build/peers-venv/bin/python scripts/export_span_mlp.py [--out tests/onnx/span_mlp]
"""

import argparse
import os
import warnings

import numpy as np
import onnx
from onnx import numpy_helper
import torch
import torch.nn as nn


class SpanMlp(nn.Module):
    def __init__(self, slope: float = 0.1, masked_column: int = -1):
        super().__init__()
        self.l1 = nn.Linear(32, 64)
        self.l2 = nn.Linear(64, 64)
        self.l3 = nn.Linear(64, 16)
        self.slope = slope
        # Column c scaled by 10^(c/3 - 3): 1e-3 for column 0 up to 1e2 for column 15.
        scales = torch.tensor([10.0 ** (c / 3.0 - 3.0) for c in range(16)])
        if masked_column >= 0:
            scales[masked_column] = 0.0
        self.register_buffer("scales", scales)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = nn.functional.silu(self.l1(x))
        h = nn.functional.leaky_relu(self.l2(h), self.slope)
        return self.l3(h) * self.scales


def variants():
    torch.manual_seed(31)
    correct = SpanMlp()
    state = correct.state_dict()
    bias = SpanMlp()
    bias.load_state_dict(state)
    with torch.no_grad():
        bias.l3.bias.mul_(1.01)
    slope = SpanMlp(slope=0.105)
    slope.load_state_dict(state)
    masked = SpanMlp(masked_column=0)
    masked.load_state_dict({k: v for k, v in state.items() if k != "scales"}, strict=False)
    return {"correct": correct, "bias_1pct": bias, "slope_5pct": slope, "column_masked": masked}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=os.path.join("tests", "onnx", "span_mlp"))
    args = parser.parse_args()
    models = variants()
    torch.manual_seed(7)
    x = torch.randn(8, 32)
    with torch.no_grad():
        want = models["correct"].eval()(x)
    print(f"outputs: |y| from {want.abs().min().item():.3g} to {want.abs().max().item():.3g}")
    for name, model in models.items():
        model.eval()
        folder = os.path.join(args.out, name)
        data = os.path.join(folder, "test_data_set_0")
        os.makedirs(data, exist_ok=True)
        path = os.path.join(folder, "model.onnx")
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, (x,), path, input_names=["x"], output_names=["y"], opset_version=20,
                              dynamo=True, external_data=False, verbose=False)
        proto = onnx.load(path)
        onnx.checker.check_model(proto, full_check=True)
        with open(os.path.join(data, "input_0.pb"), "wb") as f:
            f.write(numpy_helper.from_array(x.numpy(), name=proto.graph.input[0].name).SerializeToString())
        with open(os.path.join(data, "output_0.pb"), "wb") as f:  # the correct model's outputs, always
            f.write(numpy_helper.from_array(want.numpy(), name=proto.graph.output[0].name).SerializeToString())
        with torch.no_grad():
            moved = (model(x) - want).abs() / want.abs()
        print(f"{name}: largest change of an output {moved.max().item():.3g} of itself, {os.path.getsize(path)} bytes")


if __name__ == "__main__":
    main()
