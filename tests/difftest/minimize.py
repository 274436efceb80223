#!/usr/bin/python3
"""Narrows a finding of difftest_onnx.py down to the nodes that aotc gets wrong.

  minimize.py FINDING_DIR --aotc build/aotc --ort PATH [--out DIR]

ONNX Runtime computes every tensor of the model (each node's outputs made graph outputs).
Then each node of the main graph runs alone through aotc, its inputs being ORT's values (as
graph inputs; initializers stay initializers), its expected outputs ORT's. A node that
mismatches alone is the finding's operator; each is written to DIR/node<k>/ (model.onnx,
input_<i>.npy, expected_<i>.npy: the layout of tests/difftest/findings). When every node
matches alone, the bug needs the nodes together (a fusion, the memory plan): say so.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import helper, shape_inference

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from compare import compare  # noqa: E402
from difftest_onnx import OrtServer  # noqa: E402


def value_infos(model):
    """Each tensor's type (and shape where known) by onnx's shape inference. onnx 1.12 knows
    no operator newer than opset 17 (Col2Im, Attention...): their outputs take the type of
    their first input, as every such operator of the generator's does."""
    inferred = shape_inference.infer_shapes(model)
    infos = {v.name: v for v in list(inferred.graph.value_info) + list(inferred.graph.input) +
             list(inferred.graph.output)}
    for init in model.graph.initializer:
        infos.setdefault(init.name, helper.make_tensor_value_info(init.name, init.data_type, None))
    for node in model.graph.node:
        first = infos.get(node.input[0]) if node.input else None
        for name in node.output:
            if name and name not in infos and first is not None:
                infos[name] = helper.make_tensor_value_info(name, first.type.tensor_type.elem_type, None)
    return infos


def constants_as_initializers(model):
    """Constant nodes of the main graph as initializers: a node's constant operands stay
    constant when it runs alone (aotc needs some, e.g. quantization scales, at compile time)."""
    for node in [n for n in model.graph.node if n.op_type == "Constant"]:
        value = next(a.t for a in node.attribute if a.name == "value")
        tensor = onnx.TensorProto()
        tensor.CopyFrom(value)
        tensor.name = node.output[0]
        model.graph.initializer.append(tensor)
        model.graph.node.remove(node)
    return model


def single_node_model(model, node, values):
    inits = {i.name: i for i in model.graph.initializer}
    inputs, feeds, used_inits = [], [], []
    for name in node.input:
        if not name:
            continue
        if name in inits:
            used_inits.append(inits[name])
        elif name not in [i.name for i in inputs]:
            inputs.append(helper.make_tensor_value_info(
                name, onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[values[name].dtype], list(values[name].shape)))
            feeds.append(values[name])
    outputs = [helper.make_tensor_value_info(o, onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[values[o].dtype],
                                             list(values[o].shape)) for o in node.output if o]
    graph = helper.make_graph([node], "minimized", inputs, outputs, used_inits)
    m = helper.make_model(graph, opset_imports=model.opset_import, producer_name="aotc-difftest-minimize")
    m.ir_version = model.ir_version
    return m, feeds, [values[o] for o in node.output if o]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("finding")
    ap.add_argument("--aotc", required=True)
    ap.add_argument("--ort", default=os.environ.get("ORT_MODULE"))
    ap.add_argument("--node", default="node")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    model = constants_as_initializers(onnx.load(os.path.join(args.finding, "model.onnx")))
    n_in = len([i for i in model.graph.input])
    feeds = [np.load(os.path.join(args.finding, f"input_{i}.npy")) for i in range(n_in)]
    infos = value_infos(model)
    everything = onnx.ModelProto()
    everything.CopyFrom(model)
    names = [o for n in model.graph.node for o in n.output if o]
    known = {o.name for o in model.graph.output}
    for name in names:
        if name not in known and name in infos:
            everything.graph.output.append(infos[name])
    ort = OrtServer(args.node, args.ort)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "all.onnx")
        onnx.save(everything, path)
        ins = []
        for i, f in enumerate(feeds):
            ins.append(os.path.join(tmp, f"in{i}.npy"))
            np.save(ins[-1], f)
        outs = [os.path.join(tmp, f"out{i}.npy") for i in range(len(everything.graph.output))]
        err = ort.run(path, ins, outs)
        if err:
            sys.exit(f"ORT: {err}")
        values = {i.name: f for i, f in zip(model.graph.input, feeds)}
        values.update({o.name: np.load(p) for o, p in zip(everything.graph.output, outs)})
        bad = 0
        for k, node in enumerate(model.graph.node):
            if any(o not in values for o in node.output if o) or node.op_type in ("If", "Loop"):
                continue
            m, node_feeds, expected = single_node_model(model, node, values)
            d = os.path.join(tmp, f"node{k}")
            os.makedirs(d)
            onnx.save(m, os.path.join(d, "model.onnx"))
            in_paths = []
            for i, f in enumerate(node_feeds):
                in_paths.append(os.path.join(d, f"input_{i}.npy"))
                np.save(in_paths[-1], f)
            for i, e in enumerate(expected):
                np.save(os.path.join(d, f"expected_{i}.npy"), e)
            act = [os.path.join(d, f"actual_{i}.npy") for i in range(len(expected))]
            cmd = [args.aotc, "run", os.path.join(d, "model.onnx"), "--outputs", ",".join(act)]
            if in_paths:
                cmd += ["--inputs", ",".join(in_paths)]
            p = subprocess.run(cmd, capture_output=True, text=True)
            problems = [p.stderr.strip()] if p.returncode else [
                w for e, a in zip(expected, act) if (w := compare(e, np.load(a)))]
            if problems:
                bad += 1
                attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
                print(f"node {k} {node.op_type} {attrs} inputs "
                      f"{[list(values[i].shape) if i in values else 'init' for i in node.input if i]}: "
                      + "; ".join(problems))
                if args.out:
                    os.makedirs(args.out, exist_ok=True)
                    dest = os.path.join(args.out, f"node{k}")
                    subprocess.run(["rm", "-rf", dest])
                    subprocess.run(["cp", "-r", d, dest])
                    for a in act:
                        if os.path.exists(os.path.join(dest, os.path.basename(a))):
                            os.remove(os.path.join(dest, os.path.basename(a)))
        if not bad:
            print("every node matches alone: the mismatch needs nodes together (fusion, memory plan)")
    ort.close()


if __name__ == "__main__":
    main()
