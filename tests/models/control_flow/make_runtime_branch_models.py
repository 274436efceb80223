#!/usr/bin/python3
"""Small hand-built ONNX models whose If (or Loop) is decided at run time, with the patterns
that went wrong in Silero VAD v4 with its sample rate as a run-time input (aotc issue #26),
and their inputs. The references come from ONNX Runtime: ort_references.js runs every case
and writes its outputs. Run once by hand (tests never need either):

    /usr/bin/python3 tests/models/control_flow/make_runtime_branch_models.py
    node tests/models/control_flow/ort_references.js      # NODE_PATH with onnxruntime-node

It writes runtime_branches/<model>.onnx, per case runtime_branches/<model>_<case>_in<k>.bin
(raw little-endian, graph input order) and runtime_branches/cases.json (each model's inputs
and outputs, each case's input files and the branch it takes); ort_references.js adds
<model>_<case>_out<k>.bin. Weights and inputs are seeded. See README.md.
"""

import json
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "runtime_branches")
RNG = np.random.default_rng(26)
MANIFEST = []
FLOAT = TensorProto.FLOAT


def const(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def weights(*shape):
    return (RNG.standard_normal(shape) * 0.3).astype(np.float32)


def info(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


DTYPES = {TensorProto.FLOAT: "float32", TensorProto.INT64: "int64", TensorProto.BOOL: "bool"}


def save(name, graph, cases, opset=13):
    """cases: (what the case shows: the branch or path it takes, [input arrays])."""
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, os.path.join(HERE, name + ".onnx"))
    entry = {"model": name + ".onnx",
             "inputs": [{"name": i.name, "dtype": DTYPES[i.type.tensor_type.elem_type],
                         "shape": [d.dim_value for d in i.type.tensor_type.shape.dim]} for i in graph.input],
             "outputs": [o.name for o in graph.output], "cases": []}
    for c, (path, inputs) in enumerate(cases):
        files = []
        for k, a in enumerate(inputs):
            files.append(f"{name}_{c}_in{k}.bin")
            np.ascontiguousarray(a).tofile(os.path.join(HERE, files[-1]))
        entry["cases"].append({"case": c, "path": path, "inputs": files,
                               "outputs": [f"{name}_{c}_out{k}.bin" for k in range(len(graph.output))]})
    MANIFEST.append(entry)


def lstm_layer(tag, x, h, c, hidden, inputs):
    """An LSTM layer's weights and node: Y, Y_h, Y_c named <tag>_y, <tag>_h, <tag>_c."""
    init = [const(f"{tag}_w", weights(1, 4 * hidden, inputs)), const(f"{tag}_r", weights(1, 4 * hidden, hidden)),
            const(f"{tag}_b", weights(1, 8 * hidden))]
    node = helper.make_node("LSTM", [x, f"{tag}_w", f"{tag}_r", f"{tag}_b", "", h, c],
                            [f"{tag}_y", f"{tag}_h", f"{tag}_c"], hidden_size=hidden)
    return init, node


def branch_lstm():
    """Silero VAD v4's shape in small: an If on Equal(rate, 16000), `rate` an int64 input,
    each branch a two-layer LSTM over x [2, 1, 8] (its own weights) from the states h and c
    [2, 1, 16], split per layer by Slice; the next states are Concats of the layers' Y_h
    and Y_c, the score a ReduceMean of the last layer's Y. The If's outputs y, hn, cn are
    the graph's. The LSTMs' outputs are read only inside the branch."""
    def branch(tag):
        nodes, init = [], [const(f"{tag}_s0", [0]), const(f"{tag}_s1", [1]), const(f"{tag}_s2", [2]),
                            const(f"{tag}_ax0", [0]), const(f"{tag}_ax1", [1])]
        for layer in range(2):
            lo, hi = f"{tag}_s{layer}", f"{tag}_s{layer + 1}"
            nodes += [helper.make_node("Slice", ["h", lo, hi, f"{tag}_ax0"], [f"{tag}_h{layer}"]),
                      helper.make_node("Slice", ["c", lo, hi, f"{tag}_ax0"], [f"{tag}_c{layer}"])]
            x = "x" if layer == 0 else f"{tag}_x1"
            w, node = lstm_layer(f"{tag}_l{layer}", x, f"{tag}_h{layer}", f"{tag}_c{layer}", 16, 8 if layer == 0 else 16)
            init += w
            nodes.append(node)
            # Y [2, 1, 1, 16] -> [2, 1, 16], the next layer's input
            nodes.append(helper.make_node("Squeeze", [f"{tag}_l{layer}_y", f"{tag}_ax1"], [f"{tag}_x{layer + 1}"]))
        nodes += [helper.make_node("Concat", [f"{tag}_l0_h", f"{tag}_l1_h"], [f"{tag}_hn"], axis=0),
                  helper.make_node("Concat", [f"{tag}_l0_c", f"{tag}_l1_c"], [f"{tag}_cn"], axis=0),
                  helper.make_node("ReduceMean", [f"{tag}_x2"], [f"{tag}_y"], axes=[0, 2], keepdims=0)]
        return helper.make_graph(nodes, tag, [], [info(f"{tag}_y", FLOAT, [1]), info(f"{tag}_hn", FLOAT, [2, 1, 16]),
                                                  info(f"{tag}_cn", FLOAT, [2, 1, 16])], initializer=init)
    nodes = [helper.make_node("Equal", ["rate", "r16k"], ["is16k"]),
             helper.make_node("If", ["is16k"], ["y", "hn", "cn"], name="rate_branch", then_branch=branch("then"),
                              else_branch=branch("else"))]
    graph = helper.make_graph(nodes, "branch_lstm",
                              [info("x", FLOAT, [2, 1, 8]), info("rate", TensorProto.INT64, []), info("h", FLOAT, [2, 1, 16]),
                               info("c", FLOAT, [2, 1, 16])],
                              [info("y", FLOAT, [1]), info("hn", FLOAT, [2, 1, 16]), info("cn", FLOAT, [2, 1, 16])],
                              initializer=[const("r16k", np.int64(16000))])
    x = RNG.standard_normal((2, 1, 8)).astype(np.float32)
    h = (RNG.standard_normal((2, 1, 16)) * 0.5).astype(np.float32)
    c = (RNG.standard_normal((2, 1, 16)) * 0.5).astype(np.float32)
    zeros = np.zeros((2, 1, 16), np.float32)
    save("branch_lstm", graph, [("then (rate 16000), zero state", [x, np.int64(16000), zeros, zeros]),
                                ("then (rate 16000)", [x, np.int64(16000), h, c]),
                                ("else (rate 8000)", [x, np.int64(8000), h, c])])


def branch_optional_outputs():
    """An If on a bool input whose branches use operators that compute an optional output
    only when something reads it: then TopK (k 3) of x [1, 8], y = values * 2 + Cast(indices);
    else MaxPool (kernel 2, stride 2) of x as [1, 1, 8] with its Indices,
    y = Reshape(values) + Cast(indices) * 0.5. Both outputs are read only in the branch."""
    then_g = helper.make_graph(
        [helper.make_node("TopK", ["x", "k"], ["tv", "ti"]),
         helper.make_node("Cast", ["ti"], ["tif"], to=FLOAT),
         helper.make_node("Mul", ["tv", "two"], ["tv2"]),
         helper.make_node("Add", ["tv2", "tif"], ["ty"])],
        "then", [], [info("ty", FLOAT, [1, 3])], initializer=[const("k", np.array([3], np.int64)), const("two", np.float32(2))])
    else_g = helper.make_graph(
        [helper.make_node("Reshape", ["x", "shape3"], ["x3"]),
         helper.make_node("MaxPool", ["x3"], ["pv", "pi"], kernel_shape=[2], strides=[2]),
         helper.make_node("Cast", ["pi"], ["pif"], to=FLOAT),
         helper.make_node("Mul", ["pif", "half"], ["pih"]),
         helper.make_node("Reshape", ["pv", "shape2"], ["pv2"]),
         helper.make_node("Reshape", ["pih", "shape2"], ["pih2"]),
         helper.make_node("Slice", ["pv2", "z", "three", "one"], ["pv3"]),
         helper.make_node("Slice", ["pih2", "z", "three", "one"], ["pih3"]),
         helper.make_node("Add", ["pv3", "pih3"], ["ey"])],
        "else", [], [info("ey", FLOAT, [1, 3])],
        initializer=[const("shape3", np.array([1, 1, 8], np.int64)), const("shape2", np.array([1, 4], np.int64)),
                     const("half", np.float32(0.5)), const("z", np.array([0], np.int64)), const("three", np.array([3], np.int64)),
                     const("one", np.array([1], np.int64))])
    graph = helper.make_graph([helper.make_node("If", ["cond"], ["y"], name="pick", then_branch=then_g, else_branch=else_g)],
                              "branch_optional_outputs", [info("cond", TensorProto.BOOL, []), info("x", FLOAT, [1, 8])],
                              [info("y", FLOAT, [1, 3])])
    x = np.array([[0.5, -1.0, 3.0, 2.0, -0.25, 4.0, 1.5, 0.0]], np.float32)
    save("branch_optional_outputs", graph, [("then (TopK)", [np.bool_(True), x]), ("else (MaxPool)", [np.bool_(False), x])])


def loop_lstm():
    """A Loop of 3 iterations (a constant trip count) stepping an LSTM cell over x [3, 1, 8]:
    the body gathers frame i, runs LSTM from the carried h and c [1, 1, 16] and gives Y_h and
    Y_c as the next h and c and Y_h * 2 as a scan output. Y_h and Y_c are the body's results,
    read by no node of the main graph."""
    w, lstm = lstm_layer("cell", "frame", "h_in", "c_in", 16, 8)
    body = helper.make_graph(
        [helper.make_node("Gather", ["x", "i"], ["frame2"], axis=0),
         helper.make_node("Unsqueeze", ["frame2", "ax0"], ["frame"]),
         lstm,
         helper.make_node("Identity", ["go_in"], ["go_out"]),
         helper.make_node("Mul", ["cell_h", "two"], ["scan"])],
        "body", [info("i", TensorProto.INT64, []), info("go_in", TensorProto.BOOL, []), info("h_in", FLOAT, [1, 1, 16]),
                 info("c_in", FLOAT, [1, 1, 16])],
        [info("go_out", TensorProto.BOOL, []), info("cell_h", FLOAT, [1, 1, 16]), info("cell_c", FLOAT, [1, 1, 16]),
         info("scan", FLOAT, [1, 1, 16])],
        initializer=[const("ax0", np.array([0], np.int64)), const("two", np.float32(2))] + w)
    node = helper.make_node("Loop", ["trips", "go", "h0", "c0"], ["h", "c", "hs"], name="steps", body=body)
    graph = helper.make_graph([node], "loop_lstm", [info("x", FLOAT, [3, 1, 8]), info("h0", FLOAT, [1, 1, 16]),
                                                    info("c0", FLOAT, [1, 1, 16])],
                              [info("h", FLOAT, [1, 1, 16]), info("c", FLOAT, [1, 1, 16]), info("hs", FLOAT, [3, 1, 1, 16])],
                              initializer=[const("trips", np.int64(3)), const("go", np.bool_(True))])
    x = RNG.standard_normal((3, 1, 8)).astype(np.float32)
    h0 = (RNG.standard_normal((1, 1, 16)) * 0.5).astype(np.float32)
    c0 = (RNG.standard_normal((1, 1, 16)) * 0.5).astype(np.float32)
    save("loop_lstm", graph, [("3 iterations", [x, h0, c0])])


def branch_results():
    """The ways a branch gives the If its results, with a run-time condition (x's sum > 0):
    out0 the then branch's kernel result / the else branch's outer value a = Relu(x) (through
    an Identity: ONNX Runtime refuses an outer value as a subgraph's output); out1 a
    constant / a view (Reshape) of a; out2 and out3 one kernel result of the branch, the
    second time through an Identity / a kernel result and a again (each output its own
    name: ONNX Runtime 1.30 gives wrong values, zeros, for a name a subgraph outputs twice).
    After the If, z = out0 + out1 + out2 * out3 + a * 3 (a is read after the If too). The
    outputs are z, out2 and out1 (the If's outputs as graph outputs)."""
    then_g = helper.make_graph(
        [helper.make_node("Mul", ["a", "three"], ["t0"]),
         helper.make_node("Tanh", ["a"], ["t2"]),
         helper.make_node("Identity", ["t2"], ["t3"])],
        "then", [], [info("t0", FLOAT, [1, 8]), info("tc", FLOAT, [1, 8]), info("t2", FLOAT, [1, 8]), info("t3", FLOAT, [1, 8])],
        initializer=[const("three", np.float32(3)), const("tc", np.full((1, 8), 0.25, np.float32))])
    else_g = helper.make_graph(
        [helper.make_node("Identity", ["a"], ["e0"]),
         helper.make_node("Reshape", ["a", "flat"], ["ea"]),
         helper.make_node("Reshape", ["ea", "row"], ["e1"]),
         helper.make_node("Sigmoid", ["a"], ["e2"]),
         helper.make_node("Identity", ["a"], ["e3"])],
        "else", [], [info("e0", FLOAT, [1, 8]), info("e1", FLOAT, [1, 8]), info("e2", FLOAT, [1, 8]), info("e3", FLOAT, [1, 8])],
        initializer=[const("flat", np.array([8], np.int64)), const("row", np.array([1, 8], np.int64))])
    nodes = [helper.make_node("Relu", ["x"], ["a"]),
             helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0),
             helper.make_node("Greater", ["s", "zero"], ["positive"]),
             helper.make_node("If", ["positive"], ["o0", "o1", "o2", "o3"], name="results", then_branch=then_g, else_branch=else_g),
             helper.make_node("Add", ["o0", "o1"], ["p"]),
             helper.make_node("Mul", ["o2", "o3"], ["q"]),
             helper.make_node("Add", ["p", "q"], ["z0"]),
             helper.make_node("Mul", ["a", "three_outer"], ["a3"]),
             helper.make_node("Add", ["z0", "a3"], ["z"])]
    graph = helper.make_graph(nodes, "branch_results", [info("x", FLOAT, [1, 8])],
                              [info("z", FLOAT, [1, 8]), info("o2", FLOAT, [1, 8]), info("o1", FLOAT, [1, 8])],
                              initializer=[const("zero", np.float32(0)), const("three_outer", np.float32(3))])
    x = RNG.standard_normal((1, 8)).astype(np.float32)
    x = np.abs(x) * np.float32(0.8) - np.float32(0.2)  # sum > 0
    save("branch_results", graph, [("then", [x.astype(np.float32)]), ("else", [(-x).astype(np.float32)])])


def branch_outer_in_place():
    """Values of the outer graph that a branch reads, where a kernel could write its output
    over its input: a = Relu(x) [1, 4, 6] is read only by the If (seen from the main graph,
    by one node). Then: a depthwise Conv (kernel 3, pads 1: same shape, its output could
    go over its input) of a, then + a (a read again after the Conv). Else: Sigmoid(a) * a.
    b = Neg(x) is read in the then branch and after the If. Outputs y = If + b."""
    then_g = helper.make_graph(
        [helper.make_node("Conv", ["a", "dw", "dwb"], ["tc"], group=4, kernel_shape=[3], pads=[1, 1]),
         helper.make_node("Add", ["tc", "a"], ["ts"]),
         helper.make_node("Sub", ["ts", "b"], ["ty"])],
        "then", [], [info("ty", FLOAT, [1, 4, 6])], initializer=[const("dw", weights(4, 1, 3)), const("dwb", weights(4))])
    else_g = helper.make_graph(
        [helper.make_node("Sigmoid", ["a"], ["es"]),
         helper.make_node("Mul", ["es", "a"], ["ey"])],
        "else", [], [info("ey", FLOAT, [1, 4, 6])])
    nodes = [helper.make_node("Relu", ["x"], ["a"]),
             helper.make_node("Neg", ["x"], ["b"]),
             helper.make_node("If", ["cond"], ["r"], name="branch", then_branch=then_g, else_branch=else_g),
             helper.make_node("Add", ["r", "b"], ["y"])]
    graph = helper.make_graph(nodes, "branch_outer_in_place", [info("cond", TensorProto.BOOL, []), info("x", FLOAT, [1, 4, 6])],
                              [info("y", FLOAT, [1, 4, 6])])
    x = RNG.standard_normal((1, 4, 6)).astype(np.float32)
    save("branch_outer_in_place", graph, [("then (depthwise Conv)", [np.bool_(True), x]), ("else", [np.bool_(False), x])])


if __name__ == "__main__":
    os.makedirs(HERE, exist_ok=True)
    branch_lstm()
    branch_optional_outputs()
    loop_lstm()
    branch_results()
    branch_outer_in_place()
    with open(os.path.join(HERE, "cases.json"), "w") as f:
        json.dump(MANIFEST, f, indent=1)
        f.write("\n")
    print("wrote", sorted(os.listdir(HERE)))
