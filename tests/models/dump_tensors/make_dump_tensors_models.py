#!/usr/bin/python3
"""Builds the models of tests/e2e/test_dump_tensors.cc (aotc run --dump-tensors).

model.onnx, input [1,3,8,8] float32 -> output [1,5] (opset 13, random seeded weights):

    conv1    Conv 3x3 pad 1 (3->4) + bias      aotc normally fuses the Relu into it
    relu1    Relu
    pool1    MaxPool 2x2
    conv2    Conv 1x1 (4->6) + bias
    hsig     HardSigmoid(conv2)                \\ hard swish: aotc normally fuses the
    hswish   Mul(conv2, hsig)                  /  chain into conv2's kernel
    shape    Shape(hswish) -> Gather(0) -> Unsqueeze -> Concat with [-1]: shape
             arithmetic that aotc computes at compile time (fold_constants)
    flat     Reshape(hswish, that shape)
    fc       Gemm (96->5)
    output   Softmax

Two altered copies stand for a wrong kernel at a known node:
    model_relu_altered.onnx       relu1 is LeakyRelu(alpha 0.5) instead of Relu
    model_weight_altered.onnx     conv2's weight [2,1,0,0] has 0.25 added

model_hostile_names.onnx, input [2,3] float32: Relu -> Neg -> Abs, whose tensors are named
like an attack on the dump's file names (path separators, "..", quotes, a newline,
non-ASCII letters, 100 characters). Its reference dump, ref_hostile_names/, is numpy's
(relu, negation, absolute value), written here in the index format of
aot/driver/tensor_dump.h; its input is input_hostile_names.npy.

input.npy is the seeded input (numpy default_rng(7), standard normal);
input_qdq_conv_chain.npy is ../qdq/conv_chain/input_0.bin as .npy. The reference dumps
beside them (ort/, ort_relu_altered/, ort_weight_altered/, ort_qdq_conv_chain/) are ONNX
Runtime's, made by make_references.sh with scripts/ort_dump_tensors.js; tests never need
node.

Run with Debian's python3-onnx 1.12 and numpy:  /usr/bin/python3 make_dump_tensors_models.py
"""

import json
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))


def build(relu_op="Relu", conv2_delta=0.0):
    rng = np.random.default_rng(7)
    w1 = rng.standard_normal((4, 3, 3, 3)).astype(np.float32) * 0.4
    b1 = rng.standard_normal(4).astype(np.float32) * 0.1
    w2 = rng.standard_normal((6, 4, 1, 1)).astype(np.float32) * 0.5
    b2 = rng.standard_normal(6).astype(np.float32) * 0.1
    w3 = rng.standard_normal((5, 96)).astype(np.float32) * 0.3
    b3 = rng.standard_normal(5).astype(np.float32) * 0.1
    w2[2, 1, 0, 0] += np.float32(conv2_delta)
    inits = [numpy_helper.from_array(a, n) for a, n in
             [(w1, "w1"), (b1, "b1"), (w2, "w2"), (b2, "b2"), (w3, "w3"), (b3, "b3"),
              (np.array([0], np.int64), "zero"), (np.array([-1], np.int64), "minus_one")]]
    relu_attrs = {"alpha": 0.5} if relu_op == "LeakyRelu" else {}
    nodes = [
        helper.make_node("Conv", ["input", "w1", "b1"], ["conv1_out"], name="conv1", pads=[1, 1, 1, 1]),
        helper.make_node(relu_op, ["conv1_out"], ["relu1_out"], name="relu1", **relu_attrs),
        helper.make_node("MaxPool", ["relu1_out"], ["pool1_out"], name="pool1", kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["pool1_out", "w2", "b2"], ["conv2_out"], name="conv2"),
        helper.make_node("HardSigmoid", ["conv2_out"], ["hsig_out"], name="hsig", alpha=1.0 / 6, beta=0.5),
        helper.make_node("Mul", ["conv2_out", "hsig_out"], ["hswish_out"], name="hswish"),
        helper.make_node("Shape", ["hswish_out"], ["shape_out"], name="shape"),
        helper.make_node("Gather", ["shape_out", "zero"], ["batch_out"], name="batch", axis=0),
        helper.make_node("Concat", ["batch_out", "minus_one"], ["flat_shape"], name="flat_shape", axis=0),
        helper.make_node("Reshape", ["hswish_out", "flat_shape"], ["flat_out"], name="flat"),
        helper.make_node("Gemm", ["flat_out", "w3", "b3"], ["fc_out"], name="fc", transB=1),
        helper.make_node("Softmax", ["fc_out"], ["output"], name="softmax", axis=1),
    ]
    graph = helper.make_graph(nodes, "dump_tensors",
                              [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 8, 8])],
                              [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 5])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="make_dump_tensors_models")
    onnx.checker.check_model(model, full_check=True)
    return model


HOSTILE_NAMES = ["../../escape/\"quoted\"\nline", "\u00e9t\u00e9/" + "x" * 94, "output"]


def build_hostile_names():
    nodes = [helper.make_node("Relu", ["in/../put"], [HOSTILE_NAMES[0]], name="relu ../"),
             helper.make_node("Neg", [HOSTILE_NAMES[0]], [HOSTILE_NAMES[1]], name="neg"),
             helper.make_node("Abs", [HOSTILE_NAMES[1]], [HOSTILE_NAMES[2]], name="abs")]
    graph = helper.make_graph(nodes, "hostile_names",
                              [helper.make_tensor_value_info("in/../put", TensorProto.FLOAT, [2, 3])],
                              [helper.make_tensor_value_info("output", TensorProto.FLOAT, [2, 3])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="make_dump_tensors_models")
    onnx.checker.check_model(model, full_check=True)
    return model


def write_numpy_reference(folder, x):
    """The hostile-names model computed with numpy, as a dump (index and one .npy each)."""
    relu = np.maximum(x, np.float32(0))
    values = [relu, -relu, np.abs(-relu)]
    ops = ["Relu", "Neg", "Abs"]
    nodes = ["relu ../", "neg", "abs"]
    os.makedirs(folder, exist_ok=True)
    tensors = []
    for order, (name, value) in enumerate(zip(HOSTILE_NAMES, values)):
        file = "%04d_numpy.npy" % order
        np.save(os.path.join(folder, file), value)
        tensors.append({"name": name, "node": nodes[order], "op": ops[order], "order": order, "output_index": 0,
                        "dtype": "float32", "shape": list(value.shape), "file": file, "source": "run"})
    index = {"format": "aotc-tensor-dump", "version": 1, "producer": "numpy (make_dump_tensors_models.py)",
             "model": "model_hostile_names.onnx", "tensors": tensors}
    with open(os.path.join(folder, "tensors.json"), "w", encoding="utf-8") as f:
        json.dump(index, f, indent=1)
        f.write("\n")


def main():
    onnx.save(build(), os.path.join(HERE, "model.onnx"))
    onnx.save(build(relu_op="LeakyRelu"), os.path.join(HERE, "model_relu_altered.onnx"))
    onnx.save(build(conv2_delta=0.25), os.path.join(HERE, "model_weight_altered.onnx"))
    x = np.random.default_rng(7).standard_normal((1, 3, 8, 8)).astype(np.float32)
    np.save(os.path.join(HERE, "input.npy"), x)
    onnx.save(build_hostile_names(), os.path.join(HERE, "model_hostile_names.onnx"))
    h = np.random.default_rng(8).standard_normal((2, 3)).astype(np.float32)
    np.save(os.path.join(HERE, "input_hostile_names.npy"), h)
    write_numpy_reference(os.path.join(HERE, "ref_hostile_names"), h)
    # The QDQ model's own input, as .npy for ONNX Runtime.
    q = np.fromfile(os.path.join(HERE, "..", "qdq", "conv_chain", "input_0.bin"), np.float32).reshape(1, 3, 12, 12)
    np.save(os.path.join(HERE, "input_qdq_conv_chain.npy"), q)


if __name__ == "__main__":
    main()
