#!/usr/bin/python3
"""Builds the QDQ test models of tests/e2e/test_qdq.cc, with reference outputs.

Each model is a quantized network in ONNX's QDQ form, as quantization tools write it: float
operators between DequantizeLinear (DQ) and QuantizeLinear (Q) nodes. aotc's fold_qdq pass
turns each DQ -> op -> Q pattern into one integer kernel. The reference outputs here are
computed independently of aotc, with numpy, following the ONNX operator definitions of
the graph as written:

  DequantizeLinear  y = (x - zero_point) * scale, in float32
  Conv, MatMul,     float32 operands; products summed in float64 and the result (bias
  Gemm              included) rounded to float32, i.e. an accurately rounded float32
                    operator
  Add, Relu, Clip   float32
  QuantizeLinear    y = saturate(round_half_to_even(x / scale) + zero_point), the
                    division in float32

Weights are random, quantized per output channel (symmetric int8) the way ONNX Runtime's
quantizer does; activation scales and zero points come from the float network's ranges on
a calibration batch; biases are int32 at scale input_scale * weight_scale. Everything is
seeded (numpy default_rng), so rerunning reproduces the files byte for byte.

Per model directory: model.onnx, input_<i>.bin (raw little-endian, the graph input's
element type), output_0.bin (raw, the graph output's element type).

Run with Debian's python3-onnx 1.12 and numpy:  /usr/bin/python3 make_qdq_models.py
"""

import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
OPSET = 13  # per-axis DequantizeLinear

NP_TO_ONNX = {np.dtype(np.int8): TensorProto.INT8, np.dtype(np.uint8): TensorProto.UINT8,
              np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.int32): TensorProto.INT32}
TYPE_RANGE = {np.dtype(np.int8): (-128, 127), np.dtype(np.uint8): (0, 255)}


# ----------------------------------------------------------------------- reference semantics

def dequantize(q, scale, zero_point, axis=None):
    """ONNX DequantizeLinear: float32 result of (q - zero_point) * scale."""
    scale = np.asarray(scale, np.float32)
    zero_point = np.asarray(zero_point, np.int64)
    if axis is not None and scale.size > 1:
        shape = [1] * q.ndim
        shape[axis] = -1
        scale, zero_point = scale.reshape(shape), zero_point.reshape(shape)
    # The difference and the product are exact in float64; one rounding to float32.
    return ((q.astype(np.int64) - zero_point).astype(np.float64) * scale.astype(np.float64)).astype(np.float32)


def quantize(x, scale, zero_point, dtype):
    """ONNX QuantizeLinear: saturate(round_half_to_even(x / scale) + zero_point)."""
    assert x.dtype == np.float32
    scaled = x / np.float32(scale)  # float32 division
    assert scaled.dtype == np.float32
    lo, hi = TYPE_RANGE[np.dtype(dtype)]
    return np.clip(np.rint(scaled.astype(np.float64)) + int(zero_point), lo, hi).astype(dtype)


def conv2d(x, w, bias, stride, pad, group):
    """ONNX Conv (NCHW, square stride and symmetric pads), accumulated in float64."""
    n, c, h, wd = x.shape
    m, c_per_group, kh, kw = w.shape
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = (h + 2 * pad - kh) // stride + 1, (wd + 2 * pad - kw) // stride + 1
    out = np.zeros((n, m, oh, ow), np.float64)
    m_per_group = m // group
    for o in range(m):
        first = (o // m_per_group) * c_per_group
        for i in range(c_per_group):
            for dy in range(kh):
                for dx in range(kw):
                    window = xp[:, first + i, dy:dy + stride * oh:stride, dx:dx + stride * ow:stride]
                    out[:, o] += window * np.float64(w[o, i, dy, dx])
    if bias is not None:
        out += bias.astype(np.float64).reshape(1, m, 1, 1)
    return out.astype(np.float32)


def matmul(a, b, bias=None):
    out = np.matmul(a.astype(np.float64), b.astype(np.float64))
    if bias is not None:
        out += bias.astype(np.float64)
    return out.astype(np.float32)


def relu(x):
    return np.maximum(x, np.float32(0))


def clip(x, lo, hi):
    return np.minimum(np.maximum(x, np.float32(lo)), np.float32(hi))


# ----------------------------------------------------------------------- quantization choices

def activation_params(values, dtype):
    """Asymmetric per-tensor (scale, zero point) covering the range of `values` and 0."""
    lo, hi = min(float(values.min()), 0.0), max(float(values.max()), 0.0)
    qmin, qmax = TYPE_RANGE[np.dtype(dtype)]
    scale = np.float32((hi - lo) / (qmax - qmin))
    zero_point = int(np.clip(np.rint(qmin - lo / float(scale)), qmin, qmax))
    return scale, np.array(zero_point, dtype)


def weight_params(w, axis):
    """Symmetric int8 scales per index along `axis` (zero points 0), quantized weights."""
    reduce_axes = tuple(i for i in range(w.ndim) if i != axis)
    scales = (np.abs(w).max(axis=reduce_axes) / 127.0).astype(np.float32)
    shape = [1] * w.ndim
    shape[axis] = -1
    q = np.clip(np.rint(w / scales.reshape(shape)), -127, 127).astype(np.int8)
    return q, scales, np.zeros(scales.shape, np.int8)


def bias_int32(bias, input_scale, weight_scales):
    """int32 bias at scale input_scale * weight_scale (float32 product), and that scale."""
    scales = (np.float32(input_scale) * weight_scales).astype(np.float32)
    return np.rint(bias / scales).astype(np.int32), scales


# ----------------------------------------------------------------------- graph building

class GraphBuilder:
    def __init__(self):
        self.nodes, self.initializers, self.inputs, self.outputs = [], [], [], []
        self.count = 0

    def name(self, prefix):
        self.count += 1
        return "%s_%d" % (prefix, self.count)

    def constant(self, prefix, value):
        name = self.name(prefix)
        self.initializers.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def input(self, name, dtype, shape):
        self.inputs.append(helper.make_tensor_value_info(name, NP_TO_ONNX[np.dtype(dtype)], list(shape)))
        return name

    def output(self, name, dtype, shape):
        self.outputs.append(helper.make_tensor_value_info(name, NP_TO_ONNX[np.dtype(dtype)], list(shape)))

    def node(self, op, inputs, output=None, **attrs):
        output = output or self.name(op.lower())
        self.nodes.append(helper.make_node(op, inputs, [output], name=self.name(op), **attrs))
        return output

    def dequantize(self, x, scale, zero_point, axis=None):
        attrs = {} if axis is None else {"axis": axis}
        return self.node("DequantizeLinear", [x, self.constant("scale", scale), self.constant("zero_point", zero_point)],
                         **attrs)

    def quantize(self, x, scale, zero_point, output=None):
        return self.node("QuantizeLinear", [x, self.constant("scale", np.float32(scale)),
                                            self.constant("zero_point", zero_point)], output)

    def save(self, directory, graph_name):
        graph = helper.make_graph(self.nodes, graph_name, self.inputs, self.outputs, self.initializers)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                                  producer_name="aotc make_qdq_models.py")
        model.ir_version = 7
        onnx.checker.check_model(model, full_check=True)
        os.makedirs(directory, exist_ok=True)
        onnx.save(model, os.path.join(directory, "model.onnx"))


def write_case(name, builder, inputs, output):
    directory = os.path.join(HERE, name)
    builder.save(directory, name)
    for i, value in enumerate(inputs):
        value.tofile(os.path.join(directory, "input_%d.bin" % i))
    output.tofile(os.path.join(directory, "output_0.bin"))
    print("%-18s %d nodes, output %s %s" % (name, len(builder.nodes), output.dtype, output.shape))


# ----------------------------------------------------------------------- the models

def quantized_conv(b, rng, x_q, x_scale, x_zero_point, in_channels, out_channels, kernel, stride, pad, group,
                   x_float_calibration, out_dtype, activation):
    """DQ(x) -> Conv(DQ(w) per channel, DQ(int32 bias)) -> activation -> Q: the graph
    nodes, the output's quantization, and a function computing the reference."""
    w = rng.normal(0, 0.4, (out_channels, in_channels // group, kernel, kernel)).astype(np.float32)
    bias = rng.normal(0, 0.3, out_channels).astype(np.float32)
    w_q, w_scales, w_zero_points = weight_params(w, 0)
    b_q, b_scales = bias_int32(bias, x_scale, w_scales)
    calibration = activation(conv2d(x_float_calibration, w, bias, stride, pad, group))
    y_scale, y_zero_point = activation_params(calibration, out_dtype)

    x_f = b.dequantize(x_q, np.float32(x_scale), x_zero_point)
    w_f = b.dequantize(b.constant("w", w_q), w_scales, w_zero_points, axis=0)
    b_f = b.dequantize(b.constant("bias", b_q), b_scales, np.zeros(out_channels, np.int32), axis=0)
    conv = b.node("Conv", [x_f, w_f, b_f], kernel_shape=[kernel, kernel], strides=[stride, stride],
                  pads=[pad] * 4, group=group)

    def reference(x_q_value):
        x = dequantize(x_q_value, x_scale, x_zero_point)
        w_ref = dequantize(w_q, w_scales, w_zero_points, axis=0)
        b_ref = dequantize(b_q, b_scales, np.zeros(out_channels, np.int32), axis=0)
        return activation(conv2d(x, w_ref, b_ref, stride, pad, group))

    return conv, (y_scale, y_zero_point), reference, calibration


def make_conv_per_channel(rng):
    """int8 [1,3,10,10] -> DQ -> Conv 3x3 pad 1 (8 channels, per-channel w, bias) -> Q int8."""
    b = GraphBuilder()
    x_float = rng.normal(0, 1, (1, 3, 10, 10)).astype(np.float32)
    x_scale, x_zero_point = activation_params(x_float, np.int8)
    x_q = quantize(x_float, x_scale, x_zero_point, np.int8)
    x = b.input("x", np.int8, x_q.shape)
    conv, (y_scale, y_zero_point), reference, _ = quantized_conv(
        b, rng, x, x_scale, x_zero_point, 3, 8, 3, 1, 1, 1, dequantize(x_q, x_scale, x_zero_point), np.int8,
        lambda v: v)
    b.quantize(conv, y_scale, y_zero_point, "y")
    y = quantize(reference(x_q), y_scale, y_zero_point, np.int8)
    b.output("y", np.int8, y.shape)
    write_case("conv_per_channel", b, [x_q], y)


def make_conv_chain(rng):
    """float [1,3,12,12] -> Q uint8 -> DQ -> Conv 3x3 s2 (3->8) -> Relu -> Q -> DQ ->
    depthwise Conv 3x3 (8 groups) -> Clip(0, 6) -> Q -> DQ -> float [1,8,6,6]."""
    b = GraphBuilder()
    x_float = rng.normal(0, 1, (1, 3, 12, 12)).astype(np.float32)
    x_scale, x_zero_point = activation_params(x_float, np.uint8)
    x = b.input("x", np.float32, x_float.shape)
    x_q_name = b.quantize(x, x_scale, x_zero_point)
    x_q = quantize(x_float, x_scale, x_zero_point, np.uint8)

    conv1, (s1, z1), ref1, cal1 = quantized_conv(b, rng, x_q_name, x_scale, x_zero_point, 3, 8, 3, 2, 1, 1,
                                                 dequantize(x_q, x_scale, x_zero_point), np.uint8, relu)
    h_q_name = b.quantize(b.node("Relu", [conv1]), s1, z1)
    h_q = quantize(ref1(x_q), s1, z1, np.uint8)

    relu6 = lambda v: clip(v, 0, 6)  # noqa: E731
    conv2, (s2, z2), ref2, _ = quantized_conv(b, rng, h_q_name, s1, z1, 8, 8, 3, 1, 1, 8, cal1, np.uint8, relu6)
    clipped = b.node("Clip", [conv2, b.constant("min", np.float32(0)), b.constant("max", np.float32(6))])
    y_q_name = b.quantize(clipped, s2, z2)
    b.node("DequantizeLinear", [y_q_name, b.constant("scale", np.float32(s2)), b.constant("zero_point", z2)], "y")
    y = dequantize(quantize(ref2(h_q), s2, z2, np.uint8), s2, z2)
    b.output("y", np.float32, y.shape)
    write_case("conv_chain", b, [x_float], y)


def make_matmul_per_column(rng):
    """uint8 [2,4,16] -> DQ -> MatMul(DQ(int8 [16,12] per column)) -> Q uint8 [2,4,12]."""
    b = GraphBuilder()
    a_float = rng.normal(0.5, 1, (2, 4, 16)).astype(np.float32)
    a_scale, a_zero_point = activation_params(a_float, np.uint8)
    a_q = quantize(a_float, a_scale, a_zero_point, np.uint8)
    w = rng.normal(0, 0.3, (16, 12)).astype(np.float32)
    w_q, w_scales, w_zero_points = weight_params(w, 1)
    calibration = matmul(dequantize(a_q, a_scale, a_zero_point), w)
    y_scale, y_zero_point = activation_params(calibration, np.uint8)

    a = b.input("a", np.uint8, a_q.shape)
    product = b.node("MatMul", [b.dequantize(a, np.float32(a_scale), a_zero_point),
                                b.dequantize(b.constant("w", w_q), w_scales, w_zero_points, axis=1)])
    b.quantize(product, y_scale, y_zero_point, "y")
    reference = matmul(dequantize(a_q, a_scale, a_zero_point), dequantize(w_q, w_scales, w_zero_points, axis=1))
    y = quantize(reference, y_scale, y_zero_point, np.uint8)
    b.output("y", np.uint8, y.shape)
    write_case("matmul_per_column", b, [a_q], y)


def make_gemm_bias_relu(rng):
    """int8 [4,32] -> DQ -> Gemm(transB, DQ(int8 [10,32] per row of B), DQ(int32 bias))
    -> Relu -> Q int8 [4,10]."""
    b = GraphBuilder()
    a_float = rng.normal(0, 1, (4, 32)).astype(np.float32)
    a_scale, a_zero_point = activation_params(a_float, np.int8)
    a_q = quantize(a_float, a_scale, a_zero_point, np.int8)
    w = rng.normal(0, 0.2, (10, 32)).astype(np.float32)
    bias = rng.normal(0, 0.5, 10).astype(np.float32)
    w_q, w_scales, w_zero_points = weight_params(w, 0)
    b_q, b_scales = bias_int32(bias, a_scale, w_scales)
    a_ref = dequantize(a_q, a_scale, a_zero_point)
    y_scale, y_zero_point = activation_params(relu(matmul(a_ref, w.T, bias)), np.int8)

    a = b.input("a", np.int8, a_q.shape)
    gemm = b.node("Gemm", [b.dequantize(a, np.float32(a_scale), a_zero_point),
                           b.dequantize(b.constant("w", w_q), w_scales, w_zero_points, axis=0),
                           b.dequantize(b.constant("bias", b_q), b_scales, np.zeros(10, np.int32), axis=0)],
                  transB=1)
    b.quantize(b.node("Relu", [gemm]), y_scale, y_zero_point, "y")
    w_ref = dequantize(w_q, w_scales, w_zero_points, axis=0)
    b_ref = dequantize(b_q, b_scales, np.zeros(10, np.int32), axis=0)
    y = quantize(relu(matmul(a_ref, w_ref.T, b_ref)), y_scale, y_zero_point, np.int8)
    b.output("y", np.int8, y.shape)
    write_case("gemm_bias_relu", b, [a_q], y)


def make_add(rng):
    """int8 a [1,4,6,6] + int8 b [1,4,6,6], each DQ'd with its own scale -> Add -> Q int8."""
    b = GraphBuilder()
    a_float = rng.normal(0, 1, (1, 4, 6, 6)).astype(np.float32)
    b_float = rng.normal(0.3, 2, (1, 4, 6, 6)).astype(np.float32)
    a_scale, a_zero_point = activation_params(a_float, np.int8)
    b_scale, b_zero_point = activation_params(b_float, np.int8)
    a_q = quantize(a_float, a_scale, a_zero_point, np.int8)
    b_q = quantize(b_float, b_scale, b_zero_point, np.int8)
    a_ref, b_ref = dequantize(a_q, a_scale, a_zero_point), dequantize(b_q, b_scale, b_zero_point)
    total = a_ref + b_ref  # float32
    y_scale, y_zero_point = activation_params(total, np.int8)

    a = b.input("a", np.int8, a_q.shape)
    b_in = b.input("b", np.int8, b_q.shape)
    summed = b.node("Add", [b.dequantize(a, np.float32(a_scale), a_zero_point),
                            b.dequantize(b_in, np.float32(b_scale), b_zero_point)])
    b.quantize(summed, y_scale, y_zero_point, "y")
    y = quantize(total, y_scale, y_zero_point, np.int8)
    b.output("y", np.int8, y.shape)
    write_case("add", b, [a_q, b_q], y)


def main():
    rng = np.random.default_rng(20240607)
    make_conv_per_channel(rng)
    make_conv_chain(rng)
    make_matmul_per_column(rng)
    make_gemm_bias_relu(rng)
    make_add(rng)


if __name__ == "__main__":
    main()
