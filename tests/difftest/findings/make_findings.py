#!/usr/bin/python3
"""Writes the committed findings of the differential test: each a small model, made by hand
from what difftest_onnx.py found, its inputs, and ONNX Runtime's outputs as the expectation.

  make_findings.py --ort PATH_TO_onnxruntime-node [--node node]

Each finding is a directory <name>/ with model.onnx, input_<i>.npy and expected_<i>.npy
(replayed by ctest difftest_finding_<name>, tests/difftest/replay_findings.py, without node).
"""
import argparse
import glob
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from difftest_onnx import OrtServer  # noqa: E402

OPSET = [helper.make_opsetid("", 13)]


def f32(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def graph_input_also_output():
    """Seed 827 (difftest_onnx.py): a graph input that is also a graph output, and read by a
    node. aotc wrote nothing to that output (zeros), because the storage planner took 'a
    kernel touches it' for 'a kernel writes it' and left out the copy."""
    x = np.array([[-2, -1, 0], [1, 2, 3.5]], np.float32)
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="relu")], "input_also_output",
                              [f32("x", [2, 3])], [f32("y", [2, 3]), f32("x", [2, 3])])
    return helper.make_model(graph, opset_imports=OPSET), [x]


def constant_also_output():
    """The same planner gap for a constant: an initializer that a node reads and that is also
    a graph output came out as zeros."""
    c = numpy_helper.from_array(np.array([[1, -2, 3], [4, 5, -6]], np.float32), "c")
    x = np.array([[0.5, 0.25, -1], [2, -3, 4]], np.float32)
    graph = helper.make_graph([helper.make_node("Add", ["x", "c"], ["y"], name="add")], "constant_also_output",
                              [f32("x", [2, 3])], [f32("y", [2, 3]), f32("c", [2, 3])], [c])
    return helper.make_model(graph, opset_imports=OPSET), [x]


def two_outputs_view_one_tensor():
    """Seed 3200086 (difftest_onnx.py --aotc-args=--io-in-arena): two graph outputs that are
    views of one computed tensor (Unsqueeze and Reshape of a Relu). The Relu writes the first
    output and the second is copied from it; with --io-in-arena the planner took the copy's
    source for an arena tensor of its own, which had no place: aotc stopped with 'internal
    error: map::at' (exit status 3)."""
    x = np.array([[-2, -1, 0], [1, 2, 3.5]], np.float32)
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"], name="relu"),
         helper.make_node("Unsqueeze", ["y", "axes"], ["a"], name="unsqueeze"),
         helper.make_node("Reshape", ["y", "shape"], ["b"], name="reshape")],
        "two_outputs_view_one_tensor", [f32("x", [2, 3])], [f32("a", [1, 2, 3]), f32("b", [6])],
        [numpy_helper.from_array(np.array([0], np.int64), "axes"), numpy_helper.from_array(np.array([6], np.int64), "shape")])
    return helper.make_model(graph, opset_imports=OPSET), [x]


def where_of_where_condition():
    """Seed 6000770: y = -x; t = Where(y > 0.0625, x, y); out = Where(t > 0.0625, w, t).
    Each node alone matched ONNX Runtime; together aotc gave w where t <= 0.0625 (x = -0.5:
    t = -0.5). The generated C was right, but gcc 12 -O2 folded the two identical Greater
    kernels, called with the same arena addresses (t is written over y), into one and
    dropped the second call: the kernels are now no_icf for gcc (executor_codegen.cc)."""
    x = np.array([[-1.3125, 0.5, -0.5, 2], [0, 0.0625, -0.0625, 3]], np.float32)
    w = np.array([-5], np.float32)
    k = numpy_helper.from_array(np.float32(0.0625), "k")
    graph = helper.make_graph(
        [helper.make_node("Neg", ["x"], ["y"], name="neg"),
         helper.make_node("Greater", ["y", "k"], ["c1"], name="greater1"),
         helper.make_node("Where", ["c1", "x", "y"], ["t"], name="where1"),
         helper.make_node("Greater", ["t", "k"], ["c2"], name="greater2"),
         helper.make_node("Where", ["c2", "w", "t"], ["out"], name="where2")],
        "where_of_where_condition", [f32("x", [2, 4]), f32("w", [1])], [f32("out", [2, 4])], [k])
    return helper.make_model(graph, opset_imports=OPSET), [x, w]


def if_output_two_views():
    """Seed 1008497 (difftest_onnx.py, host): an If's output read by two views that are both
    graph outputs (Dropout and Squeeze). The branches computed into the first output, which
    stores the If's output; the second output's copy read the place the If's output would
    have had in the arena, which nothing wrote (2 of 2 values wrong): the storage planner
    recorded the copy's source before it knew that the root lives in an output."""
    x = np.array([[1.9994305], [3.2739928]], np.float32)

    def branch(name, added):
        k = numpy_helper.from_array(np.array(added, np.float32), name + "_k")
        return helper.make_graph([helper.make_node("Relu", ["x"], [name + "_r"], name=name + "_relu"),
                                  helper.make_node("Add", [name + "_r", name + "_k"], [name + "_y"], name=name + "_add")],
                                 name, [], [f32(name + "_y", [2, 1])], [k])

    graph = helper.make_graph(
        [helper.make_node("ReduceMax", ["x"], ["m"], keepdims=0, name="max"),
         helper.make_node("Greater", ["m", "c"], ["cond"], name="greater"),
         helper.make_node("If", ["cond"], ["t"], then_branch=branch("then", 0.5), else_branch=branch("else", -0.5),
                          name="if"),
         helper.make_node("Dropout", ["t"], ["d"], name="dropout"),
         helper.make_node("Squeeze", ["t", "axes"], ["s"], name="squeeze")],
        "if_output_two_views", [f32("x", [2, 1])], [f32("d", [2, 1]), f32("s", [2])],
        [numpy_helper.from_array(np.array(0, np.float32), "c"), numpy_helper.from_array(np.array([1], np.int64), "axes")])
    return helper.make_model(graph, opset_imports=OPSET), [x]


def folded_outputs_read_later():
    """Seed 1010429: an LSTM whose inputs are all constants, its Y and Y_h read by Convs: both
    came out as zeros. infer_shapes folds such a node as it goes, when the nodes after it are
    not back in the graph yet; the LSTM's kernel computes only the outputs something reads,
    and saw no reader. The same for TopK's indices. Folding now computes every output."""
    rng = np.random.default_rng(1010429)
    hidden, size = 3, 4

    def const(name, shape):
        return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32) * 0.5, name)

    x = np.array([[1.5, -2.0, 0.25]], np.float32)
    graph = helper.make_graph(
        [helper.make_node("LSTM", ["lx", "lw", "lr", "lb"], ["ly", "lh"], hidden_size=hidden, name="lstm"),
         helper.make_node("Relu", ["ly"], ["y_relu"], name="relu"),
         helper.make_node("Neg", ["lh"], ["h_neg"], name="neg"),
         helper.make_node("TopK", ["tk", "k"], ["values", "indices"], name="topk"),
         helper.make_node("Cast", ["indices"], ["indices_f"], to=TensorProto.FLOAT, name="cast"),
         helper.make_node("Add", ["indices_f", "x"], ["y_topk"], name="add")],
        "folded_outputs_read_later", [f32("x", [1, 3])],
        [f32("y_relu", [2, 1, 1, hidden]), f32("h_neg", [1, 1, hidden]), f32("y_topk", [1, 3])],
        [const("lx", [2, 1, size]), const("lw", [1, 4 * hidden, size]), const("lr", [1, 4 * hidden, hidden]),
         const("lb", [1, 8 * hidden]), numpy_helper.from_array(np.array([[0.5, 3.0, -1.0, 2.0, 7.0]], np.float32), "tk"),
         numpy_helper.from_array(np.array([3], np.int64), "k")])
    return helper.make_model(graph, opset_imports=OPSET), [x]


# name: (model maker, options for `aotc run`)
def layer_norm_large_group():
    """Seed 1044488: a LayerNormalization over 3,332 elements (axis -3 of [1, 28, 7, 17]) whose
    values lie near 130 with a spread of a few hundredths: aotc's mean and variance, plain
    float32 sums, erred by thousands of units in the last place, and the outputs (the
    deviations from the mean over a standard deviation of 0.05) by up to 3e-3 from ONNX
    Runtime. Groups of 64 elements or more now sum with Kahan's compensation
    (lowering/ops/onnx/normalization.cc). Here: 2,400 elements per group, two groups."""
    rng = np.random.default_rng(1044488)
    x = (130 + rng.standard_normal([2, 12, 200]) * 0.05).astype(np.float32)
    scale = numpy_helper.from_array(rng.standard_normal([200]).astype(np.float32), "scale")
    bias = numpy_helper.from_array((rng.standard_normal([200]) * 0.01).astype(np.float32), "bias")
    graph = helper.make_graph(
        [helper.make_node("LayerNormalization", ["x", "scale", "bias"], ["y"], axis=1, name="layer_norm")],
        "layer_norm_large_group", [f32("x", [2, 12, 200])], [f32("y", [2, 12, 200])], [scale, bias])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), [x]


def excitation_of_one_pixel():
    """Seeds 1090310, 1090647, 1090740 (--target cortex-m4): the channels_last pass moved the
    transposes of an Add of two [1, C, 1, 1] tensors (a pooled, channels-last result and a
    tensor that is a view either way) back and forth without end: aotc never finished. Only a
    broadcast operand, smaller than the result, is read as a view now."""
    rng = np.random.default_rng(1090647)
    x = rng.standard_normal([1, 4, 3, 3]).astype(np.float32)
    s = rng.standard_normal([1, 4, 1, 1]).astype(np.float32)
    w = numpy_helper.from_array(rng.standard_normal([4, 4, 1, 1]).astype(np.float32), "w")
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w"], ["c"], name="conv"),
         helper.make_node("GlobalAveragePool", ["c"], ["p"], name="pool"),
         helper.make_node("Add", ["p", "s"], ["y"], name="add")],
        "excitation_of_one_pixel", [f32("x", [1, 4, 3, 3]), f32("s", [1, 4, 1, 1])], [f32("y", [1, 4, 1, 1])], [w])
    return helper.make_model(graph, opset_imports=OPSET), [x, s]


FINDINGS = {"graph_input_also_output": (graph_input_also_output, ""),
            "constant_also_output": (constant_also_output, ""),
            "two_outputs_view_one_tensor": (two_outputs_view_one_tensor, ""),
            "two_outputs_view_one_tensor_io_in_arena": (two_outputs_view_one_tensor, "--io-in-arena"),
            "where_of_where_condition": (where_of_where_condition, ""),
            "if_output_two_views": (if_output_two_views, ""),
            "if_output_two_views_io_in_arena": (if_output_two_views, "--io-in-arena"),
            "folded_outputs_read_later": (folded_outputs_read_later, ""),
            "layer_norm_large_group": (layer_norm_large_group, ""),
            "excitation_of_one_pixel": (excitation_of_one_pixel, "--target cortex-m4")}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ort", default=os.environ.get("ORT_MODULE"), required=not os.environ.get("ORT_MODULE"))
    ap.add_argument("--node", default="node")
    args = ap.parse_args()
    ort = OrtServer(args.node, args.ort)
    for name, (make, aotc_args) in FINDINGS.items():
        d = os.path.join(HERE, name)
        os.makedirs(d, exist_ok=True)
        for old in glob.glob(os.path.join(d, "*.npy")) + glob.glob(os.path.join(d, "aotc_args.txt")):
            os.remove(old)
        if aotc_args:
            with open(os.path.join(d, "aotc_args.txt"), "w") as f:
                f.write(aotc_args + "\n")
        model, inputs = make()
        onnx.checker.check_model(model)
        onnx.save(model, os.path.join(d, "model.onnx"))
        in_paths = []
        for i, x in enumerate(inputs):
            in_paths.append(os.path.join(d, f"input_{i}.npy"))
            np.save(in_paths[-1], x)
        outs = [os.path.join(d, f"expected_{i}.npy") for i in range(len(model.graph.output))]
        error = ort.run(os.path.join(d, "model.onnx"), in_paths, outs)
        if error:
            sys.exit(f"{name}: ORT: {error}")
        print(f"{name}: {len(outs)} outputs from ORT")
    ort.close()


if __name__ == "__main__":
    main()
