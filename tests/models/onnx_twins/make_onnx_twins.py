"""Writes ONNX int8 twins of the four int8 MLPerf Tiny TFLite models (see README.md).

Each twin is the TFLite network with the same weights, scales and zero points, written the
way PyTorch / ONNX Runtime quantization writes int8 models: channels-first (NCHW), opset 13,
in two forms:
  <model>_qlinear/model.onnx  QLinearConv for CONV_2D and DEPTHWISE_CONV_2D; the other
                              quantized operators as DequantizeLinear -> float op -> QuantizeLinear
  <model>_qdq/model.onnx      every quantized operator as DequantizeLinear -> float op ->
                              QuantizeLinear (what ONNX Runtime's quantize_static writes)
and next to each model input_0.bin and input_1.bin: the NCHW transposes of the TFLite
reference inputs ../shared/models/mlperf-tiny/reference/<model>/input_{0,1}.bin. The
reference outputs are ONNX Runtime's (ort_reference.js).

  /usr/bin/python3 tests/models/onnx_twins/make_onnx_twins.py   (from the project root)

Needs numpy, onnx and flatbuffers, and flatc to generate the TFLite schema's Python reader
(into a temporary directory; not committed).
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, '..', '..', '..'))
MLPERF = os.path.normpath(os.path.join(ROOT, '..', 'shared', 'models', 'mlperf-tiny'))
MODELS = ['kws_ref_model', 'vww_96_int8', 'pretrainedResnet_quant', 'ad01_int8']
CASES = 2


def load_schema():
    """The TFLite schema's generated Python object API (aotc.tfl.*), from flatc."""
    out = tempfile.mkdtemp(prefix='tflite-schema-')
    subprocess.run(['flatc', '--python', '--gen-object-api', '-o', out,
                    os.path.join(ROOT, 'aot', 'import', 'tflite_schema.fbs')], check=True)
    sys.path.insert(0, out)
    import aotc.tfl.Model as tfl_model
    from aotc.tfl.BuiltinOperator import BuiltinOperator
    from aotc.tfl.ActivationFunctionType import ActivationFunctionType
    from aotc.tfl.Padding import Padding
    from aotc.tfl.TensorType import TensorType
    return tfl_model, BuiltinOperator, ActivationFunctionType, Padding, TensorType


tfl_model, BuiltinOperator, ActivationFunctionType, Padding, TensorType = load_schema()
OP_NAMES = {v: k for k, v in vars(BuiltinOperator).items() if not k.startswith('_')}
NUMPY_TYPES = {TensorType.INT8: np.int8, TensorType.INT32: np.int32, TensorType.INT64: np.int64}


class TfliteModel:
    def __init__(self, path):
        buf = open(path, 'rb').read()
        self.model = tfl_model.ModelT.InitFromObj(tfl_model.Model.GetRootAsModel(buf, 0))
        assert len(self.model.subgraphs) == 1, path
        self.graph = self.model.subgraphs[0]

    def op_name(self, op):
        code = self.model.operatorCodes[op.opcodeIndex]
        # Old models keep the code only in deprecated_builtin_code.
        return OP_NAMES[max(code.builtinCode, code.deprecatedBuiltinCode)]

    def tensor(self, index):
        return self.graph.tensors[index]

    def data(self, index):
        t = self.tensor(index)
        raw = bytes(bytearray(self.model.buffers[t.buffer].data))
        return np.frombuffer(raw, dtype=NUMPY_TYPES[t.type]).reshape(t.shape)

    def scales(self, index):
        return np.asarray(self.tensor(index).quantization.scale, dtype=np.float32)

    def zero_points(self, index):
        return np.asarray(self.tensor(index).quantization.zeroPoint, dtype=np.int64)


def same_padding(size, kernel, stride, dilation):
    """TFLite's SAME padding along one axis: (before, after); the extra row goes after."""
    out = (size + stride - 1) // stride
    total = max((out - 1) * stride + (kernel - 1) * dilation + 1 - size, 0)
    return total // 2, total - total // 2


def round_half_away(v):
    """TfLiteRound (std::round): half away from zero."""
    return np.sign(v) * np.floor(np.abs(v) + 0.5)


def activation_range(kind, scale, zero_point):
    """The int8 output range of a fused activation, as TFLite's
    CalculateActivationRangeQuantized computes it."""
    lo, hi = -128, 127
    if kind in (ActivationFunctionType.RELU, ActivationFunctionType.RELU6):
        lo = max(lo, zero_point + int(round_half_away(0.0 / scale)))
    if kind == ActivationFunctionType.RELU6:
        hi = min(hi, zero_point + int(round_half_away(6.0 / scale)))
    if kind not in (ActivationFunctionType.NONE, ActivationFunctionType.RELU, ActivationFunctionType.RELU6):
        raise ValueError(f'fused activation {kind} not handled')
    return lo, hi


class OnnxWriter:
    """Builds one ONNX graph from a TFLite model; `form` is 'qlinear' or 'qdq'."""

    def __init__(self, tfl, form):
        self.tfl = tfl
        self.form = form
        self.nodes = []
        self.initializers = []
        self.names = {}  # TFLite tensor index -> ONNX int8 tensor name (NCHW for 4-D)
        self.counter = 0

    def fresh(self, stem):
        self.counter += 1
        return f'{stem}_{self.counter}'

    def const(self, stem, array):
        name = self.fresh(stem)
        self.initializers.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def node(self, op, inputs, stem, **attrs):
        out = self.fresh(stem)
        self.nodes.append(helper.make_node(op, inputs, [out], name=out, **attrs))
        return out

    def quant_params(self, index):
        """Scalar scale and zero point of an activation tensor."""
        scales, zps = self.tfl.scales(index), self.tfl.zero_points(index)
        assert scales.size == 1 and zps.size == 1, f'tensor {index} is quantized per axis'
        return np.float32(scales[0]), int(zps[0])

    def dequantize(self, index):
        s, z = self.quant_params(index)
        return self.node('DequantizeLinear', [self.names[index], self.const('scale', s), self.const('zp', np.int8(z))],
                         'dq')

    def quantize(self, value, index):
        s, z = self.quant_params(index)
        out = self.node('QuantizeLinear', [value, self.const('scale', s), self.const('zp', np.int8(z))], 'q')
        self.names[index] = out
        return out

    def float_activation(self, value, kind, out_index):
        """The fused activation before QuantizeLinear in float, if it clamps anything in int8."""
        s, z = self.quant_params(out_index)
        lo, hi = activation_range(kind, s, z)
        if hi < 127:
            return self.node('Clip', [value, self.const('min', np.float32(0)), self.const('max', np.float32(6))], 'relu6')
        if lo > -128:
            return self.node('Relu', [value], 'relu')
        return value

    def weight_dequantize(self, weights, scales, axis):
        inputs = [self.const('w', weights), self.const('w_scale', scales if scales.size > 1 else scales[0]),
                  self.const('w_zp', np.zeros(scales.shape, np.int8) if scales.size > 1 else np.int8(0))]
        return self.node('DequantizeLinear', inputs, 'dq_w', **({'axis': axis} if scales.size > 1 else {}))

    def bias_dequantize(self, bias, x_scale, w_scales):
        # At the accumulator's scale float32(x_scale * w_scale[c]), as ONNX Runtime's quantizer writes it.
        scales = (np.float32(x_scale) * w_scales).astype(np.float32)
        inputs = [self.const('b', bias), self.const('b_scale', scales if scales.size > 1 else scales[0]),
                  self.const('b_zp', np.zeros(scales.shape, np.int32) if scales.size > 1 else np.int32(0))]
        return self.node('DequantizeLinear', inputs, 'dq_b', **({'axis': 0} if scales.size > 1 else {}))

    def conv(self, op, depthwise):
        tfl = self.tfl
        x, w, b = op.inputs
        y = op.outputs[0]
        opts = op.builtinOptions
        weights = tfl.data(w)
        # ONNX weights are [M, C/group, KH, KW]: TFLite's OHWI, or 1HWO for depthwise.
        weights = weights.transpose(3, 0, 1, 2) if depthwise else weights.transpose(0, 3, 1, 2)
        channels_in = tfl.tensor(x).shape[3]
        group = channels_in if depthwise else 1
        kh, kw = weights.shape[2:]
        in_h, in_w = tfl.tensor(x).shape[1:3]
        if opts.padding == Padding.SAME:
            top, bottom = same_padding(in_h, kh, opts.strideH, opts.dilationHFactor)
            left, right = same_padding(in_w, kw, opts.strideW, opts.dilationWFactor)
        else:
            top = bottom = left = right = 0
        attrs = dict(kernel_shape=[kh, kw], strides=[opts.strideH, opts.strideW], pads=[top, left, bottom, right],
                     dilations=[opts.dilationHFactor, opts.dilationWFactor], group=group)
        w_scales = tfl.scales(w)
        assert np.all(tfl.zero_points(w) == 0)
        if w_scales.size == 1:
            w_scales = np.full(weights.shape[0], w_scales[0], np.float32)
        bias = tfl.data(b).astype(np.int32)
        x_scale, x_zp = self.quant_params(x)
        y_scale, y_zp = self.quant_params(y)
        if self.form == 'qlinear':
            out = self.node('QLinearConv', [
                self.names[x], self.const('x_scale', x_scale), self.const('x_zp', np.int8(x_zp)),
                self.const('w', weights), self.const('w_scale', w_scales),
                self.const('w_zp', np.zeros(w_scales.shape, np.int8)),
                self.const('y_scale', y_scale), self.const('y_zp', np.int8(y_zp)),
                self.const('b', bias)], 'qconv', **attrs)
            lo, hi = activation_range(opts.fusedActivationFunction, y_scale, y_zp)
            if lo > -128 or hi < 127:
                out = self.node('Clip', [out, self.const('min', np.int8(lo)), self.const('max', np.int8(hi))], 'clip')
            self.names[y] = out
            return
        value = self.node('Conv', [self.dequantize(x), self.weight_dequantize(weights, w_scales, 0),
                                   self.bias_dequantize(bias, x_scale, w_scales)], 'conv', **attrs)
        self.quantize(self.float_activation(value, opts.fusedActivationFunction, y), y)

    def fully_connected(self, op):
        tfl = self.tfl
        x, w, b = op.inputs
        y = op.outputs[0]
        assert len(tfl.tensor(x).shape) == 2, 'FULLY_CONNECTED input must be 2-D here'
        weights = tfl.data(w)  # [out, in]: Gemm with transB = 1
        w_scales = tfl.scales(w)
        assert np.all(tfl.zero_points(w) == 0)
        x_scale, _ = self.quant_params(x)
        inputs = [self.dequantize(x), self.weight_dequantize(weights, w_scales, 0)]
        if b >= 0:
            inputs.append(self.bias_dequantize(tfl.data(b).astype(np.int32), x_scale, w_scales))
        value = self.node('Gemm', inputs, 'gemm', transB=1)
        self.quantize(self.float_activation(value, op.builtinOptions.fusedActivationFunction, y), y)

    def average_pool(self, op):
        tfl = self.tfl
        x, y = op.inputs[0], op.outputs[0]
        opts = op.builtinOptions
        in_h, in_w = tfl.tensor(x).shape[1:3]
        if opts.padding == Padding.SAME:
            top, bottom = same_padding(in_h, opts.filterHeight, opts.strideH, 1)
            left, right = same_padding(in_w, opts.filterWidth, opts.strideW, 1)
        else:
            top = bottom = left = right = 0
        # TFLite averages over the window's pixels inside the input: count_include_pad = 0.
        value = self.node('AveragePool', [self.dequantize(x)], 'avgpool',
                          kernel_shape=[opts.filterHeight, opts.filterWidth], strides=[opts.strideH, opts.strideW],
                          pads=[top, left, bottom, right])
        self.quantize(self.float_activation(value, opts.fusedActivationFunction, y), y)

    def softmax(self, op):
        assert op.builtinOptions.beta == 1.0
        value = self.node('Softmax', [self.dequantize(op.inputs[0])], 'softmax', axis=-1)
        self.quantize(value, op.outputs[0])

    def add(self, op):
        a, b = op.inputs
        value = self.node('Add', [self.dequantize(a), self.dequantize(b)], 'add')
        self.quantize(self.float_activation(value, op.builtinOptions.fusedActivationFunction, op.outputs[0]),
                      op.outputs[0])

    def reshape(self, op):
        tfl = self.tfl
        x, y = op.inputs[0], op.outputs[0]
        in_shape, out_shape = [int(d) for d in tfl.tensor(x).shape], [int(d) for d in tfl.tensor(y).shape]
        # TFLite flattens NHWC; the NCHW flatten is the same function only where H = W = 1
        # (true of all four models: each flattens after a global average pool).
        if not (len(in_shape) == 4 and in_shape[1] == in_shape[2] == 1 and out_shape == [in_shape[0], in_shape[3]]):
            raise ValueError(f'RESHAPE {in_shape} -> {out_shape} is not a flatten of a 1x1 feature map')
        assert self.quant_params(x) == self.quant_params(y)
        self.names[y] = self.node('Flatten', [self.names[x]], 'flatten', axis=1)

    def build(self, name):
        tfl = self.tfl
        (inp,), (outp,) = tfl.graph.inputs, tfl.graph.outputs
        in_shape = [int(d) for d in tfl.tensor(inp).shape]
        nchw = [in_shape[0], in_shape[3], in_shape[1], in_shape[2]] if len(in_shape) == 4 else in_shape
        self.names[inp] = 'input'
        for op in tfl.graph.operators:
            kind = tfl.op_name(op)
            if kind == 'CONV_2D':
                self.conv(op, depthwise=False)
            elif kind == 'DEPTHWISE_CONV_2D':
                self.conv(op, depthwise=True)
            elif kind == 'FULLY_CONNECTED':
                self.fully_connected(op)
            elif kind == 'AVERAGE_POOL_2D':
                self.average_pool(op)
            elif kind == 'SOFTMAX':
                self.softmax(op)
            elif kind == 'ADD':
                self.add(op)
            elif kind == 'RESHAPE':
                self.reshape(op)
            else:
                raise ValueError(f'{name}: TFLite operator {kind} not handled')
        # The graph output is the last node's output, renamed.
        last = self.names[outp]
        for n in self.nodes:
            n.input[:] = ['output' if i == last else i for i in n.input]
            n.output[:] = ['output' if o == last else o for o in n.output]
        graph = helper.make_graph(
            self.nodes, f'{name}_{self.form}',
            [helper.make_tensor_value_info('input', TensorProto.INT8, nchw)],
            [helper.make_tensor_value_info('output', TensorProto.INT8, [int(d) for d in tfl.tensor(outp).shape])],
            self.initializers)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', 13)],
                                  producer_name='aotc tests/models/onnx_twins/make_onnx_twins.py')
        model.ir_version = 7
        onnx.checker.check_model(model, full_check=True)
        return model, in_shape


def main():
    for name in MODELS:
        tfl = TfliteModel(os.path.join(MLPERF, name + '.tflite'))
        for form in ('qlinear', 'qdq'):
            model, in_shape = OnnxWriter(tfl, form).build(name)
            out_dir = os.path.join(HERE, f'{name}_{form}')
            os.makedirs(out_dir, exist_ok=True)
            onnx.save(model, os.path.join(out_dir, 'model.onnx'))
            for k in range(CASES):
                x = np.fromfile(os.path.join(MLPERF, 'reference', name, f'input_{k}.bin'), np.int8).reshape(in_shape)
                if x.ndim == 4:
                    x = x.transpose(0, 3, 1, 2)
                np.ascontiguousarray(x).tofile(os.path.join(out_dir, f'input_{k}.bin'))
            print(f'{name}_{form}: {len(model.graph.node)} nodes, '
                  f'{os.path.getsize(os.path.join(out_dir, "model.onnx"))} bytes')


if __name__ == '__main__':
    main()
