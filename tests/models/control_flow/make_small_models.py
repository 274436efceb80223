#!/usr/bin/python3
"""Small hand-built ONNX models with control flow, and their references from numpy.

Run once by hand (tests never need it), with Debian's interpreter that has onnx and numpy:

    /usr/bin/python3 tests/models/control_flow/make_small_models.py

It writes small/<name>.onnx and, for each case, small/<name>_<case>_in<k>.bin and
small/<name>_<case>_out<k>.bin (raw little-endian). The references are the models'
semantics written again in numpy, independent of aotc. See README.md.
"""

import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "small")
RNG = np.random.default_rng(7)


def save(name, model, cases):
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, os.path.join(HERE, name + ".onnx"))
    for c, (inputs, outputs) in enumerate(cases):
        for k, a in enumerate(inputs):
            np.ascontiguousarray(a).tofile(os.path.join(HERE, f"{name}_{c}_in{k}.bin"))
        for k, a in enumerate(outputs):
            np.ascontiguousarray(a).tofile(os.path.join(HERE, f"{name}_{c}_out{k}.bin"))


def const(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def branch_memory():
    """If(cond): each branch is three MatMuls [1,64]x[64,64]x[64,64]x[64,16].

    Inside a branch the two [1,64] float intermediates (256 bytes each) are live together
    while the second MatMul runs, so a branch needs 512 bytes; the two branches never run
    together, so the plan needs 512 bytes, not 1024. The If's output is the graph output.
    """
    def branch(tag):
        w = [RNG.standard_normal(s).astype(np.float32) * 0.1 for s in [(64, 64), (64, 64), (64, 16)]]
        nodes = [helper.make_node("MatMul", ["x", f"{tag}_w0"], [f"{tag}_a"]),
                 helper.make_node("MatMul", [f"{tag}_a", f"{tag}_w1"], [f"{tag}_b"]),
                 helper.make_node("MatMul", [f"{tag}_b", f"{tag}_w2"], [f"{tag}_y"])]
        g = helper.make_graph(nodes, tag, [], [helper.make_tensor_value_info(f"{tag}_y", TensorProto.FLOAT, [1, 16])],
                              initializer=[const(f"{tag}_w{i}", a) for i, a in enumerate(w)])
        return g, w
    then_g, wt = branch("then")
    else_g, we = branch("else")
    node = helper.make_node("If", ["cond"], ["y"], then_branch=then_g, else_branch=else_g)
    graph = helper.make_graph([node], "branch_memory",
                              [helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
                               helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 16])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    cases = []
    for c in [True, False]:
        x = RNG.standard_normal((1, 64)).astype(np.float32)
        w = wt if c else we
        y = ((x @ w[0]) @ w[1]) @ w[2]
        cases.append(([np.array(c, dtype=np.bool_), x], [y.astype(np.float32)]))
    save("branch_memory", model, cases)


def rate_switch():
    """A voice-activity front end that branches on the sample rate (an int64 input):
    16000 Hz takes x * 2 + 1, anything else Tanh(x) * 3. With --bind rate=16000 the If
    folds away."""
    then_g = helper.make_graph([helper.make_node("Mul", ["x", "two"], ["t0"]), helper.make_node("Add", ["t0", "one"], ["ty"])],
                               "then", [], [helper.make_tensor_value_info("ty", TensorProto.FLOAT, [1, 16])],
                               initializer=[const("two", np.float32(2)), const("one", np.float32(1))])
    else_g = helper.make_graph([helper.make_node("Tanh", ["x"], ["e0"]), helper.make_node("Mul", ["e0", "three"], ["ey"])],
                               "else", [], [helper.make_tensor_value_info("ey", TensorProto.FLOAT, [1, 16])],
                               initializer=[const("three", np.float32(3))])
    nodes = [helper.make_node("Equal", ["rate", "r16k"], ["is16k"]),
             helper.make_node("If", ["is16k"], ["y"], name="rate_branch", then_branch=then_g, else_branch=else_g)]
    graph = helper.make_graph(nodes, "rate_switch",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16]),
                               helper.make_tensor_value_info("rate", TensorProto.INT64, [])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 16])],
                              initializer=[const("r16k", np.int64(16000))])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    x = RNG.standard_normal((1, 16)).astype(np.float32)
    cases = [([x, np.int64(16000)], [(x * np.float32(2) + np.float32(1)).astype(np.float32)]),
             ([x, np.int64(8000)], [(np.tanh(x) * np.float32(3)).astype(np.float32)])]
    save("rate_switch", model, cases)


def runtime_trips():
    """Loop 'count' with its trip count an input n: x + 0.5 added n times, and an early
    exit when the sum passes 'limit' (both decided at run time)."""
    body = helper.make_graph(
        [helper.make_node("Add", ["v_in", "half"], ["v_out"]),
         helper.make_node("ReduceSum", ["v_out"], ["s"], keepdims=0),
         helper.make_node("Less", ["s", "limit"], ["c_out"])],
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []), helper.make_tensor_value_info("c_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("v_in", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("c_out", TensorProto.BOOL, []), helper.make_tensor_value_info("v_out", TensorProto.FLOAT, [4])],
        initializer=[const("half", np.float32(0.5))])
    node = helper.make_node("Loop", ["n", "", "x"], ["y"], name="count", body=body)
    graph = helper.make_graph([node], "runtime_trips",
                              [helper.make_tensor_value_info("n", TensorProto.INT64, []),
                               helper.make_tensor_value_info("x", TensorProto.FLOAT, [4]),
                               helper.make_tensor_value_info("limit", TensorProto.FLOAT, [])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    cases = []
    x = np.array([0.0, 1.0, -1.0, 2.0], dtype=np.float32)
    for n, limit in [(3, 100.0), (8, 100.0), (8, 9.0), (0, 100.0), (12, 100.0)]:
        v = x.copy()
        for _ in range(n):  # ONNX Loop: run while i < n and the condition holds
            v = (v + np.float32(0.5)).astype(np.float32)
            if not v.sum(dtype=np.float32) < np.float32(limit):
                break
        cases.append(([np.int64(n), x, np.float32(limit)], [v]))
    save("runtime_trips", model, cases)


def counted_while():
    """Loop 'halving' as torch.jit writes a while loop: no trip count, a counter k carried
    and the condition k + 1 < 6 computed in the body; v = v * 0.5 + 1 each time, and each
    v also stacked as a scan output. The condition follows from constants, so aotc counts
    the 6 iterations at compile time (no --max-trip), which also gives the scan output its
    static shape [6, 4]."""
    body = helper.make_graph(
        [helper.make_node("Add", ["k_in", "one"], ["k_out"]),
         helper.make_node("Less", ["k_out", "six"], ["c_out"]),
         helper.make_node("Mul", ["v_in", "half"], ["halved"]),
         helper.make_node("Add", ["halved", "onef"], ["v_out"]),
         helper.make_node("Identity", ["v_out"], ["v_scan"])],
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []), helper.make_tensor_value_info("c_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("k_in", TensorProto.INT64, []), helper.make_tensor_value_info("v_in", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("c_out", TensorProto.BOOL, []), helper.make_tensor_value_info("k_out", TensorProto.INT64, []),
         helper.make_tensor_value_info("v_out", TensorProto.FLOAT, [4]), helper.make_tensor_value_info("v_scan", TensorProto.FLOAT, [4])],
        initializer=[const("one", np.int64(1)), const("six", np.int64(6)), const("half", np.float32(0.5)),
                     const("onef", np.float32(1.0))])
    node = helper.make_node("Loop", ["", "go", "k0", "x"], ["k", "y", "trace"], name="halving", body=body)
    graph = helper.make_graph([node], "counted_while", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4]),
                               helper.make_tensor_value_info("trace", TensorProto.FLOAT, [6, 4])],
                              initializer=[const("go", np.bool_(True)), const("k0", np.int64(0))])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    x = np.array([8.0, -2.0, 0.25, 3.0], dtype=np.float32)
    v, k, trace = x.copy(), 0, []
    while True:  # ONNX Loop: the body runs, then its condition decides the next iteration
        k += 1
        v = (v * np.float32(0.5) + np.float32(1.0)).astype(np.float32)
        trace.append(v)
        if not k < 6:
            break
    save("counted_while", model, [([x], [v, np.stack(trace)])])


def mismatched_branches():
    """An If whose branches give shapes [2] and [3]: aotc compiles static shapes, so this
    is an error naming the node."""
    then_g = helper.make_graph([], "then", [], [helper.make_tensor_value_info("a", TensorProto.FLOAT, [2])],
                               initializer=[const("a", np.ones(2, np.float32))])
    else_g = helper.make_graph([], "else", [], [helper.make_tensor_value_info("b", TensorProto.FLOAT, [3])],
                               initializer=[const("b", np.ones(3, np.float32))])
    node = helper.make_node("If", ["cond"], ["y"], name="uneven", then_branch=then_g, else_branch=else_g)
    graph = helper.make_graph([node], "mismatched_branches", [helper.make_tensor_value_info("cond", TensorProto.BOOL, [])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.save(model, os.path.join(HERE, "mismatched_branches.onnx"))


if __name__ == "__main__":
    os.makedirs(HERE, exist_ok=True)
    branch_memory()
    rate_switch()
    runtime_trips()
    counted_while()
    mismatched_branches()
    print("wrote", sorted(os.listdir(HERE)))
