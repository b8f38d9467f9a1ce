#!/usr/bin/env python3
"""Export two small PyTorch CNNs to ONNX backend test folders (examples/cnn/<name>/model.onnx
plus test_data_set_0/{input_0,output_0}.pb: the input and PyTorch's eval-mode output):

  small_cnn     conv 3x3 (3->16) + batch-norm + ReLU + max-pool 2x2, conv 3x3 stride 2 (16->32)
                + batch-norm + ReLU, mean over H and W, linear 32->10; input f32[2,3,32,32]
  resnet_stage  two ResNet-18 basic blocks (3x3 convs, batch-norm, ReLU, residual adds), the
                second with stride 2 and a 1x1 downsample (32->64); input f32[1,32,28,28]

Random weights and batch-norm statistics, fixed seed. torch is only needed to regenerate them;
smelt's build and tests never need it. bench/peers/workloads.py imports ResStage and
randomize_batch_norms_ from here (its resnet_stage_b1 / _b8 workloads). From the repository root:

  /work/venv-torch/bin/python scripts/export_cnns.py [--out examples/cnn]
"""
import argparse
import os
import warnings

import onnx
from onnx import numpy_helper
import torch
import torch.nn as nn

class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 16, 3, padding=1)
        self.b1 = nn.BatchNorm2d(16)
        self.c2 = nn.Conv2d(16, 32, 3, stride=2, padding=1)
        self.b2 = nn.BatchNorm2d(32)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(32, 10)

    def forward(self, x):
        x = self.pool(torch.relu(self.b1(self.c1(x))))
        x = torch.relu(self.b2(self.c2(x)))
        return self.fc(x.mean(dim=(2, 3)))


def basic_block(cin: int, cout: int, stride: int) -> nn.ModuleDict:
    """A ResNet-18 basic block's layers; `down` matches the residual's shape."""
    down = nn.Identity()
    if stride != 1 or cin != cout:
        down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))
    return nn.ModuleDict(dict(c1=nn.Conv2d(cin, cout, 3, stride, 1, bias=False), b1=nn.BatchNorm2d(cout),
                              c2=nn.Conv2d(cout, cout, 3, 1, 1, bias=False), b2=nn.BatchNorm2d(cout), down=down))


class ResStage(nn.Module):
    def __init__(self, c=32):
        super().__init__()
        self.blocks = nn.ModuleList([basic_block(c, c, 1), basic_block(c, 2 * c, 2)])

    def forward(self, x):
        for b in self.blocks:
            y = torch.relu(b["b1"](b["c1"](x)))
            y = b["b2"](b["c2"](y))
            x = torch.relu(y + b["down"](x))
        return x


def randomize_batch_norms_(model: nn.Module) -> None:
    """Statistics and affine parameters away from the identity, so the test covers them."""
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.uniform_(-0.2, 0.2)
            m.running_var.uniform_(0.5, 1.5)
            m.weight.data.uniform_(0.5, 1.5)
            m.bias.data.uniform_(-0.2, 0.2)


def write_tensor(path: str, array, name: str) -> None:
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(array, name=name).SerializeToString())


def main() -> None:
    parser = argparse.ArgumentParser(description="Export small PyTorch CNNs to ONNX test folders.")
    parser.add_argument("--out", default="examples/cnn")
    out = parser.parse_args().out
    torch.manual_seed(0)
    for name, model, shape in [("small_cnn", SmallCNN(), (2, 3, 32, 32)),
                               ("resnet_stage", ResStage(), (1, 32, 28, 28))]:
        randomize_batch_norms_(model)
        model.eval()
        x = torch.randn(*shape)
        with torch.no_grad():
            y = model(x)
        folder = os.path.join(out, name)
        os.makedirs(os.path.join(folder, "test_data_set_0"), exist_ok=True)
        model_path = os.path.join(folder, "model.onnx")
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, (x,), model_path, input_names=["x"], output_names=["y"], dynamo=True,
                              external_data=False, verbose=False)
        proto = onnx.load(model_path)
        write_tensor(os.path.join(folder, "test_data_set_0", "input_0.pb"), x.numpy(), proto.graph.input[0].name)
        write_tensor(os.path.join(folder, "test_data_set_0", "output_0.pb"), y.numpy(), proto.graph.output[0].name)
        print(name, sorted({n.op_type for n in proto.graph.node}))


if __name__ == "__main__":
    main()
