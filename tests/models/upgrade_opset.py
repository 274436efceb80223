#!/usr/bin/python3
"""Rewrites the torch test networks into the operator versions of ONNX opsets 18, 21 and 23.

Run by hand (the tests never need it), with Debian's interpreter that has onnx 1.12:

    /usr/bin/python3 tests/models/upgrade_opset.py [NAME...]

(only the networks named, or all of NETWORKS). For each network and each opset N of
TARGET_OPSETS it reads <name>/model.onnx (torch 1.13's export, opset 13 or 17; see
make_models.py) and writes <name>/model_opset<N>.onnx: the same network, its nodes in the
form PyTorch 2.x's exporters emit at opset N. The tests run it on the parent network's
input_0.bin and compare with its output_0.bin (torch's output); ort_upgraded.js checks it in
ONNX Runtime.

Why a rewrite rather than a new export: torch 1.13 exports opset 17 at most, and onnx 1.12's
version_converter stops at 17 too. A new opset changes nothing in a model but the opset_import:
a node's operator version is the newest one not newer than the model's opset, so every node
must already be in the form of that version. OPERATOR_CHANGES lists, for every operator these
networks use, each version from opset 14 to 23 and what it changed (ONNX's docs/Changelog.md);
the operators whose change needs a different node are rewritten:

  - Reduce* other than ReduceSum (ReduceMean here), version 18: the `axes` attribute became
    an optional int64 input. The rewrite makes it a Constant node's output, as the TorchScript
    exporter's opset-18 symbolics do (torch/onnx/symbolic_opset18.py).
  - From opset SPLIT_CHUNKS_FROM on, Slices that cut one tensor into equal consecutive parts
    along one axis (torch 1.13's `Tensor.chunk`: Slice bounds computed from Shape -> Gather ->
    Add / Div / Mul) become one Split-18 with `num_outputs`, the form PyTorch 2.x uses for
    equal parts (e.g. `glu` in symbolic_opset18.py); the shape subgraph that computed the
    bounds is left unused and removed. Opset 18 keeps torch's Slices, so that both forms are
    tested at opset 18 and later; opsets 21 and 23 are written only by PyTorch 2.x's
    dynamo-based exporter (the TorchScript one stops at opset 20), which splits.

Every other change in versions 14 to 23 of these operators adds element types or an
attribute or input whose default keeps the old meaning, so those nodes stay as they are.
An operator missing from OPERATOR_CHANGES stops the script: its versions must be checked
before a model using it is rewritten. onnx 1.12's checker knows opsets up to 17, so it is
not run on the result; ort_upgraded.js is the check that ONNX Runtime reads each file as
intended.

mobilenet_v2 is not rewritten: its 1.6 MB model.onnx three more times would more than double
the size of tests/models, and its operators (Conv, Clip with Constant bounds, Add,
GlobalAveragePool, Flatten, Gemm) are all in mobilenet_v3 and small_cnn. aotc reads no ONNX
external data, so the files cannot share one copy of the weights.
"""

import copy
import os
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper, shape_inference

MODELS_DIR = os.path.dirname(os.path.abspath(__file__))
NETWORKS = ["small_cnn", "shufflenet", "kws_rnn", "mobilenet_v3", "transformer"]
TARGET_OPSETS = (18, 21, 23)
# The IR version each opset came with (onnx/helper.py VERSION_TABLE: onnx 1.13 brought IR 8
# and opset 18, 1.16 IR 10 and opset 21, 1.18 IR 11 and opset 23); what PyTorch 2.x's
# TorchScript exporter writes for opset 18 and ONNX Runtime 1.30 reads.
IR_VERSIONS = {18: 8, 21: 10, 23: 11}
SPLIT_CHUNKS_FROM = 21

TYPES = "element types only"
# Every operator these networks use: each opset from 14 to 23 that brought a new version of
# it, and what that version changed (ONNX docs/Changelog.md). An operator with no entry here
# kept its opset-13 (or older) version through opset 23.
OPERATOR_CHANGES = {
    "Add": {14: "uint8/int8/uint16/int16 and bfloat16"},
    "AveragePool": {19: "dilations attribute (default 1: unchanged)", 22: TYPES},
    "BatchNormalization": {14: "training_mode attribute (default 0: unchanged)",
                           15: "scale/bias and mean/var types may differ from the input's"},
    "Clip": {},
    "Concat": {},
    "Constant": {19: TYPES + " (float8)", 21: TYPES + " (int4, uint4)", 23: TYPES + " (float4e2m1)"},
    "Conv": {22: TYPES + " (bfloat16)"},
    "Div": {14: "uint8/int8/uint16/int16 and bfloat16"},
    "Erf": {},
    "Expand": {},
    "Flatten": {21: TYPES + " (float8, int4, uint4)", 23: TYPES + " (float4e2m1)"},
    "GRU": {14: "layout attribute (default 0: unchanged)", 22: TYPES + " (bfloat16)"},
    "Gather": {},
    "Gemm": {},
    "GlobalAveragePool": {22: TYPES + " (bfloat16)"},
    "HardSigmoid": {22: TYPES + " (bfloat16)"},
    "HardSwish": {22: TYPES + " (bfloat16)"},
    "LSTM": {14: "layout attribute (default 0: unchanged)", 22: TYPES + " (bfloat16)"},
    "LayerNormalization": {},
    "MatMul": {},
    "MaxPool": {22: TYPES + " (bfloat16)"},
    "Mul": {14: "uint8/int8/uint16/int16 and bfloat16"},
    "Pad": {18: "optional axes input (absent: all axes, unchanged)", 19: "wrap mode (not used)",
            21: TYPES + " (float8, int4, uint4)", 23: TYPES + " (float4e2m1)"},
    "ReduceMean": {18: "axes attribute became an input: REWRITTEN"},
    "Relu": {14: TYPES + " (int8/int16/int32/int64)"},
    "Reshape": {14: "allowzero attribute (default 0: unchanged)", 19: TYPES + " (float8)",
                21: TYPES + " (int4, uint4)", 23: TYPES + " (float4e2m1)"},
    "Shape": {15: "start and end attributes (defaults: the whole shape, unchanged)", 19: TYPES + " (float8)",
              21: TYPES + " (int4, uint4)", 23: TYPES + " (float4e2m1)"},
    "Sigmoid": {},
    "Slice": {},
    "Softmax": {},
    "Split": {18: "num_outputs attribute (used for torch's chunk: REWRITTEN from Slices)"},
    "Tanh": {},
    "Transpose": {21: TYPES + " (float8, int4, uint4)", 23: TYPES + " (float4e2m1)"},
    "Unsqueeze": {21: TYPES + " (float8, int4, uint4)", 23: TYPES + " (float4e2m1)"},
}


def check_operators_known(model, name):
    unknown = sorted({node.op_type for node in model.graph.node} - set(OPERATOR_CHANGES))
    if unknown:
        sys.exit(f"error: {name} uses {', '.join(unknown)}, whose versions up to opset 23 are not in "
                 "OPERATOR_CHANGES; check ONNX's Changelog and add them")
    for opset in model.opset_import:
        if opset.domain not in ("", "ai.onnx"):
            sys.exit(f"error: {name} imports operator set '{opset.domain}', which this script does not rewrite")


def attribute(node, name, default=None):
    for a in node.attribute:
        if a.name == name:
            return helper.get_attribute_value(a)
    return default


class ConstantValues:
    """The int64 values of a graph's compile-time constants: initializers, Constant nodes, and
    the Shape -> Gather -> Add / Div / Mul subgraphs over them (shapes are static). Enough to
    read the Slice bounds torch 1.13 computes for `chunk`."""

    def __init__(self, model):
        inferred = shape_inference.infer_shapes(model)
        graph = inferred.graph
        self.shapes = {}
        for vi in list(graph.value_info) + list(graph.input) + list(graph.output):
            dims = vi.type.tensor_type.shape.dim
            if all(d.HasField("dim_value") for d in dims):
                self.shapes[vi.name] = [d.dim_value for d in dims]
        self.values = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
        self.producer = {out: node for node in graph.node for out in node.output}
        for t in graph.initializer:
            self.shapes[t.name] = list(t.dims)

    def get(self, name):
        """The value of tensor `name`, or None if it is not a compile-time constant."""
        if name in self.values:
            return self.values[name]
        node = self.producer.get(name)
        if node is None:
            return None
        value = self._evaluate(node)
        if value is not None:
            self.values[name] = value
        return value

    def _evaluate(self, node):
        if node.op_type == "Constant":
            return numpy_helper.to_array(attribute(node, "value"))
        if node.op_type == "Shape":
            shape = self.shapes.get(node.input[0])
            if shape is None:
                return None
            # Shape-15's start and end clamp as Python's slice bounds do.
            return np.array(shape[attribute(node, "start", 0):attribute(node, "end", len(shape))], dtype=np.int64)
        inputs = [self.get(i) for i in node.input]
        if any(v is None for v in inputs):
            return None
        if node.op_type == "Gather":
            return np.take(inputs[0], inputs[1], axis=attribute(node, "axis", 0))
        if node.op_type == "Add":
            return inputs[0] + inputs[1]
        if node.op_type == "Mul":
            return inputs[0] * inputs[1]
        if node.op_type == "Div" and inputs[0].dtype.kind == "i":
            return np.trunc(inputs[0] / inputs[1]).astype(inputs[0].dtype)  # ONNX integer Div truncates
        return None


def reduce_axes_to_input(graph):
    """Reduce*-18 (all but ReduceSum, which changed at 13): `axes` is an input, not an attribute."""
    nodes = []
    for node in graph.node:
        axes = attribute(node, "axes")
        if node.op_type.startswith("Reduce") and node.op_type != "ReduceSum" and axes is not None:
            name = node.name + "_axes"
            nodes.append(helper.make_node("Constant", [], [name + "_output_0"], name=name,
                                          value=numpy_helper.from_array(np.array(axes, dtype=np.int64))))
            kept = [a for a in node.attribute if a.name != "axes"]
            del node.attribute[:]
            node.attribute.extend(kept)
            node.input.append(name + "_output_0")
        nodes.append(node)
    del graph.node[:]
    graph.node.extend(nodes)


def chunk_slices(graph, constants):
    """Groups of Slice nodes that cut one tensor into n equal consecutive parts along one axis
    with step 1 and that cover it:
    {first slice's name: (data, axis, [their outputs in order], {their names})}."""
    by_data = {}
    for node in graph.node:
        if node.op_type == "Slice":
            by_data.setdefault(node.input[0], []).append(node)
    groups = {}
    for data, slices in by_data.items():
        shape = constants.shapes.get(data)
        if len(slices) < 2 or shape is None:
            continue
        parts = []
        for s in slices:
            starts, ends = constants.get(s.input[1]), constants.get(s.input[2])
            axes = constants.get(s.input[3]) if len(s.input) > 3 and s.input[3] else None
            steps = constants.get(s.input[4]) if len(s.input) > 4 and s.input[4] else np.array([1])
            if starts is None or ends is None or axes is None or steps is None:
                break
            if starts.size != 1 or ends.size != 1 or axes.size != 1 or steps.size != 1 or int(steps[0]) != 1:
                break
            parts.append((int(axes[0]), int(starts[0]), int(ends[0]), s))
        else:
            axis_set = {p[0] for p in parts}
            if len(axis_set) != 1:
                continue
            axis = axis_set.pop()  # as torch wrote it (-1 for the attention's chunk), negative or not
            parts.sort(key=lambda p: p[1])
            length = shape[axis % len(shape)]
            size = length // len(parts)
            if length % len(parts) == 0 and all(p[1] == i * size and p[2] == (i + 1) * size
                                                     for i, p in enumerate(parts)):
                first = min(slices, key=lambda s: list(graph.node).index(s))
                groups[first.name] = (data, axis, [p[3].output[0] for p in parts], {p[3].name for p in parts})
    return groups


def chunk_slices_to_split(graph, constants):
    """torch's chunk into equal parts: one Split-18 with num_outputs in place of the Slices."""
    groups = chunk_slices(graph, constants)
    replaced = set().union(*(g[3] for g in groups.values())) if groups else set()
    nodes = []
    renamed = {}  # a Slice's output -> the Split's output in its place
    for node in graph.node:
        if node.name in groups:
            data, axis, slice_outputs, _ = groups[node.name]
            name = node.name.rsplit("/", 1)[0] + "/Split"
            outputs = [f"{name}_output_{i}" for i in range(len(slice_outputs))]
            renamed.update(zip(slice_outputs, outputs))
            nodes.append(helper.make_node("Split", [data], outputs, name=name, axis=axis, num_outputs=len(outputs)))
        elif node.name not in replaced:
            nodes.append(node)
    for node in nodes:
        for i, name in enumerate(node.input):
            node.input[i] = renamed.get(name, name)
    assert not any(o.name in renamed for o in graph.output)
    del graph.node[:]
    graph.node.extend(nodes)
    return len(groups)


def remove_unused_nodes(graph):
    """Drops the nodes none of whose outputs is used (the Slice bounds' shape subgraph)."""
    while True:
        used = {i for node in graph.node for i in node.input} | {o.name for o in graph.output}
        kept = [node for node in graph.node if any(o in used for o in node.output)]
        if len(kept) == len(graph.node):
            break
        del graph.node[:]
        graph.node.extend(kept)
    produced = {o for node in graph.node for o in node.output}
    value_info = [vi for vi in graph.value_info if vi.name in produced]
    del graph.value_info[:]
    graph.value_info.extend(value_info)
    used = {i for node in graph.node for i in node.input}
    initializers = [t for t in graph.initializer if t.name in used]
    del graph.initializer[:]
    graph.initializer.extend(initializers)


def upgrade(model, opset, name):
    """`model` (opset 13 to 17) in the operator versions of `opset` (18 or newer)."""
    source_opset = next(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))
    assert 13 <= source_opset <= 17 < opset, (source_opset, opset)
    constants = ConstantValues(model)
    upgraded = copy.deepcopy(model)
    graph = upgraded.graph
    reduce_axes_to_input(graph)
    chunks = chunk_slices_to_split(graph, constants) if opset >= SPLIT_CHUNKS_FROM else 0
    remove_unused_nodes(graph)
    del upgraded.opset_import[:]
    upgraded.opset_import.append(helper.make_opsetid("", opset))
    upgraded.ir_version = IR_VERSIONS[opset]
    upgraded.doc_string = (f"tests/models/{name}/model.onnx (torch 1.13, opset {source_opset}) rewritten into "
                           f"the operator versions of opset {opset} by tests/models/upgrade_opset.py")
    return upgraded, source_opset, chunks


def changes_between(op_types, source_opset, opset):
    """What changed in the operators `op_types` from `source_opset` (exclusive) to `opset`."""
    lines = []
    for op in sorted(op_types):
        for version, change in sorted(OPERATOR_CHANGES[op].items()):
            if source_opset < version <= opset:
                lines.append(f"{op}-{version}: {change}")
    return lines


def main():
    wanted = sys.argv[1:] or NETWORKS
    unknown = [name for name in wanted if name not in NETWORKS]
    if unknown:
        sys.exit(f"error: unknown network {', '.join(unknown)} (networks: {', '.join(NETWORKS)})")
    total = 0
    for name in wanted:
        model = onnx.load(os.path.join(MODELS_DIR, name, "model.onnx"))
        check_operators_known(model, name)
        op_types = set()
        for opset in TARGET_OPSETS:
            upgraded, source_opset, chunks = upgrade(model, opset, name)
            path = os.path.join(MODELS_DIR, name, f"model_opset{opset}.onnx")
            onnx.save(upgraded, path)
            size = os.path.getsize(path)
            total += size
            op_types |= {node.op_type for node in upgraded.graph.node}
            print(f"{name}: opset {source_opset} -> {opset}, {len(model.graph.node)} -> {len(upgraded.graph.node)} "
                  f"nodes, {chunks} chunk(s) as Split, {size} bytes")
        for line in changes_between(op_types, source_opset, TARGET_OPSETS[-1]):
            print("  " + line)
    print(f"total size of the written files: {total} bytes")


if __name__ == "__main__":
    main()
