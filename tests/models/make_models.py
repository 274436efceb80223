#!/usr/bin/python3
"""Exports the real-CNN test models for aotc, with reference inputs and outputs.

Run once by hand (the tests never need torch), with Debian's interpreter that has
torch 1.13 / torchvision 0.14 / onnx 1.12:

    /usr/bin/python3 tests/models/make_models.py

For each model it writes, next to this script:
    <name>/model.onnx    exported with opset 13 and constant folding
    <name>/input_0.bin   float32 little-endian raw, seeded standard normal
    <name>/output_0.bin  torch's output for that input, float32 little-endian raw
and it checks every model with onnx.checker, then prints the operator types used so
they can be recorded in README.md. Everything is seeded, so reruns are reproducible
on the same torch build (bit-exact equality across torch builds is not promised).
"""

import collections
import os
import sys

import numpy as np
import onnx
import torch
import torch.nn as nn
import torchvision

MODELS_DIR = os.path.dirname(os.path.abspath(__file__))
OPSET = 13


def randomize_batch_norm_statistics(module, generator):
    """Gives every BatchNorm non-trivial running statistics and affine parameters.

    Freshly constructed BatchNorms have mean 0, var 1, weight 1, bias 0, which would
    make a folding or lowering bug in BatchNormalization invisible.
    """
    for m in module.modules():
        if isinstance(m, nn.BatchNorm2d):
            c = m.num_features
            with torch.no_grad():
                m.running_mean.copy_(torch.randn(c, generator=generator) * 0.5)
                m.running_var.copy_(torch.rand(c, generator=generator) * 1.5 + 0.25)
                m.weight.copy_(torch.rand(c, generator=generator) * 1.5 + 0.25)
                m.bias.copy_(torch.randn(c, generator=generator) * 0.3)


class SmallCnn(nn.Module):
    """A small two-branch CNN that touches most operators of a mobile CNN.

    [1,3,32,32] -> Conv3x3+BN+ReLU -> MaxPool -> branch A: depthwise s2 + BN + ReLU6,
    Conv1x1 + Hardswish; branch B: AvgPool(ceil, pad) + Conv1x1 + Sigmoid gate;
    Concat on channels -> Tanh -> BN -> AvgPool -> Conv1x1 + BN + ReLU -> global
    average pool -> Flatten -> Linear -> Softmax over 10 classes.

    Constant folding merges a BatchNorm that follows a Conv into the Conv's weights;
    the BatchNorm after Tanh has no Conv to fold into, so the exported graph keeps one
    BatchNormalization node.
    """

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(3, 8, kernel_size=3, padding=1, bias=False),
            nn.BatchNorm2d(8),
            nn.ReLU(),
            nn.MaxPool2d(2),  # 16x16
        )
        self.branch_a = nn.Sequential(
            nn.Conv2d(8, 8, kernel_size=3, stride=2, padding=1, groups=8, bias=False),
            nn.BatchNorm2d(8),
            nn.ReLU6(),  # 8x8
            nn.Conv2d(8, 16, kernel_size=1),
            nn.Hardswish(),
        )
        self.branch_b = nn.Sequential(
            # 16 -> ceil((16 + 2 - 3) / 2) + 1 = 9 with ceil_mode, then a valid 2x2 conv -> 8.
            nn.AvgPool2d(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
            nn.Conv2d(8, 8, kernel_size=2),
            nn.Sigmoid(),
        )
        self.post_concat_norm = nn.BatchNorm2d(24)
        self.head = nn.Sequential(
            nn.AvgPool2d(2),  # 4x4
            nn.Conv2d(24, 32, kernel_size=1, bias=False),
            nn.BatchNorm2d(32),
            nn.ReLU(),
            nn.AdaptiveAvgPool2d(1),
            nn.Flatten(),
            nn.Linear(32, 10),
            nn.Softmax(dim=1),
        )

    def forward(self, x):
        x = self.stem(x)
        a = self.branch_a(x)
        b = self.branch_b(x)
        return self.head(self.post_concat_norm(torch.tanh(torch.cat([a, b], dim=1))))


def make_small_cnn(generator):
    model = SmallCnn()
    randomize_batch_norm_statistics(model, generator)
    return model, [1, 3, 32, 32]


def make_mobilenet_v2(generator):
    # Random init (weights=None: no download). The last conv stays 1280 wide whatever
    # width_mult is, so a 1000-class classifier alone would be 5 MB; 10 classes keep
    # model.onnx near 1.6 MB.
    model = torchvision.models.mobilenet_v2(weights=None, width_mult=0.35, num_classes=10)
    randomize_batch_norm_statistics(model, generator)
    return model, [1, 3, 96, 96]


def op_type_counts(onnx_model):
    return collections.Counter(node.op_type for node in onnx_model.graph.node)


def export(name, make_model):
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(1234)
    model, input_shape = make_model(generator)
    model.eval()

    out_dir = os.path.join(MODELS_DIR, name)
    os.makedirs(out_dir, exist_ok=True)
    model_path = os.path.join(out_dir, "model.onnx")

    x = torch.from_numpy(np.random.default_rng(42).standard_normal(input_shape).astype(np.float32))
    with torch.no_grad():
        y = model(x)
        torch.onnx.export(model, (x,), model_path, opset_version=OPSET, do_constant_folding=True,
                          input_names=["input"], output_names=["output"])

    x.numpy().astype("<f4").tofile(os.path.join(out_dir, "input_0.bin"))
    y.numpy().astype("<f4").tofile(os.path.join(out_dir, "output_0.bin"))

    onnx_model = onnx.load(model_path)
    onnx.checker.check_model(onnx_model, full_check=True)
    counts = op_type_counts(onnx_model)
    size = os.path.getsize(model_path)
    print(f"{name}: input {list(x.shape)} -> output {list(y.shape)}, model.onnx {size} bytes, "
          f"{len(onnx_model.graph.node)} nodes")
    print("  ops: " + ", ".join(f"{op} x{n}" for op, n in sorted(counts.items())))
    return size


def main():
    total = 0
    for name, make_model in [("small_cnn", make_small_cnn), ("mobilenet_v2", make_mobilenet_v2)]:
        total += export(name, make_model)
    for name in ["small_cnn", "mobilenet_v2"]:
        for f in ["input_0.bin", "output_0.bin"]:
            total += os.path.getsize(os.path.join(MODELS_DIR, name, f))
    print(f"total size of generated files: {total} bytes")
    if total > 3 * 1024 * 1024:
        sys.exit("error: generated files exceed 3 MB")


if __name__ == "__main__":
    main()
