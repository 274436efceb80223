#!/usr/bin/python3
"""Builds the opset 18-24 test models of tests/e2e/test_opset18plus.cc (see README.md).

Each case is a small graph of operators as ONNX opsets 18 to 24 define them, written with
onnx 1.12's protobuf helpers and the opset import set by hand (onnx 1.12 knows opsets up
to 17, so the checker is not run). Writes, per case, CASE/model.onnx and CASE/input_<i>.bin
(raw little-endian), and manifest.json, which lists the inputs and outputs (type, shape)
and where each case's reference outputs come from:

  onnxruntime  written by ort_reference.js (ONNX Runtime 1.30 for node);
  numpy        written here, from the operator's definition (DFT: numpy.fft);

and the models aotc must refuse (refused/CASE.onnx) with the text its error must contain.

  /usr/bin/python3 tests/models/opset18plus/make_models.py
  node tests/models/opset18plus/ort_reference.js
"""
import json
import os

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(2026)
manifest = {"cases": [], "refused": []}

ELEM = {np.float32: T.FLOAT, np.float64: T.DOUBLE, np.int8: T.INT8, np.uint8: T.UINT8, np.int32: T.INT32,
        np.int64: T.INT64, np.uint16: T.UINT16, np.int16: T.INT16, np.bool_: T.BOOL}
NAMES = {T.FLOAT: "float32", T.DOUBLE: "float64", T.INT8: "int8", T.UINT8: "uint8", T.INT32: "int32",
         T.INT64: "int64", T.UINT16: "uint16", T.INT16: "int16", T.BOOL: "bool"}


def normal(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def const(name, value):
    return nh.from_array(np.asarray(value), name)


def make(opset, nodes, inputs, outputs, initializers=()):
    """inputs: [(name, array)]; outputs: [(name, elem_type)]."""
    graph = h.make_graph(nodes, "g", [h.make_tensor_value_info(n, ELEM[a.dtype.type], a.shape) for n, a in inputs],
                         [h.make_tensor_value_info(n, t, None) for n, t in outputs], list(initializers))
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", opset)], producer_name="make_models.py")
    model.ir_version = 10 if opset >= 21 else 8
    return model


def case(name, opset, nodes, inputs, outputs, initializers=(), numpy_outputs=None, what=""):
    directory = os.path.join(HERE, name)
    os.makedirs(directory, exist_ok=True)
    onnx.save(make(opset, nodes, inputs, outputs, initializers), os.path.join(directory, "model.onnx"))
    for i, (_, a) in enumerate(inputs):
        a.tofile(os.path.join(directory, f"input_{i}.bin"))
    entry = {"name": name, "opset": opset, "what": what,
             "inputs": [{"name": n, "type": str(a.dtype), "shape": list(a.shape)} for n, a in inputs],
             "outputs": [{"name": n, "type": NAMES[t]} for n, t in outputs],
             "reference": "numpy" if numpy_outputs is not None else "onnxruntime"}
    if numpy_outputs is not None:
        for i, a in enumerate(numpy_outputs):
            a.tofile(os.path.join(directory, f"output_{i}.bin"))
    manifest["cases"].append(entry)


def refused(name, opset, nodes, inputs, outputs, expect, initializers=()):
    os.makedirs(os.path.join(HERE, "refused"), exist_ok=True)
    onnx.save(make(opset, nodes, inputs, outputs, initializers), os.path.join(HERE, "refused", name + ".onnx"))
    manifest["refused"].append({"name": name, "opset": opset, "expect": expect})


F = T.FLOAT

# ---------------------------------------------------------------- opset 18

x = normal(2, 3, 4)
positive = (np.abs(normal(2, 3, 4)) + 0.5).astype(np.float32)
reduce_nodes = [
    h.make_node("ReduceMax", ["x", "axes_1"], ["max_1"], keepdims=0),
    h.make_node("ReduceMin", ["x", "axes_last"], ["min_last"]),
    h.make_node("ReduceMean", ["x", "axes_0_2"], ["mean_0_2"], keepdims=0),
    h.make_node("ReduceProd", ["x", "axes_2"], ["prod_2"]),
    h.make_node("ReduceL1", ["x"], ["l1_all"]),
    h.make_node("ReduceL2", ["x", "axes_1"], ["l2_1"]),
    h.make_node("ReduceLogSum", ["p", "axes_1"], ["logsum_1"]),
    h.make_node("ReduceLogSumExp", ["x", "axes_2"], ["logsumexp_2"], keepdims=0),
    h.make_node("ReduceSumSquare", ["x", "axes_0"], ["sumsquare_0"]),
    h.make_node("ReduceSum", ["x", "axes_none"], ["sum_noop"], noop_with_empty_axes=1),
    h.make_node("ReduceMean", ["x"], ["mean_noop"], noop_with_empty_axes=1),
    h.make_node("ReduceMax", ["x", "axes_none"], ["max_all"]),
]
case("reduce_axes_input_18", 18, reduce_nodes, [("x", x), ("p", positive)], [(n.output[0], F) for n in reduce_nodes],
     [const("axes_1", np.array([1], np.int64)), const("axes_last", np.array([-1], np.int64)),
      const("axes_0_2", np.array([0, 2], np.int64)), const("axes_2", np.array([2], np.int64)),
      const("axes_0", np.array([0], np.int64)), const("axes_none", np.array([], np.int64))],
     what="ReduceX-18 with axes as an input, noop_with_empty_axes")

case("split_num_outputs_18", 18,
     [h.make_node("Split", ["x"], ["a", "b", "c"], axis=1, num_outputs=3),
      h.make_node("Split", ["y"], ["d", "e", "f"], axis=0, num_outputs=3)],
     [("x", normal(2, 7)), ("y", normal(6, 2))], [(n, F) for n in "abcdef"], what="Split-18 num_outputs (uneven last part)")

case("pad_axes_18", 18,
     [h.make_node("Pad", ["x", "pads_23", "value", "axes_23"], ["constant"], mode="constant"),
      h.make_node("Pad", ["x", "pads_last", "", "axes_last"], ["reflect"], mode="reflect"),
      h.make_node("Pad", ["x", "pads_last", "", "axes_last"], ["edge"], mode="edge")],
     [("x", normal(1, 2, 3, 4))], [("constant", F), ("reflect", F), ("edge", F)],
     [const("pads_23", np.array([1, 0, 2, 1], np.int64)), const("value", np.array(0.5, np.float32)),
      const("axes_23", np.array([2, 3], np.int64)), const("pads_last", np.array([2, 1], np.int64)),
      const("axes_last", np.array([-1], np.int64))], what="Pad-18 axes input")

case("pad_wrap_19", 19, [h.make_node("Pad", ["x", "pads", "", "axes"], ["y"], mode="wrap")],
     [("x", normal(1, 2, 3, 4))], [("y", F)],
     [const("pads", np.array([1, 2, 2, 0], np.int64)), const("axes", np.array([2, 3], np.int64))], what="Pad-19 wrap")

case("resize_axes_18", 18,
     [h.make_node("Resize", ["x", "", "scales"], ["linear"], mode="linear", axes=[2, 3]),
      h.make_node("Resize", ["x", "", "", "sizes"], ["nearest"], mode="nearest", axes=[3],
                  keep_aspect_ratio_policy="stretch"),
      h.make_node("Resize", ["x", "", "scales_cubic"], ["cubic"], mode="cubic", axes=[-1])],
     [("x", normal(1, 2, 4, 5))], [("linear", F), ("nearest", F), ("cubic", F)],
     [const("scales", np.array([2.0, 1.5], np.float32)), const("sizes", np.array([3], np.int64)),
      const("scales_cubic", np.array([1.6], np.float32))], what="Resize-18 axes")

case("scatter_reduction_18", 18,
     [h.make_node("ScatterElements", ["data", "indices", "updates"], ["max"], axis=0, reduction="max"),
      h.make_node("ScatterElements", ["data", "indices", "updates"], ["min"], axis=0, reduction="min"),
      h.make_node("ScatterND", ["data_nd", "indices_nd", "updates_nd"], ["nd_max"], reduction="max"),
      h.make_node("ScatterND", ["data_nd", "indices_nd", "updates_nd"], ["nd_min"], reduction="min")],
     [("data", normal(3, 4)), ("updates", normal(4, 4)), ("data_nd", normal(4, 3)), ("updates_nd", normal(3, 3))],
     [("max", F), ("min", F), ("nd_max", F), ("nd_min", F)],
     [const("indices", np.array([[0, 1, 2, 0], [2, 1, 0, 0], [0, 1, 2, 2], [1, 1, 1, 1]], np.int64)),
      const("indices_nd", np.array([[1], [3], [1]], np.int64))], what="ScatterElements/ScatterND-18 reduction max, min")

case("lppool_ceil_18", 18,
     [h.make_node("LpPool", ["x"], ["p2"], kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1, p=2),
      h.make_node("LpPool", ["x"], ["p3"], kernel_shape=[3, 2], strides=[2, 1], pads=[1, 0, 1, 1], p=3)],
     [("x", normal(1, 2, 5, 5))], [("p2", F), ("p3", F)], what="LpPool-18 ceil_mode")

case("center_crop_pad_18", 18,
     [h.make_node("CenterCropPad", ["x", "shape"], ["y"], axes=[0, 2]),
      h.make_node("CenterCropPad", ["x", "shape_all"], ["z"])],
     [("x", normal(3, 5, 4))], [("y", F), ("z", F)],
     [const("shape", np.array([6, 1], np.int64)), const("shape_all", np.array([2, 8, 3], np.int64))],
     what="CenterCropPad-18")

case("group_norm_18", 18,
     [h.make_node("GroupNormalization", ["x", "scale", "bias"], ["y"], num_groups=3, epsilon=1e-3)],
     [("x", normal(2, 6, 3, 3))], [("y", F)],
     [const("scale", normal(3)), const("bias", normal(3))], what="GroupNormalization-18 (scale and bias per group)")

a32 = rng.integers(-2**31, 2**31, size=(2, 5), dtype=np.int64).astype(np.int32)
b32 = rng.integers(-2**31, 2**31, size=(5,), dtype=np.int64).astype(np.int32)
a8 = rng.integers(0, 256, size=(3, 4), dtype=np.int64).astype(np.uint8)
b8 = rng.integers(0, 256, size=(3, 4), dtype=np.int64).astype(np.uint8)
s8 = rng.integers(-128, 128, size=(6,), dtype=np.int64).astype(np.int8)
case("bitwise_18", 18,
     [h.make_node("BitwiseAnd", ["a32", "b32"], ["and32"]), h.make_node("BitwiseOr", ["a32", "b32"], ["or32"]),
      h.make_node("BitwiseXor", ["a32", "b32"], ["xor32"]), h.make_node("BitwiseNot", ["a32"], ["not32"]),
      h.make_node("BitwiseAnd", ["a8", "b8"], ["and8"]), h.make_node("BitwiseXor", ["a8", "b8"], ["xor8"]),
      h.make_node("BitwiseNot", ["a8"], ["not8"]), h.make_node("BitwiseNot", ["s8"], ["nots8"]),
      h.make_node("BitwiseOr", ["s8", "s8_rev"], ["ors8"])],
     [("a32", a32), ("b32", b32), ("a8", a8), ("b8", b8), ("s8", s8), ("s8_rev", s8[::-1].copy())],
     [("and32", T.INT32), ("or32", T.INT32), ("xor32", T.INT32), ("not32", T.INT32), ("and8", T.UINT8),
      ("xor8", T.UINT8), ("not8", T.UINT8), ("nots8", T.INT8), ("ors8", T.INT8)], what="BitwiseAnd/Or/Xor/Not-18")

case("col2im_18", 18,
     [h.make_node("Col2Im", ["x", "image", "block"], ["plain"]),
      h.make_node("Col2Im", ["y", "image", "block_2"], ["strided"], strides=[2, 1], dilations=[1, 2], pads=[1, 0, 0, 2]),
      h.make_node("Col2Im", ["z", "image_1d", "block_1d"], ["one_axis"], strides=[2], pads=[1, 1])],
     [("x", normal(2, 2 * 2 * 3, 3 * 3)), ("y", normal(1, 3 * 2 * 2, 2 * 5)), ("z", normal(1, 2 * 3, 4))],
     [("plain", F), ("strided", F), ("one_axis", F)],
     [const("image", np.array([4, 5], np.int64)), const("block", np.array([2, 3], np.int64)),
      const("block_2", np.array([2, 2], np.int64)), const("image_1d", np.array([7], np.int64)),
      const("block_1d", np.array([3], np.int64))], what="Col2Im-18")

# ---------------------------------------------------------------- opset 19

case("average_pool_dilations_19", 19,
     [h.make_node("AveragePool", ["x"], ["excluded"], kernel_shape=[3, 3], dilations=[2, 2], pads=[1, 1, 1, 1]),
      h.make_node("AveragePool", ["x"], ["included"], kernel_shape=[2, 3], dilations=[2, 1], strides=[2, 1],
                  pads=[1, 1, 1, 1], count_include_pad=1)],
     [("x", normal(1, 2, 7, 7))], [("excluded", F), ("included", F)], what="AveragePool-19 dilations")

# ---------------------------------------------------------------- opset 20

case("gelu_20", 20,
     [h.make_node("Gelu", ["x"], ["exact"]), h.make_node("Gelu", ["x"], ["tanh"], approximate="tanh")],
     [("x", (3 * normal(4, 6)).astype(np.float32))], [("exact", F), ("tanh", F)], what="Gelu-20")

case("grid_sample_20", 20,
     [h.make_node("GridSample", ["x", "grid"], ["linear"], mode="linear", align_corners=0),
      h.make_node("GridSample", ["x", "grid"], ["cubic"], mode="cubic", padding_mode="reflection"),
      h.make_node("GridSample", ["x", "grid"], ["border"], mode="linear", padding_mode="border", align_corners=1)],
     [("x", normal(1, 2, 4, 5)), ("grid", rng.uniform(-1.1, 1.1, (1, 3, 4, 2)).astype(np.float32))],
     [("linear", F), ("cubic", F), ("border", F)], what="GridSample-20 mode names")


# DFT against numpy.fft (ONNX's reference implementation, onnx/reference/ops/op_dft.py).
def complex_of(signal):
    return signal[..., 0] + 1j * signal[..., 1] if signal.shape[-1] == 2 else signal[..., 0]


def pairs(values):
    return np.stack([values.real, values.imag], -1).astype(np.float32)


def dft_case(name, opset, signal, axis, inverse, onesided=0, length=None):
    inputs, initializers = ["x"], []
    attributes = {"inverse": inverse, "onesided": onesided}
    if length is not None:
        initializers.append(const("length", np.array(length, np.int64)))
    if opset < 20:
        attributes["axis"] = axis
        inputs += ["length"] if length is not None else []
    else:
        initializers.append(const("axis", np.array(axis, np.int64)))
        inputs += ["length" if length is not None else "", "axis"]
    c = complex_of(signal)
    a = axis % signal.ndim
    if inverse and onesided:
        expected = np.fft.irfft(c, n=length, axis=a)[..., np.newaxis].astype(np.float32)
    else:
        expected = pairs((np.fft.ifft if inverse else np.fft.fft)(c, n=length, axis=a))
        if onesided:
            expected = np.take(expected, range(expected.shape[a] // 2 + 1), axis=a)
    case(name, opset, [h.make_node("DFT", inputs, ["y"], **attributes)], [("x", signal)], [("y", F)], initializers,
         numpy_outputs=[expected], what=f"DFT-{opset} inverse={inverse} onesided={onesided} dft_length={length or 'default'}")


dft_case("dft_inverse_complex_17", 17, normal(2, 6, 2), 1, 1)
dft_case("dft_inverse_real_padded_17", 17, normal(2, 5, 1), 1, 1, length=8)
dft_case("dft_inverse_truncated_20", 20, normal(1, 7, 3, 2), 1, 1, length=4)
dft_case("dft_inverse_axis_20", 20, normal(2, 3, 5, 2), -2, 1)
dft_case("dft_onesided_forward_20", 20, normal(2, 3, 6, 1), 2, 0, onesided=1)
dft_case("dft_inverse_real_output_17", 17, normal(2, 5, 2), 1, 1, onesided=1)
dft_case("dft_inverse_real_output_odd_20", 20, normal(3, 4, 2), 1, 1, onesided=1, length=7)
dft_case("dft_inverse_real_output_short_20", 20, normal(1, 6, 2, 2), 1, 1, onesided=1, length=4)

# ---------------------------------------------------------------- opset 21

x = normal(2, 3, 4)
case("quantize_dequantize_21", 21,
     [h.make_node("QuantizeLinear", ["x", "scale", "zero"], ["q"], axis=1),
      h.make_node("DequantizeLinear", ["q", "scale", "zero"], ["dq"], axis=1),
      h.make_node("QuantizeLinear", ["x", "scale_1", "zero_u8"], ["q8"]),
      h.make_node("DequantizeLinear", ["q8", "scale_1", "zero_u8"], ["dq8"])],
     [("x", (4 * x).astype(np.float32))], [("q", T.INT8), ("dq", F), ("q8", T.UINT8), ("dq8", F)],
     [const("scale", np.array([0.02, 0.05, 0.1], np.float32)), const("zero", np.array([0, -3, 5], np.int8)),
      const("scale_1", np.array(0.03, np.float32)), const("zero_u8", np.array(128, np.uint8))],
     what="QuantizeLinear/DequantizeLinear-21 per axis and per tensor")

xb = (3 * normal(1, 2, 4, 5)).astype(np.float32)
case("quantize_blocked_21", 21,
     [h.make_node("QuantizeLinear", ["x", "scale", "zero"], ["q"], axis=3, block_size=2),
      h.make_node("DequantizeLinear", ["q", "scale", "zero"], ["dq"], axis=3, block_size=2),
      h.make_node("DequantizeLinear", ["a", "a_scale", "a_zero"], ["a_real"]),
      h.make_node("DequantizeLinear", ["w", "w_scale", "w_zero"], ["w_real"], axis=1, block_size=2),
      h.make_node("MatMul", ["a_real", "w_real"], ["product"]),
      h.make_node("QuantizeLinear", ["product", "y_scale", "y_zero"], ["y"])],
     [("x", xb), ("a", rng.integers(-128, 128, (3, 2)).astype(np.int8))],
     [("q", T.INT8), ("dq", F), ("y", T.INT8)],
     [const("scale", rng.uniform(0.01, 0.1, (1, 2, 4, 3)).astype(np.float32)),
      const("zero", rng.integers(-5, 6, (1, 2, 4, 3)).astype(np.int8)),
      const("a_scale", np.array(0.02, np.float32)), const("a_zero", np.array(3, np.int8)),
      const("w", rng.integers(-128, 128, (2, 4)).astype(np.int8)),
      const("w_scale", rng.uniform(0.005, 0.02, (2, 2)).astype(np.float32)),
      const("w_zero", np.zeros((2, 2), np.int8)),
      const("y_scale", np.array(0.25, np.float32)), const("y_zero", np.array(-2, np.int8))],
     what="QuantizeLinear/DequantizeLinear-21 blocked (block_size; a last block shorter), a blocked weight "
          "into MatMul whose 4 scales a per-column reading would take for its 4 columns")

case("group_norm_21", 21,
     [h.make_node("GroupNormalization", ["x", "scale", "bias"], ["y"], num_groups=2, epsilon=1e-4, stash_type=1)],
     [("x", normal(2, 6, 4))], [("y", F)], [const("scale", normal(6)), const("bias", normal(6))],
     what="GroupNormalization-21 (scale and bias per channel)")

# ---------------------------------------------------------------- opset 22

x = normal(2, 3, 8)
activations = ["Elu", "Selu", "HardSigmoid", "HardSwish", "Softplus", "Softsign", "ThresholdedRelu", "Mish", "Sin", "Cos",
               "Tan", "Atan", "Sinh", "Asinh", "Round"]
case("activations_22", 22, [h.make_node(op, ["x"], [op.lower()]) for op in activations], [("x", x)],
     [(op.lower(), F) for op in activations], what="elementwise operators of opset 22 (bfloat16 added)")

case("conv_pool_22", 22,
     [h.make_node("Conv", ["x", "w", "b"], ["conv"], pads=[1, 1, 1, 1]),
      h.make_node("MaxPool", ["conv"], ["max"], kernel_shape=[2, 2], strides=[2, 2]),
      h.make_node("AveragePool", ["conv"], ["avg"], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1),
      h.make_node("GlobalAveragePool", ["conv"], ["gap"]),
      h.make_node("InstanceNormalization", ["conv", "s", "bias"], ["inorm"]),
      h.make_node("LpNormalization", ["conv"], ["lpn"], axis=1, p=2)],
     [("x", normal(1, 2, 6, 6))], [("max", F), ("avg", F), ("gap", F), ("inorm", F), ("lpn", F)],
     [const("w", normal(4, 2, 3, 3)), const("b", normal(4)), const("s", normal(4)), const("bias", normal(4))],
     what="Conv, pooling and normalization of opset 22")

# ---------------------------------------------------------------- opset 23

case("rms_norm_23", 23,
     [h.make_node("RMSNormalization", ["x", "scale"], ["last"], axis=-1, epsilon=1e-5),
      h.make_node("RMSNormalization", ["x", "scale_2d"], ["two"], axis=1)],
     [("x", normal(2, 3, 8))], [("last", F), ("two", F)], [const("scale", normal(8)), const("scale_2d", normal(3, 8))],
     what="RMSNormalization-23")

case("layer_norm_stash_23", 23,
     [h.make_node("LayerNormalization", ["x", "scale", "bias"], ["y", "mean", "inv_std"], axis=-1, epsilon=1e-5)],
     [("x", normal(2, 3, 8))], [("y", F), ("mean", F), ("inv_std", F)], [const("scale", normal(8)), const("bias", normal(8))],
     what="LayerNormalization with its Mean and InvStdDev outputs, in an opset 23 model")

case("quantize_output_dtype_23", 23,
     [h.make_node("QuantizeLinear", ["x", "scale"], ["q"], output_dtype=T.INT8),
      h.make_node("DequantizeLinear", ["q", "scale"], ["dq"], output_dtype=T.FLOAT)],
     [("x", (3 * normal(2, 5)).astype(np.float32))], [("q", T.INT8), ("dq", F)],
     [const("scale", np.array(0.05, np.float32))],
     what="QuantizeLinear-21 output_dtype without a zero point, DequantizeLinear-23 output_dtype float32")

# Attention-23/24 and RotaryEmbedding-23 draw from their own generator, so that adding them
# left the inputs of the cases above and below unchanged.
rng_attention = np.random.default_rng(2323)


def attention_normal(*shape):
    return rng_attention.standard_normal(shape).astype(np.float32)


def attention_reference(q, k, v, mask, past_key, past_value, softcap, mode):
    """Attention-23 of 4-D inputs as its definition reads (Changelog.md): scores Q K^T / sqrt(head_size),
    softcap (when > 0), plus the mask, plus the causal bias (-inf where key j > query i + past length), softmax,
    times V. Returns Y, present_key, present_value and qk_matmul_output of `mode`."""
    key, value = np.concatenate([past_key, k], 2), np.concatenate([past_value, v], 2)
    scores = (q.astype(np.float64) @ key.transpose(0, 1, 3, 2)) / np.sqrt(q.shape[-1])
    before_cap = scores
    scores = softcap * np.tanh(scores / softcap) if softcap > 0 else scores
    past, queries, total = past_key.shape[2], q.shape[2], key.shape[2]
    causal = np.where(np.arange(total)[None, :] <= np.arange(queries)[:, None] + past, 0.0, -np.inf)
    biased = scores + mask + causal
    weights = np.exp(biased - biased.max(-1, keepdims=True))
    weights /= weights.sum(-1, keepdims=True)
    qk = [before_cap, scores, biased, weights][mode]
    return [a.astype(np.float32) for a in (weights @ value, key, value, qk)]


n = attention_normal
case("attention_4d_23", 23,
     [h.make_node("Attention", ["q", "k", "v", "mask"], ["y"])],
     [("q", n(2, 2, 3, 4)), ("k", n(2, 2, 5, 4)), ("v", n(2, 2, 5, 6)), ("mask", n(3, 5))], [("y", F)],
     what="Attention-23, 4-D Q/K/V (cross attention, v_head_size 6), float mask broadcast over batch and heads")
case("attention_3d_gqa_23", 23,
     [h.make_node("Attention", ["q", "k", "v", "mask"], ["y"], q_num_heads=4, kv_num_heads=2, scale=0.3)],
     [("q", n(2, 3, 16)), ("k", n(2, 3, 8)), ("v", n(2, 3, 6)),
      ("mask", np.array([[[[1, 1, 0], [1, 0, 1], [0, 1, 1]]], [[[1, 1, 1], [0, 1, 0], [1, 0, 0]]]], np.bool_))],
     [("y", F)], what="Attention-23, 3-D Q/K/V with q_num_heads 4 over kv_num_heads 2 (GQA), scale, boolean mask")
case("attention_masked_row_23", 23,
     [h.make_node("Attention", ["q", "k", "v", "mask"], ["y"])],
     [("q", n(1, 1, 3, 4)), ("k", n(1, 1, 3, 4)), ("v", n(1, 1, 3, 4)),
      ("mask", np.array([[1, 0, 1], [0, 0, 0], [0, 1, 0]], np.bool_))],
     [("y", F)], what="Attention-23, a query whose boolean mask removes every key: a row of zeros")
case("attention_causal_mqa_23", 23,
     [h.make_node("Attention", ["q", "k", "v"], ["y"], q_num_heads=2, kv_num_heads=1, is_causal=1)],
     [("q", n(1, 4, 8)), ("k", n(1, 4, 4)), ("v", n(1, 4, 4))],
     [("y", F)], what="Attention-23, 3-D, one key/value head (MQA), is_causal")
# ONNX Runtime writes the lowest float, not -inf, where the causal mask removes a key: the
# mode 2 case (scores with the mask added) takes its reference from attention_reference.
for mode in range(4):
    inputs = [("q", n(1, 2, 2, 4)), ("k", n(1, 2, 2, 4)), ("v", n(1, 2, 2, 4)), ("mask", n(1, 1, 2, 5)),
              ("past_key", n(1, 2, 3, 4)), ("past_value", n(1, 2, 3, 4))]
    case(f"attention_kv_cache_qk{mode}_23", 23,
         [h.make_node("Attention", ["q", "k", "v", "mask", "past_key", "past_value"],
                      ["y", "present_key", "present_value", "qk"], is_causal=1, softcap=2.0, qk_matmul_output_mode=mode)],
         inputs, [("y", F), ("present_key", F), ("present_value", F), ("qk", F)],
         numpy_outputs=attention_reference(*[a for _, a in inputs], 2.0, mode) if mode == 2 else None,
         what=f"Attention-23 with a key/value cache (past_key/past_value in, present_key/present_value out), causal "
              f"bottom-right of the cache, softcap, float mask, qk_matmul_output_mode {mode}")
case("rotary_embedding_23", 23,
     [h.make_node("RotaryEmbedding", ["x4", "cos", "sin", "positions"], ["y4"]),
      h.make_node("RotaryEmbedding", ["x3", "cos_bs", "sin_bs"], ["y3"], interleaved=1, num_heads=2,
                  rotary_embedding_dim=4)],
     [("x4", n(2, 2, 3, 8)), ("positions", np.array([[0, 1, 2], [5, 3, 7]], np.int64)),
      ("x3", n(2, 3, 12))],
     [("y4", F), ("y3", F)],
     [const("cos", np.cos(np.outer(np.arange(8), 1.0 / 10000 ** (np.arange(4) / 4))).astype(np.float32)),
      const("sin", np.sin(np.outer(np.arange(8), 1.0 / 10000 ** (np.arange(4) / 4))).astype(np.float32)),
      const("cos_bs", np.cos(n(2, 3, 2)).astype(np.float32)), const("sin_bs", np.sin(n(2, 3, 2)).astype(np.float32))],
     what="RotaryEmbedding-23: 4-D input with position_ids into a cache; 3-D input with num_heads, interleaved, "
          "rotary_embedding_dim 4 of head size 6, cache per batch and position")

# One decoder layer of a small Llama-style language model, in the operators PyTorch 2.x's
# exporter emits at opset 23 (RMSNorm, the q/k/v projections, RotaryEmbedding, Attention with a
# key/value cache and grouped heads, SiLU-gated MLP): 2 new tokens after 3 cached ones, hidden
# size 16, 4 query heads and 2 key/value heads of size 4.
hidden, heads, kv_heads, head, past, new_tokens, ffn = 16, 4, 2, 4, 3, 2, 32
w = lambda *shape: (0.3 * n(*shape)).astype(np.float32)  # noqa: E731
frequencies = 1.0 / 10000 ** (np.arange(head // 2) / (head // 2))
angles = np.outer(np.arange(8), frequencies)
decoder_nodes = [
    h.make_node("RMSNormalization", ["x", "norm1"], ["xn"], axis=-1, epsilon=1e-6),
    h.make_node("MatMul", ["xn", "wq"], ["q3"]),
    h.make_node("MatMul", ["xn", "wk"], ["k3"]),
    h.make_node("MatMul", ["xn", "wv"], ["v3"]),
    h.make_node("Reshape", ["q3", "q_shape"], ["q_bshd"]),
    h.make_node("Transpose", ["q_bshd"], ["q4"], perm=[0, 2, 1, 3]),
    h.make_node("Reshape", ["k3", "kv_shape"], ["k_bshd"]),
    h.make_node("Transpose", ["k_bshd"], ["k4"], perm=[0, 2, 1, 3]),
    h.make_node("Reshape", ["v3", "kv_shape"], ["v_bshd"]),
    h.make_node("Transpose", ["v_bshd"], ["v4"], perm=[0, 2, 1, 3]),
    h.make_node("RotaryEmbedding", ["q4", "cos", "sin", "positions"], ["q_rot"]),
    h.make_node("RotaryEmbedding", ["k4", "cos", "sin", "positions"], ["k_rot"]),
    h.make_node("Attention", ["q_rot", "k_rot", "v4", "", "past_key", "past_value"],
                ["attended", "present_key", "present_value"], is_causal=1),
    h.make_node("Transpose", ["attended"], ["attended_bshd"], perm=[0, 2, 1, 3]),
    h.make_node("Reshape", ["attended_bshd", "hidden_shape"], ["attended3"]),
    h.make_node("MatMul", ["attended3", "wo"], ["projected"]),
    h.make_node("Add", ["x", "projected"], ["h1"]),
    h.make_node("RMSNormalization", ["h1", "norm2"], ["hn"], axis=-1, epsilon=1e-6),
    h.make_node("MatMul", ["hn", "w_gate"], ["gate"]),
    h.make_node("Sigmoid", ["gate"], ["gate_sigmoid"]),
    h.make_node("Mul", ["gate", "gate_sigmoid"], ["gate_silu"]),
    h.make_node("MatMul", ["hn", "w_up"], ["up"]),
    h.make_node("Mul", ["gate_silu", "up"], ["gated"]),
    h.make_node("MatMul", ["gated", "w_down"], ["down"]),
    h.make_node("Add", ["h1", "down"], ["y"]),
]
case("decoder_layer_23", 23, decoder_nodes,
     [("x", n(1, new_tokens, hidden)), ("past_key", n(1, kv_heads, past, head)), ("past_value", n(1, kv_heads, past, head)),
      ("positions", np.array([[past, past + 1]], np.int64))],
     [("y", F), ("present_key", F), ("present_value", F)],
     [const("norm1", (1 + 0.1 * n(hidden)).astype(np.float32)), const("norm2", (1 + 0.1 * n(hidden)).astype(np.float32)),
      const("wq", w(hidden, heads * head)), const("wk", w(hidden, kv_heads * head)), const("wv", w(hidden, kv_heads * head)),
      const("wo", w(heads * head, hidden)), const("w_gate", w(hidden, ffn)), const("w_up", w(hidden, ffn)),
      const("w_down", w(ffn, hidden)),
      const("q_shape", np.array([1, new_tokens, heads, head], np.int64)),
      const("kv_shape", np.array([1, new_tokens, kv_heads, head], np.int64)),
      const("hidden_shape", np.array([1, new_tokens, heads * head], np.int64)),
      const("cos", np.cos(angles).astype(np.float32)), const("sin", np.sin(angles).astype(np.float32))],
     what="a Llama-style decoder layer as PyTorch 2.x exports it at opset 23: RMSNormalization, RotaryEmbedding, "
          "Attention with a key/value cache and GQA, SiLU-gated MLP")

# ---------------------------------------------------------------- opset 24

case("mixed_24", 24,
     [h.make_node("Transpose", ["x"], ["t"], perm=[0, 2, 1]),
      h.make_node("Reshape", ["t", "shape"], ["r"]),
      h.make_node("Flatten", ["r"], ["f"], axis=2),
      h.make_node("Unsqueeze", ["f", "axes_0"], ["u"]),
      h.make_node("Squeeze", ["u", "axes_0"], ["s"]),
      h.make_node("Identity", ["s"], ["i"]),
      h.make_node("Swish", ["i"], ["swish"], alpha=0.75),
      h.make_node("TopK", ["swish", "k"], ["top_values", "top_indices"], axis=-1),
      h.make_node("Cast", ["top_indices"], ["indices_i32"], to=T.INT32),
      h.make_node("Shape", ["x"], ["x_shape"], start=1),
      h.make_node("ConstantOfShape", ["x_shape"], ["filled"], value=h.make_tensor("v", T.FLOAT, [1], [0.25])),
      h.make_node("Pad", ["filled", "pads"], ["padded"]),
      h.make_node("Size", ["padded"], ["size"])],
     [("x", normal(2, 3, 4))],
     [("swish", F), ("top_values", F), ("indices_i32", T.INT32), ("padded", F), ("size", T.INT64)],
     [const("shape", np.array([2, 2, 2, 3], np.int64)), const("axes_0", np.array([0], np.int64)),
      const("k", np.array([2], np.int64)), const("pads", np.array([1, 0, 0, 2], np.int64))],
     what="opset 24's new versions (types only) and Swish-24")

n = attention_normal
case("attention_nonpad_24", 24,
     [h.make_node("Attention", ["q", "k", "v", "", "", "", "lengths"], ["y"], is_causal=1)],
     [("q", n(2, 2, 2, 4)), ("k", n(2, 2, 5, 4)), ("v", n(2, 2, 5, 4)), ("lengths", np.array([3, 5], np.int64))],
     [("y", F)], what="Attention-24 nonpad_kv_seqlen (an external cache: keys from each batch's length on are "
                      "padding), causal aligned to each batch's last valid key")

# ---------------------------------------------------------------- where ONNX Runtime differs

# Two cases the differential test (tests/difftest/gen_onnx_recent.py) found ONNX Runtime 1.30
# computing otherwise than the definition, so it no longer draws them: their references are
# numpy's, written from the definition. Their own generator keeps the inputs above unchanged.
rng_ort_differs = np.random.default_rng(2618)


def col2im_reference(x, image, block, strides, dilations, pads):
    """Col2Im-18: column l of block element k of channel c is added at image position
    l_d * stride_d + k_d * dilation_d - pad_begin_d (positions in the padding are dropped)."""
    n, ck, _ = x.shape
    dims, k = len(image), int(np.prod(block))
    padded = [image[d] + pads[d] + pads[d + dims] for d in range(dims)]
    counts = [(padded[d] - ((block[d] - 1) * dilations[d] + 1)) // strides[d] + 1 for d in range(dims)]
    out = np.zeros([n, ck // k] + padded, np.float64)
    for c in range(ck // k):
        for ki, kpos in enumerate(np.ndindex(*block)):
            for li, lpos in enumerate(np.ndindex(*counts)):
                at = tuple(lpos[d] * strides[d] + kpos[d] * dilations[d] for d in range(dims))
                out[(slice(None), c) + at] += x[:, c * k + ki, li]
    return out[(slice(None), slice(None)) + tuple(slice(pads[d], pads[d] + image[d]) for d in range(dims))]


x = rng_ort_differs.standard_normal((1, 6, 3)).astype(np.float32)
case("col2im_one_axis_dilated_18", 18,
     [h.make_node("Col2Im", ["x", "image", "block"], ["y"], dilations=[2])], [("x", x)], [("y", F)],
     [const("image", np.array([5], np.int64)), const("block", np.array([2], np.int64))],
     numpy_outputs=[col2im_reference(x, [5], [2], [1], [2], [0, 0]).astype(np.float32)],
     what="Col2Im-18 of one spatial axis, dilation 2, three channels (ONNX Runtime 1.30 sums the wrong columns)")

inputs = [("q", rng_ort_differs.standard_normal((1, 2, 1, 4)).astype(np.float32)),
          ("k", rng_ort_differs.standard_normal((1, 2, 3, 4)).astype(np.float32)),
          ("v", rng_ort_differs.standard_normal((1, 2, 3, 4)).astype(np.float32)),
          ("past_key", rng_ort_differs.standard_normal((1, 2, 2, 4)).astype(np.float32)),
          ("past_value", rng_ort_differs.standard_normal((1, 2, 2, 4)).astype(np.float32))]
q, k, v, past_key, past_value = [a for _, a in inputs]
case("attention_causal_more_keys_23", 23,
     [h.make_node("Attention", ["q", "k", "v", "", "past_key", "past_value"], ["y", "present_key", "present_value"],
                  is_causal=1)],
     inputs, [("y", F), ("present_key", F), ("present_value", F)],
     numpy_outputs=attention_reference(q, k, v, np.zeros((1, 5), np.float32), past_key, past_value, 0.0, 0)[:3],
     what="Attention-23 is_causal with a key/value cache of 2 and 3 new keys for 1 query: it sees keys j <= "
          "0 + 2 (the past length, the errata onnx/onnx#8068), where ONNX Runtime 1.30 takes j <= 0 + 5 - 1")

# ---------------------------------------------------------------- refused

x = normal(1, 2, 4, 4)
refused("opset_25", 25, [h.make_node("Relu", ["x"], ["y"])], [("x", x)], [("y", F)],
        ["opset 25 is newer than the newest aotc knows (24)"])
refused("deform_conv_22", 22, [h.make_node("DeformConv", ["x", "w", "offset"], ["y"], kernel_shape=[2, 2])],
        [("x", x), ("offset", normal(1, 8, 3, 3))], [("y", F)],
        ["(DeformConv)", "operator 'DeformConv' is not supported", "opset 22 means DeformConv-22"],
        [const("w", normal(2, 2, 2, 2))])
refused("attention_int_mask_23", 23, [h.make_node("Attention", ["q", "k", "v", "mask"], ["y"])],
        [("q", normal(1, 2, 3, 4)), ("k", normal(1, 2, 3, 4)), ("v", normal(1, 2, 3, 4)),
         ("mask", np.ones((3, 3), np.int32))], [("y", F)],
        ["(Attention)", "attn_mask", "int32"])
refused("resize_antialias_18", 18, [h.make_node("Resize", ["x", "", "scales"], ["y"], mode="linear", antialias=1)],
        [("x", x)], [("y", F)], ["(Resize)", "antialias"], [const("scales", np.array([1, 1, 0.5, 0.5], np.float32))])
refused("resize_half_pixel_symmetric_19", 19,
        [h.make_node("Resize", ["x", "", "scales"], ["y"], mode="linear",
                     coordinate_transformation_mode="half_pixel_symmetric")],
        [("x", x)], [("y", F)], ["(Resize)", "half_pixel_symmetric"],
        [const("scales", np.array([1, 1, 2, 2], np.float32))])
refused("quantize_blocked_wrong_scale_21", 21,
        [h.make_node("QuantizeLinear", ["x", "scale", "zero"], ["y"], axis=3, block_size=2)],
        [("x", x)], [("y", T.INT8)], ["(QuantizeLinear)", "blocks of 2 along axis 3 of [1, 2, 4, 4] need [1, 2, 4, 2]"],
        [const("scale", np.full((1, 2, 4, 4), 0.1, np.float32)), const("zero", np.zeros((1, 2, 4, 4), np.int8))])
refused("quantize_precision_23", 23,
        [h.make_node("QuantizeLinear", ["x", "scale", "zero"], ["y"], precision=T.FLOAT16)],
        [("x", x)], [("y", T.INT8)], ["(QuantizeLinear)", "precision 10 is not supported"],
        [const("scale", np.array(0.1, np.float32)), const("zero", np.array(0, np.int8))])
refused("dequantize_float16_output_23", 23,
        [h.make_node("DequantizeLinear", ["x", "scale"], ["y"], output_dtype=T.FLOAT16)],
        [("x", np.arange(8, dtype=np.int8))], [("y", T.FLOAT16)], ["(DequantizeLinear)", "output_dtype float16 (10)"],
        [const("scale", np.array(0.1, np.float32))])
refused("cast_int4_21", 21, [h.make_node("Cast", ["x"], ["y"], to=22)], [("x", x)], [("y", 22)],
        ["(Cast)", "(22) is not supported"])
refused("dft_inverse_real_input_onesided_20", 20,
        [h.make_node("DFT", ["x", "", "axis"], ["y"], inverse=1, onesided=1)], [("x", normal(1, 6, 1))], [("y", F)],
        ["(DFT)", "needs complex input"], [const("axis", np.array(1, np.int64))])

with open(os.path.join(HERE, "manifest.json"), "w") as f:
    json.dump(manifest, f, indent=1)
    f.write("\n")
