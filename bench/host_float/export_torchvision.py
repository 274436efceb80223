#!/usr/bin/python3
"""Exports torchvision's SqueezeNet 1.1 and MobileNetV2 (eval mode, seeded random weights:
no pretrained weights can be downloaded here, and speed does not depend on their values)
with torch.onnx.export at opset 13, at 96x96 and 224x224, for bench_host_float.

    /usr/bin/python3 bench/host_float/export_torchvision.py OUT_DIR

Writes OUT_DIR/{squeezenet1_1,mobilenet_v2}_{96,224}.onnx, each only if it is missing.
Needs Debian's python3-torch and python3-torchvision (run.sh falls back to
make_models.cc's layer-by-layer reconstruction when they are not installed).
"""
import os
import sys

import torch
import torchvision


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    builders = {"squeezenet1_1": torchvision.models.squeezenet1_1, "mobilenet_v2": torchvision.models.mobilenet_v2}
    for name, build in builders.items():
        for size in (96, 224):
            path = os.path.join(out, f"{name}_{size}.onnx")
            if os.path.exists(path):
                continue
            torch.manual_seed(0)
            model = build(weights=None).eval()
            x = torch.randn(1, 3, size, size)
            with torch.no_grad():
                torch.onnx.export(model, x, path + ".tmp", opset_version=13, input_names=["input"],
                                  output_names=["output"], do_constant_folding=True)
            os.replace(path + ".tmp", path)
            print(f"wrote {path}")


if __name__ == "__main__":
    main()
