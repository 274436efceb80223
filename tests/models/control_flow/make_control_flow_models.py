#!/usr/bin/python3
"""Exports the control-flow test models for aotc (issue #14: ONNX If/Loop), with references.

Run by hand (the tests never need torch), with Debian's interpreter that has torch 1.13,
onnx 1.12 and numpy:

    /usr/bin/python3 tests/models/control_flow/make_control_flow_models.py [NAME...]

(only the models named, or all of them). For each model it writes, next to this script:
    <name>/model.onnx           torch.onnx.export of a torch.jit.script module (so that a
                                Python `if` becomes an ONNX `If` and a `for` an ONNX
                                `Loop`), opset 13, constant folding
    <name>/input_<c>_<k>.bin    input k of case c, raw little-endian, the input's dtype
    <name>/output_<c>_<k>.bin   output k of case c: torch's result for that case
    <name>/cases.json           the graph's inputs and outputs (names, dtypes, shapes) and,
                                per case, its files and the branch or path it takes
(`streaming_gru` is a stream instead: chunk_<i>.bin, score_<i>.bin, state_<i>.bin; see
its cases.json.) Every model is checked with onnx.checker (full_check=True) and the
expected If/Loop nodes are asserted. Every reference is verified twice: the scripted
module is re-run on the written inputs and compared with the written outputs, and the
written model.onnx is evaluated on them by the small numpy ONNX interpreter below
(onnx 1.12 has no onnx.reference), which checks that the exported graph, subgraphs
included, computes the references. The operators of the main graph and of every
subgraph are printed, for README.md.

Everything is seeded: reruns reproduce the files byte for byte on the same torch build.

Exporter quirks this script works around (see README.md):
- Freezing, which torch.onnx.export applies to a ScriptModule, unrolls every loop whose
  trip count is a constant (`for i in range(8)` becomes 8 copies of the body). The loops
  therefore run `for i in range(x.size(0))`: the trip count comes from the (static)
  input shape, survives as an ONNX Loop, and constant folding turns it into a constant
  trip count of the Loop.
- aten::gru_cell has no ONNX export, so gru_loop writes the GRU cell out (the same
  formula, with nn.GRUCell's weights; checked against nn.GRUCell).
- Appending to a list in the loop exports as ONNX sequence operators (SequenceEmpty,
  SequenceInsert, ConcatFromSequence), and `hs[i] = h` as ScatterND with shape
  arithmetic; gru_loop keeps its per-step states in a fixed-size shift register instead
  (`hs = cat([hs[1:], h[None]])`), a plain tensor loop-carried value.
"""

import collections
import json
import os
import re
import sys
import warnings
from typing import Tuple

import numpy as np
import onnx
from onnx import numpy_helper
import torch
import torch.nn as nn

MODELS_DIR = os.path.dirname(os.path.abspath(__file__))
OPSET = 13
MAX_DIR_BYTES = 100 * 1024
RTOL = 1e-5
ATOL = 1e-6


# --------------------------------------------------------------------------------------
# Models
# --------------------------------------------------------------------------------------


class Cascade(nn.Module):
    """Two-stage wake-word cascade: a cheap detector gates an expensive verifier.

    x [1,40] -> detector (Linear 40->16, ReLU, Linear 16->1, Sigmoid) -> score [1,1];
    if score > 0.5 the verifier (Linear 40->32, ReLU, Linear 32->2, Softmax) runs on x,
    else the output is zeros [1,2]. Outputs (output [1,2], score [1,1]).
    """

    def __init__(self):
        super().__init__()
        self.detector = nn.Sequential(nn.Linear(40, 16), nn.ReLU(), nn.Linear(16, 1), nn.Sigmoid())
        self.verifier = nn.Sequential(nn.Linear(40, 32), nn.ReLU(), nn.Linear(32, 2), nn.Softmax(dim=1))

    def forward(self, x) -> Tuple[torch.Tensor, torch.Tensor]:
        score = self.detector(x)
        if bool(score[0, 0] > 0.5):
            out = self.verifier(x)
        else:
            out = torch.zeros(1, 2)
        return out, score


class NestedIf(nn.Module):
    """An If nested in each branch of another: four data-dependent paths.

    x [1,8]; h = Linear 8->8 (x), computed before the branches and used inside them
    (an outer-scope value read two levels down):
        if x.sum() > 0:
            if x.max() > 1:  path a: Relu(Linear_a(h))        [1,4]
            else:            path b: Tanh(Linear_b(x)) * 2    [1,4]
        else:
            if x.min() < -1: path c: Sigmoid(Linear_c(h + x)) [1,4]
            else:            path d: Linear_d(x) - h[:, :4]   [1,4]
    """

    def __init__(self):
        super().__init__()
        self.pre = nn.Linear(8, 8)
        self.a = nn.Linear(8, 4)
        self.b = nn.Linear(8, 4)
        self.c = nn.Linear(8, 4)
        self.d = nn.Linear(8, 4)

    def forward(self, x):
        h = self.pre(x)
        if bool(x.sum() > 0):
            if bool(x.max() > 1):
                y = torch.relu(self.a(h))
            else:
                y = torch.tanh(self.b(x)) * 2
        else:
            if bool(x.min() < -1):
                y = torch.sigmoid(self.c(h + x))
            else:
                y = self.d(x) - h[:, :4]
        return y


def nested_if_path(x):
    """The path NestedIf takes for x, from numpy (asserts that no condition is marginal)."""
    s, mx, mn = float(x.sum()), float(x.max()), float(x.min())
    assert abs(s) > 0.1, f"sum {s} too close to the threshold 0"
    if s > 0:
        assert abs(mx - 1) > 0.05, f"max {mx} too close to the threshold 1"
        return "a" if mx > 1 else "b"
    assert abs(mn + 1) > 0.05, f"min {mn} too close to the threshold -1"
    return "c" if mn < -1 else "d"


class GruLoop(nn.Module):
    """A GRU cell stepped by a scripted loop over x [8,1,8] (time-major) from h0 [1,16].

    Outputs the final state h [1,16] and the per-step states hs [8,1,16] (hs[t] = state
    after step t). torch 1.13 cannot export aten::gru_cell, so the cell is written out
    with nn.GRUCell's weights split per gate (r, z, n):
        r = sigmoid(W_ir x + b_ir + W_hr h + b_hr)
        z = sigmoid(W_iz x + b_iz + W_hz h + b_hz)
        n = tanh(W_in x + b_in + r * (W_hn h + b_hn))
        h = (1 - z) * n + z * h
    The per-step states are a shift register [8,1,16] carried by the loop: each step
    drops the oldest row and appends the new state (Slice + Unsqueeze + Concat).
    """

    def __init__(self, cell: nn.GRUCell):
        super().__init__()
        hidden = cell.hidden_size
        self.hidden = hidden
        self.ir, self.iz, self.in_ = (nn.Linear(cell.input_size, hidden) for _ in range(3))
        self.hr, self.hz, self.hn = (nn.Linear(hidden, hidden) for _ in range(3))
        with torch.no_grad():  # torch's gate order in GRUCell weights: r, z, n
            for g, (lx, lh) in enumerate([(self.ir, self.hr), (self.iz, self.hz), (self.in_, self.hn)]):
                rows = slice(g * hidden, (g + 1) * hidden)
                lx.weight.copy_(cell.weight_ih[rows])
                lx.bias.copy_(cell.bias_ih[rows])
                lh.weight.copy_(cell.weight_hh[rows])
                lh.bias.copy_(cell.bias_hh[rows])

    def forward(self, x, h0) -> Tuple[torch.Tensor, torch.Tensor]:
        h = h0
        hs = torch.zeros(x.size(0), 1, self.hidden)
        # range(x.size(0)), not range(8): a constant trip count would be unrolled by
        # the freezing that torch.onnx.export applies to a ScriptModule.
        for i in range(x.size(0)):
            xi = x[i]
            r = torch.sigmoid(self.ir(xi) + self.hr(h))
            z = torch.sigmoid(self.iz(xi) + self.hz(h))
            n = torch.tanh(self.in_(xi) + r * self.hn(h))
            h = (1 - z) * n + z * h
            hs = torch.cat([hs[1:], h.unsqueeze(0)], 0)
        return h, hs


class StreamingGru(nn.Module):
    """One step of a streaming recognizer with explicit state (traced, no control flow).

    chunk [1,1,16] (time-major: one frame, batch 1), state_in [1,1,32] -> GRU(16->32) ->
    score = Softmax(Linear 32->4 (GRU output)) [1,4], state_out [1,1,32].
    """

    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(16, 32)
        self.fc = nn.Linear(32, 4)

    def forward(self, chunk, state_in):
        y, state_out = self.gru(chunk, state_in)
        return torch.softmax(self.fc(y[0]), dim=1), state_out


class LoopCarried(nn.Module):
    """A scripted loop carrying two values, indexing its input with the loop counter.

    x [5,1,8], h0 [1,8]; acc starts at zeros [1,8]:
        for i in range(5):
            h = tanh(W h + x[i])           (W: Linear 8->8, with bias)
            acc = acc + h * (i + 1)        (the loop index, as a float weight)
    Outputs (h [1,8], acc [1,8]).
    """

    def __init__(self):
        super().__init__()
        self.w = nn.Linear(8, 8)

    def forward(self, x, h0) -> Tuple[torch.Tensor, torch.Tensor]:
        h = h0
        acc = torch.zeros(1, 8)
        for i in range(x.size(0)):  # not range(5): see GruLoop.forward
            h = torch.tanh(self.w(h) + x[i])
            acc = acc + h * float(i + 1)
        return h, acc


# --------------------------------------------------------------------------------------
# A small numpy ONNX interpreter (onnx 1.12 has no onnx.reference), for the operators
# these models use, If and Loop included, with outer-scope values visible in subgraphs.
# --------------------------------------------------------------------------------------

ONNX_TO_NP = {
    onnx.TensorProto.FLOAT: np.float32,
    onnx.TensorProto.DOUBLE: np.float64,
    onnx.TensorProto.INT64: np.int64,
    onnx.TensorProto.INT32: np.int32,
    onnx.TensorProto.BOOL: np.bool_,
}


def _attrs(node):
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def _sigmoid(v):
    return (1 / (1 + np.exp(-v))).astype(v.dtype)


def _reduce(fn, node, attrs, x):
    axes = attrs.get("axes")
    if axes is None and len(node.input) > 1 and node.input[1]:
        raise NotImplementedError("axes as input")
    axes = tuple(axes) if axes is not None else None
    return fn(x, axis=axes, keepdims=bool(attrs.get("keepdims", 1)))


def _gru(attrs, x, w, r, b=None, seq_lens=None, h0=None):
    assert seq_lens is None and attrs.get("direction", b"forward") in (b"forward", "forward")
    assert attrs.get("layout", 0) == 0
    hidden = attrs["hidden_size"]
    lbr = attrs.get("linear_before_reset", 0)
    seq, batch, _ = x.shape
    w, r = w[0], r[0]
    b = b[0] if b is not None else np.zeros(6 * hidden, np.float32)
    wb, rb = b[:3 * hidden], b[3 * hidden:]
    h = h0[0] if h0 is not None else np.zeros((batch, hidden), np.float32)
    ys = []
    gate = lambda m, g: m[g * hidden:(g + 1) * hidden]  # ONNX gate order: z, r, h
    for t in range(seq):
        xt = x[t]
        z = _sigmoid(xt @ gate(w, 0).T + h @ gate(r, 0).T + gate(wb, 0) + gate(rb, 0))
        rr = _sigmoid(xt @ gate(w, 1).T + h @ gate(r, 1).T + gate(wb, 1) + gate(rb, 1))
        if lbr:
            hh = np.tanh(xt @ gate(w, 2).T + gate(wb, 2) + rr * (h @ gate(r, 2).T + gate(rb, 2)))
        else:
            hh = np.tanh(xt @ gate(w, 2).T + gate(wb, 2) + (rr * h) @ gate(r, 2).T + gate(rb, 2))
        h = ((1 - z) * hh + z * h).astype(np.float32)
        ys.append(h)
    return np.stack(ys)[:, None], h[None]


def run_node(node, env, trace):
    a = _attrs(node)
    ins = [env[name] if name else None for name in node.input]
    t = node.op_type
    if t == "Constant":
        return [numpy_helper.to_array(a["value"])]
    if t == "Identity":
        return [ins[0]]
    if t == "Gemm":
        A, B = ins[0], ins[1]
        A = A.T if a.get("transA", 0) else A
        B = B.T if a.get("transB", 0) else B
        y = a.get("alpha", 1.0) * (A @ B)
        if len(ins) > 2 and ins[2] is not None:
            y = y + a.get("beta", 1.0) * ins[2]
        return [y.astype(ins[0].dtype)]
    if t == "MatMul":
        return [ins[0] @ ins[1]]
    if t in ("Add", "Sub", "Mul", "Div"):
        f = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Div": np.divide}[t]
        y = f(ins[0], ins[1])
        if t == "Div" and ins[0].dtype.kind == "i":
            y = np.trunc(ins[0] / ins[1])
        return [y.astype(ins[0].dtype)]
    if t == "Neg":
        return [-ins[0]]
    if t == "Relu":
        return [np.maximum(ins[0], 0).astype(ins[0].dtype)]
    if t == "Sigmoid":
        return [_sigmoid(ins[0])]
    if t == "Tanh":
        return [np.tanh(ins[0])]
    if t == "Softmax":
        axis = a.get("axis", -1)
        e = np.exp(ins[0] - ins[0].max(axis=axis, keepdims=True))
        return [(e / e.sum(axis=axis, keepdims=True)).astype(ins[0].dtype)]
    if t in ("Greater", "Less", "Equal"):
        f = {"Greater": np.greater, "Less": np.less, "Equal": np.equal}[t]
        return [np.asarray(f(ins[0], ins[1]))]
    if t == "Not":
        return [np.logical_not(ins[0])]
    if t == "Cast":
        return [np.asarray(ins[0]).astype(ONNX_TO_NP[a["to"]])]
    if t == "ReduceSum":
        axes = ins[1] if len(ins) > 1 else None
        if axes is None or axes.size == 0:
            if a.get("noop_with_empty_axes", 0):
                return [ins[0]]
            axes = None
        else:
            axes = tuple(int(v) for v in axes)
        return [np.sum(ins[0], axis=axes, keepdims=bool(a.get("keepdims", 1))).astype(ins[0].dtype)]
    if t == "ReduceMax":
        return [_reduce(np.max, node, a, ins[0])]
    if t == "ReduceMin":
        return [_reduce(np.min, node, a, ins[0])]
    if t == "Shape":
        return [np.array(ins[0].shape, np.int64)]
    if t == "Gather":
        return [np.take(ins[0], ins[1], axis=a.get("axis", 0))]
    if t == "Unsqueeze":
        y = ins[0]
        for ax in sorted(int(v) for v in ins[1]):
            y = np.expand_dims(y, ax if ax >= 0 else ax + y.ndim + 1)
        return [y]
    if t == "Squeeze":
        axes = tuple(int(v) for v in ins[1]) if len(ins) > 1 and ins[1] is not None else None
        return [np.squeeze(ins[0], axis=axes)]
    if t == "Concat":
        return [np.concatenate(ins, axis=a["axis"])]
    if t == "Slice":
        data, starts, ends = ins[0], ins[1], ins[2]
        axes = ins[3] if len(ins) > 3 and ins[3] is not None else np.arange(len(starts))
        steps = ins[4] if len(ins) > 4 and ins[4] is not None else np.ones(len(starts), np.int64)
        index = [slice(None)] * data.ndim
        for s, e, ax, st in zip(starts, ends, axes, steps):
            dim = data.shape[int(ax)]
            s, e = int(s), int(e)
            s = max(0, min(dim, s + dim if s < 0 else s))
            e = max(0, min(dim, e + dim if e < 0 else e))
            index[int(ax)] = slice(s, e, int(st))
        return [data[tuple(index)]]
    if t == "ConstantOfShape":
        value = numpy_helper.to_array(a["value"]) if "value" in a else np.zeros(1, np.float32)
        return [np.full(tuple(int(v) for v in ins[0]), value[0], value.dtype)]
    if t == "Expand":
        return [ins[0] * np.ones(tuple(int(v) for v in ins[1]), ins[0].dtype)]
    if t == "Reshape":
        return [ins[0].reshape(tuple(int(v) for v in ins[1]))]
    if t == "GRU":
        return list(_gru(a, *ins))
    if t == "If":
        cond = np.asarray(ins[0])
        assert cond.size == 1, "If condition must have one element"
        taken = "then" if bool(cond.reshape(())) else "else"
        trace.append(f"{node.name}: {taken}")
        return run_graph(a[taken + "_branch"], {}, env, trace)
    if t == "Loop":
        body = a["body"]
        trip = ins[0]
        cond = ins[1]
        carried = ins[2:]
        n_carried = len(carried)
        scans = [[] for _ in range(len(body.output) - 1 - n_carried)]
        trace.append(None)
        entry = len(trace) - 1
        i = 0
        while (trip is None or i < int(trip)) and (cond is None or bool(np.asarray(cond).reshape(()))):
            feeds = [np.array(i, np.int64), np.array(True) if cond is None else cond] + list(carried)
            outs = run_graph(body, dict(zip([v.name for v in body.input], feeds)), env, trace)
            cond = outs[0]
            carried = outs[1:1 + n_carried]
            for s, v in zip(scans, outs[1 + n_carried:]):
                s.append(v)
            i += 1
        trace[entry] = f"{node.name}: {i} iterations"
        return list(carried) + [np.stack(s) for s in scans]
    raise NotImplementedError(f"numpy interpreter: operator {t}")


def run_graph(graph, feeds, outer_env, trace):
    env = dict(outer_env)
    for init in graph.initializer:
        env[init.name] = numpy_helper.to_array(init)
    env.update(feeds)
    for node in graph.node:
        outs = run_node(node, env, trace)
        for name, v in zip(node.output, outs):
            if name:
                env[name] = np.asarray(v)
    return [env[o.name] for o in graph.output]


def run_onnx(model, inputs):
    """Runs an ONNX model on a list of numpy inputs.

    Returns (outputs, trace): the trace lists, in execution order, each If executed
    ("<node name>: then" or "...: else") and each Loop ("<node name>: <n> iterations").
    """
    trace = []
    feeds = dict(zip([i.name for i in model.graph.input], inputs))
    return run_graph(model.graph, feeds, {}, trace), trace


# --------------------------------------------------------------------------------------
# Export, operator listing, case files
# --------------------------------------------------------------------------------------


def subgraph_op_lists(graph, path="main"):
    """[(path, Counter of op types)] for graph and, recursively, its If/Loop subgraphs."""
    result = [(path, collections.Counter(n.op_type for n in graph.node))]
    counts = collections.Counter()
    for node in graph.node:
        graphs = [attr for attr in node.attribute if attr.type == onnx.AttributeProto.GRAPH]
        if graphs:
            counts[node.op_type] += 1
        for attr in graphs:
            sub = f"{path} > {node.op_type}#{counts[node.op_type]}.{attr.name}"
            result += subgraph_op_lists(attr.g, sub)
    return result


def format_ops(counter):
    return ", ".join(f"{op} x{n}" for op, n in sorted(counter.items()))


def only_node(graph, op_type):
    """The one node of op_type in graph (not searching subgraphs)."""
    nodes = [n for n in graph.node if n.op_type == op_type]
    assert len(nodes) == 1, f"expected one {op_type} node, found {len(nodes)}"
    return nodes[0]


def subgraph(node, attr_name):
    return next(onnx.helper.get_attribute_value(a) for a in node.attribute if a.name == attr_name)


def tensor_info(value_info):
    t = value_info.type.tensor_type
    dims = [d.dim_value if d.HasField("dim_value") else d.dim_param for d in t.shape.dim]
    return {"name": value_info.name, "dtype": np.dtype(ONNX_TO_NP[t.elem_type]).name, "shape": dims}


def export_scripted(module, example_inputs, path, input_names, output_names):
    scripted = torch.jit.script(module)
    with torch.no_grad():
        torch.onnx.export(scripted, example_inputs, path, opset_version=OPSET, do_constant_folding=True,
                          input_names=input_names, output_names=output_names)
    return scripted


def check_and_describe(name, path, expect_ops):
    model = onnx.load(path)
    onnx.checker.check_model(model, full_check=True)
    lists = subgraph_op_lists(model.graph)
    all_ops = collections.Counter()
    for _, c in lists:
        all_ops.update(c)
    for op, n in expect_ops.items():
        assert all_ops[op] == n, f"{name}: expected {n} {op} node(s), found {all_ops[op]}"
    print(f"{name}: model.onnx {os.path.getsize(path)} bytes, opset "
          f"{model.opset_import[0].version}, {sum(all_ops.values())} nodes in all")
    for vi in model.graph.input:
        print(f"  input  {tensor_info(vi)}")
    for vi in model.graph.output:
        print(f"  output {tensor_info(vi)}")
    for p, c in lists:
        print(f"  ops [{p}] ({sum(c.values())}): {format_ops(c)}")
    return model


def write_json(path, doc):
    """json.dump with indentation, but with each innermost list (a shape) on one line."""
    text = json.dumps(doc, indent=1)
    text = re.sub(r"\[\s+([^\[\]{}]*?)\s+\]", lambda m: "[" + " ".join(m.group(1).split()) + "]", text)
    with open(path, "w") as f:
        f.write(text + "\n")


def write_raw(path, array):
    array = np.ascontiguousarray(array)
    dtype = array.dtype.newbyteorder("<") if array.dtype.itemsize > 1 else array.dtype
    array.astype(dtype).tofile(path)


def read_raw(path, dtype, shape):
    return np.fromfile(path, dtype=np.dtype(dtype).newbyteorder("<")).reshape(shape)


def to_torch(arrays):
    return tuple(torch.from_numpy(np.array(a)) for a in arrays)


def as_tuple(y):
    return tuple(y) if isinstance(y, (tuple, list)) else (y,)


def assert_close(name, got, want):
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL, err_msg=name)


def write_cases(name, out_dir, model, cases, scripted):
    """Writes input_<c>_<k>.bin / output_<c>_<k>.bin and cases.json for a list of cases.

    cases: [(inputs [np arrays], note dict merged into the case's entry)]. The references
    are scripted(*inputs). Then verify_cases() re-reads the files, re-runs the scripted
    module and the numpy ONNX interpreter on them, and compares.
    """
    inputs_info = [tensor_info(vi) for vi in model.graph.input]
    outputs_info = [tensor_info(vi) for vi in model.graph.output]
    doc_cases = []
    for c, (inputs, note) in enumerate(cases):
        with torch.no_grad():
            outputs = [y.numpy() for y in as_tuple(scripted(*to_torch(inputs)))]
        entry = {"case": c, "inputs": [], "outputs": []}
        entry.update(note)
        for k, (v, info) in enumerate(zip(inputs, inputs_info)):
            assert v.dtype.name == info["dtype"]
            f = f"input_{c}_{k}.bin"
            write_raw(os.path.join(out_dir, f), v)
            entry["inputs"].append({"name": info["name"], "file": f, "dtype": v.dtype.name, "shape": list(v.shape)})
        for k, (v, info) in enumerate(zip(outputs, outputs_info)):
            assert v.dtype.name == info["dtype"]
            f = f"output_{c}_{k}.bin"
            write_raw(os.path.join(out_dir, f), v)
            entry["outputs"].append({"name": info["name"], "file": f, "dtype": v.dtype.name, "shape": list(v.shape)})
        doc_cases.append(entry)
    doc = {"model": "model.onnx", "inputs": inputs_info, "outputs": outputs_info, "cases": doc_cases}
    write_json(os.path.join(out_dir, "cases.json"), doc)
    verify_cases(name, out_dir, scripted)


def verify_cases(name, out_dir, scripted):
    """Re-reads cases.json and the files; compares with the scripted module and the ONNX graph."""
    with open(os.path.join(out_dir, "cases.json")) as f:
        doc = json.load(f)
    model = onnx.load(os.path.join(out_dir, doc["model"]))
    for entry in doc["cases"]:
        inputs = [read_raw(os.path.join(out_dir, i["file"]), i["dtype"], i["shape"]) for i in entry["inputs"]]
        want = [read_raw(os.path.join(out_dir, o["file"]), o["dtype"], o["shape"]) for o in entry["outputs"]]
        with torch.no_grad():
            again = [y.numpy() for y in as_tuple(scripted(*to_torch(inputs)))]
        for o, w, g in zip(entry["outputs"], want, again):
            assert np.array_equal(w, g), f"{name} case {entry['case']}: {o['name']} differs on re-run"
        got, trace = run_onnx(model, inputs)
        for o, w, g in zip(entry["outputs"], want, got):
            assert list(g.shape) == o["shape"], f"{name} case {entry['case']} {o['name']}: shape {g.shape}"
            assert_close(f"{name} case {entry['case']} {o['name']} (numpy ONNX interpreter)", g, w)
        expect = entry.get("control_flow")
        if expect is not None:
            assert trace == expect, f"{name} case {entry['case']}: ONNX control flow {trace}, expected {expect}"
        print(f"  case {entry['case']}: verified (re-run bit-exact; ONNX interpreter within rtol {RTOL}, "
              f"atol {ATOL}; {'; '.join(trace) or 'no control flow'})")


def new_dir(name):
    out_dir = os.path.join(MODELS_DIR, name)
    os.makedirs(out_dir, exist_ok=True)
    for f in os.listdir(out_dir):  # stale case files from an earlier run
        if f.endswith(".bin") or f == "cases.json":
            os.remove(os.path.join(out_dir, f))
    return out_dir


# --------------------------------------------------------------------------------------
# The models' exports and cases
# --------------------------------------------------------------------------------------


def make_cascade(name):
    torch.manual_seed(0)
    module = Cascade().eval()
    out_dir = new_dir(name)
    path = os.path.join(out_dir, "model.onnx")
    x0 = np.zeros((1, 40), np.float32)
    scripted = export_scripted(module, to_torch([x0]), path, ["x"], ["output", "score"])
    model = check_and_describe(name, path, {"If": 1})
    if_name = only_node(model.graph, "If").name

    # Draw seeded inputs until there are two clearly above and two clearly below the
    # threshold (|score - 0.5| > 0.05), in the order accept, reject, accept, reject.
    rng = np.random.default_rng(42)
    want = ["then", "else", "then", "else"]
    cases = []
    for _ in range(10000):
        if len(cases) == len(want):
            break
        x = (rng.standard_normal((1, 40)) * 2).astype(np.float32)
        with torch.no_grad():
            score = float(module.detector(torch.from_numpy(x))[0, 0])
        side = "then" if score > 0.5 else "else"
        if abs(score - 0.5) > 0.05 and side == want[len(cases)]:
            note = {"branch": side, "score": round(score, 6),
                    "path": "score > 0.5: the verifier ran" if side == "then"
                    else "score <= 0.5: the verifier was skipped, output zeros",
                    "control_flow": [f"{if_name}: {side}"]}
            cases.append(([x], note))
    assert len(cases) == len(want), "could not find inputs on both sides of the threshold"
    write_cases(name, out_dir, model, cases, scripted)
    for (x,), note in cases:  # both sides really taken: the else output is exactly zero
        out = module(torch.from_numpy(x))[0].detach().numpy()
        assert (note["branch"] == "else") == (not out.any()), note


def make_nested_if(name):
    torch.manual_seed(1)
    module = NestedIf().eval()
    out_dir = new_dir(name)
    path = os.path.join(out_dir, "model.onnx")
    scripted = export_scripted(module, to_torch([np.zeros((1, 8), np.float32)]), path, ["x"], ["y"])
    model = check_and_describe(name, path, {"If": 3})
    outer = only_node(model.graph, "If")
    inner_then = only_node(subgraph(outer, "then_branch"), "If")
    inner_else = only_node(subgraph(outer, "else_branch"), "If")

    rng = np.random.default_rng(7)
    draw = {  # each draw is meant to land on one path; nested_if_path() checks it
        "a": lambda: rng.standard_normal((1, 8)) + 0.5,
        "b": lambda: rng.uniform(0.05, 0.9, (1, 8)),
        "c": lambda: rng.standard_normal((1, 8)) - 0.5,
        "d": lambda: rng.uniform(-0.9, -0.05, (1, 8)),
    }
    branches = {  # the ONNX If nodes executed on each path: the outer If, then an inner one
        "a": [f"{outer.name}: then", f"{inner_then.name}: then"],
        "b": [f"{outer.name}: then", f"{inner_then.name}: else"],
        "c": [f"{outer.name}: else", f"{inner_else.name}: then"],
        "d": [f"{outer.name}: else", f"{inner_else.name}: else"],
    }
    describe = {
        "a": "x.sum() > 0 and x.max() > 1: relu(a(h))",
        "b": "x.sum() > 0 and x.max() <= 1: tanh(b(x)) * 2",
        "c": "x.sum() <= 0 and x.min() < -1: sigmoid(c(h + x))",
        "d": "x.sum() <= 0 and x.min() >= -1: d(x) - h[:, :4]",
    }
    cases = []
    for p in ["a", "b", "c", "d"]:
        for _ in range(1000):
            x = draw[p]().astype(np.float32)
            try:
                if nested_if_path(x) == p:
                    break
            except AssertionError:  # a marginal condition: draw again
                pass
        else:
            raise AssertionError(f"no input found for path {p}")
        cases.append(([x], {"path": p, "condition": describe[p], "control_flow": branches[p]}))
    write_cases(name, out_dir, model, cases, scripted)
    # The path really taken in torch: each path's formula reproduces the output.
    with torch.no_grad():
        for (x,), note in cases:
            xt = torch.from_numpy(x)
            h = module.pre(xt)
            ref = {"a": lambda: torch.relu(module.a(h)), "b": lambda: torch.tanh(module.b(xt)) * 2,
                   "c": lambda: torch.sigmoid(module.c(h + xt)), "d": lambda: module.d(xt) - h[:, :4]}
            outs = {p: ref[p]() for p in ref}
            assert torch.equal(module(xt), outs[note["path"]])
            assert all(not torch.allclose(outs[note["path"]], outs[q]) for q in outs if q != note["path"])


def export_loop_model(name, module, input_shapes, outputs, trips):
    """Exports a scripted module with inputs x and h0 and one Loop of `trips` iterations;
    returns its directory, the checked model, the scripted module and the loop's trace."""
    out_dir = new_dir(name)
    path = os.path.join(out_dir, "model.onnx")
    example = to_torch([np.zeros(shape, np.float32) for shape in input_shapes])
    scripted = export_scripted(module, example, path, ["x", "h0"], outputs)
    model = check_and_describe(name, path, {"Loop": 1, "If": 0})
    return out_dir, model, scripted, [f"{only_node(model.graph, 'Loop').name}: {trips} iterations"]


def make_gru_loop(name):
    torch.manual_seed(2)
    cell = nn.GRUCell(8, 16).eval()
    module = GruLoop(cell).eval()
    out_dir, model, scripted, loop = export_loop_model(name, module, [(8, 1, 8), (1, 16)], ["h", "hs"], 8)

    rng = np.random.default_rng(3)
    cases = [
        ([rng.standard_normal((8, 1, 8)).astype(np.float32), np.zeros((1, 16), np.float32)],
         {"note": "h0 = zeros", "control_flow": loop}),
        ([rng.standard_normal((8, 1, 8)).astype(np.float32), (0.5 * rng.standard_normal((1, 16))).astype(np.float32)],
         {"note": "random h0", "control_flow": loop}),
    ]
    write_cases(name, out_dir, model, cases, scripted)
    # The written-out cell is nn.GRUCell: step the real cell over the same inputs.
    with torch.no_grad():
        for c, ((x, h0), _) in enumerate(cases):
            h = torch.from_numpy(h0)
            states = []
            for t in range(8):
                h = cell(torch.from_numpy(x[t]), h)
                states.append(h)
            h_ref = read_raw(os.path.join(out_dir, f"output_{c}_0.bin"), "float32", [1, 16])
            hs_ref = read_raw(os.path.join(out_dir, f"output_{c}_1.bin"), "float32", [8, 1, 16])
            np.testing.assert_allclose(h.numpy(), h_ref, rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(torch.stack(states).numpy(), hs_ref, rtol=1e-5, atol=1e-6)


def make_streaming_gru(name, steps=12):
    torch.manual_seed(3)
    module = StreamingGru().eval()
    out_dir = new_dir(name)
    path = os.path.join(out_dir, "model.onnx")
    zeros = np.zeros((1, 1, 32), np.float32)
    with torch.no_grad():
        torch.onnx.export(module, to_torch([np.zeros((1, 1, 16), np.float32), zeros]), path, opset_version=OPSET,
                          do_constant_folding=True, input_names=["chunk", "state_in"],
                          output_names=["score", "state_out"])
    model = check_and_describe(name, path, {"GRU": 1, "If": 0, "Loop": 0})

    rng = np.random.default_rng(5)
    chunks = rng.standard_normal((steps, 1, 1, 16)).astype(np.float32)
    write_raw(os.path.join(out_dir, "state_init.bin"), zeros)
    state = zeros
    entries = []
    scores, states = [], []
    for i in range(steps):
        with torch.no_grad():
            score, state_out = module(*to_torch([chunks[i], state]))
        score, state_out = score.numpy(), state_out.numpy()
        write_raw(os.path.join(out_dir, f"chunk_{i}.bin"), chunks[i])
        write_raw(os.path.join(out_dir, f"score_{i}.bin"), score)
        write_raw(os.path.join(out_dir, f"state_{i}.bin"), state_out)
        entries.append({
            "step": i,
            "inputs": [
                {"name": "chunk", "file": f"chunk_{i}.bin", "dtype": "float32", "shape": [1, 1, 16]},
                {"name": "state_in", "file": "state_init.bin" if i == 0 else f"state_{i - 1}.bin",
                 "dtype": "float32", "shape": [1, 1, 32]},
            ],
            "outputs": [
                {"name": "score", "file": f"score_{i}.bin", "dtype": "float32", "shape": [1, 4]},
                {"name": "state_out", "file": f"state_{i}.bin", "dtype": "float32", "shape": [1, 1, 32]},
            ],
        })
        scores.append(score)
        states.append(state_out)
        state = state_out
    doc = {
        "model": "model.onnx",
        "inputs": [tensor_info(vi) for vi in model.graph.input],
        "outputs": [tensor_info(vi) for vi in model.graph.output],
        "stream": {
            "steps": steps,
            "naming": "step i: inputs chunk_<i>.bin and state_in = the previous step's state_out "
                      "(state_<i-1>.bin; state_init.bin, all zeros, for step 0); "
                      "outputs score_<i>.bin and state_out = state_<i>.bin",
            "state_carry": {"from": "state_out", "to": "state_in", "initial": "zeros (state_init.bin)"},
        },
        "cases": entries,
    }
    write_json(os.path.join(out_dir, "cases.json"), doc)

    # Checks: the stream equals one GRU over the whole sequence; the ONNX graph, run by
    # the numpy interpreter with its own state carried, reproduces every step.
    with torch.no_grad():
        y, h = module.gru(torch.from_numpy(chunks.reshape(steps, 1, 16)))
        whole = torch.softmax(module.fc(y[:, 0]), dim=1).numpy()
    np.testing.assert_allclose(np.concatenate(scores), whole, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(states[-1], h.numpy(), rtol=1e-5, atol=1e-6)
    state = read_raw(os.path.join(out_dir, "state_init.bin"), "float32", [1, 1, 32])
    for e in entries:
        chunk = read_raw(os.path.join(out_dir, e["inputs"][0]["file"]), "float32", [1, 1, 16])
        (score, state), _ = run_onnx(model, [chunk, state])
        assert_close(f"{name} step {e['step']} score", score,
                     read_raw(os.path.join(out_dir, e["outputs"][0]["file"]), "float32", [1, 4]))
        assert_close(f"{name} step {e['step']} state", state,
                     read_raw(os.path.join(out_dir, e["outputs"][1]["file"]), "float32", [1, 1, 32]))
    print(f"  stream of {steps} chunks: verified (equals one GRU over the whole sequence; the numpy ONNX "
          f"interpreter carrying its own state reproduces every step within rtol {RTOL}, atol {ATOL})")


def make_loop_carried(name):
    torch.manual_seed(4)
    module = LoopCarried().eval()
    out_dir, model, scripted, loop = export_loop_model(name, module, [(5, 1, 8), (1, 8)], ["h", "acc"], 5)

    rng = np.random.default_rng(11)
    cases = [
        ([rng.standard_normal((5, 1, 8)).astype(np.float32), np.zeros((1, 8), np.float32)],
         {"note": "h0 = zeros", "control_flow": loop}),
        ([rng.standard_normal((5, 1, 8)).astype(np.float32), rng.standard_normal((1, 8)).astype(np.float32)],
         {"note": "random h0", "control_flow": loop}),
    ]
    write_cases(name, out_dir, model, cases, scripted)
    # The loop as plain Python (eager, unrolled by hand).
    with torch.no_grad():
        for c, ((x, h0), _) in enumerate(cases):
            h, acc = torch.from_numpy(h0), torch.zeros(1, 8)
            for i in range(5):
                h = torch.tanh(module.w(h) + torch.from_numpy(x[i]))
                acc = acc + h * (i + 1)
            np.testing.assert_allclose(h.numpy(), read_raw(os.path.join(out_dir, f"output_{c}_0.bin"),
                                                           "float32", [1, 8]), rtol=1e-6, atol=1e-7)
            np.testing.assert_allclose(acc.numpy(), read_raw(os.path.join(out_dir, f"output_{c}_1.bin"),
                                                             "float32", [1, 8]), rtol=1e-6, atol=1e-6)


MODELS = [
    ("cascade", make_cascade),
    ("nested_if", make_nested_if),
    ("gru_loop", make_gru_loop),
    ("streaming_gru", make_streaming_gru),
    ("loop_carried", make_loop_carried),
]


def main():
    names = [name for name, _ in MODELS]
    wanted = sys.argv[1:] or names
    unknown = [name for name in wanted if name not in names]
    if unknown:
        sys.exit(f"error: unknown model {', '.join(unknown)} (models: {', '.join(names)})")
    torch.set_num_threads(1)
    # torch.onnx's notes on exporting nn.GRU (batch size; prim::Constant shape inference).
    warnings.filterwarnings("ignore", category=UserWarning, module=r"torch\.onnx")
    for name, make in MODELS:
        if name in wanted:
            make(name)
    for name in names:
        d = os.path.join(MODELS_DIR, name)
        if not os.path.isdir(d):
            continue
        size = sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d))
        print(f"{name}/: {size} bytes")
        if size > MAX_DIR_BYTES:
            sys.exit(f"error: {name}/ is {size} bytes, more than {MAX_DIR_BYTES}")


if __name__ == "__main__":
    main()
