#!/usr/bin/python3
"""Small TFLite models for the wrong answers of issue #26, each the smallest form of a case
found in a real model (see README.md beside this script). Writes <name>.tflite here.

    /usr/bin/python3 tests/models/fidelity/make_fidelity_models.py

Needs Debian's python3-flatbuffers and numpy. The reference outputs come from TensorFlow
Lite Micro itself (tests/models/make_tflm_references.sh), never from aotc."""
import os, sys
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "bad"))
from tflite_writer import M, F32, I16, I32, I8  # noqa: E402

ADD, CONV_2D, FULLY_CONNECTED, MUL, SOFTMAX, PAD, MEAN = 0, 3, 9, 18, 25, 34, 40
CONV_2D_OPTIONS, ADD_OPTIONS, FULLY_CONNECTED_OPTIONS, SOFTMAX_OPTIONS, MUL_OPTIONS, REDUCER_OPTIONS = 1, 11, 8, 9, 21, 27
VALID = 1
RELU = 1
rng = np.random.default_rng(26)


def int8s(shape):
    return rng.integers(-128, 128, size=shape, dtype=np.int64).astype(np.int8)


def mean_model(name, hw, channels, keep_dims):
    """A global average pool as converters write it: MEAN over height and width, the input's
    scale and zero point kept (MobileNet v1/v2 classifiers)."""
    m = M()
    q = dict(scale=[0.023529], zp=[-128])
    x = m.t("x", I8, [1, hw, hw, channels], inp=True, **q)
    axis = m.const("axis", np.array([1, 2], np.int32), I32)
    out_shape = [1, 1, 1, channels] if keep_dims else [1, channels]
    y = m.t("y", I8, out_shape, out=True, **q)
    m.op(MEAN, [x, axis], [y], REDUCER_OPTIONS, [(0, 'b', int(keep_dims))])
    m.build(os.path.join(here, name + ".tflite"))


def classifier_head(name):
    """MEAN (shared scale) -> FULLY_CONNECTED -> SOFTMAX: a MobileNet head, where one LSB
    off in the pool becomes several at the output."""
    m = M()
    q = dict(scale=[0.023529], zp=[-128])
    x = m.t("x", I8, [1, 7, 7, 256], inp=True, **q)
    axis = m.const("axis", np.array([1, 2], np.int32), I32)
    pooled = m.t("pooled", I8, [1, 256], **q)
    m.op(MEAN, [x, axis], [pooled], REDUCER_OPTIONS, [(0, 'b', 0)])
    # Rows of zero mean: the logits then depend on how the pooled values differ, not on
    # their common level, and stay within a few units of each other (softmax unsaturated).
    w = int8s([10, 256]).astype(np.int64)
    w = np.clip(w - np.round(w.mean(axis=1, keepdims=True)).astype(np.int64), -127, 127).astype(np.int8)
    w = m.t("w", I8, [10, 256], data=w.tobytes(), scale=[0.0041], zp=[0])
    b = m.t("b", I32, [10], data=rng.integers(-200, 200, size=10).astype(np.int32).tobytes(),
            scale=[0.023529 * 0.0041], zp=[0])
    logits = m.t("logits", I8, [1, 10], scale=[0.05], zp=[3])
    m.op(FULLY_CONNECTED, [pooled, w, b], [logits], FULLY_CONNECTED_OPTIONS, [(0, 'b', 0)])
    y = m.t("y", I8, [1, 10], out=True, scale=[1.0 / 256], zp=[-128])
    m.op(SOFTMAX, [logits], [y], SOFTMAX_OPTIONS, [(0, 'f', 1.0)])
    m.build(os.path.join(here, name + ".tflite"))


def folded_batch_norm(name):
    """x * gamma + beta with a fused RELU, gamma and beta per channel (a batch norm folded
    by the converter in a MiniResNet audio classifier): MUL, then ADD with RELU."""
    m = M()
    shape = [1, 16, 13, 64]
    x = m.t("x", I8, shape, inp=True, scale=[0.0473], zp=[-3])
    gamma = m.t("gamma", I8, [64], data=int8s([64]).tobytes(), scale=[0.0112], zp=[0])
    scaled = m.t("scaled", I8, shape, scale=[0.0515], zp=[7])
    m.op(MUL, [x, gamma], [scaled], MUL_OPTIONS, [(0, 'b', 0)])
    beta = m.t("beta", I8, [64], data=int8s([64]).tobytes(), scale=[0.0194], zp=[-20])
    y = m.t("y", I8, shape, out=True, scale=[0.0362], zp=[-128])
    m.op(ADD, [scaled, beta], [y], ADD_OPTIONS, [(0, 'b', RELU)])
    m.build(os.path.join(here, name + ".tflite"))


def pad_mul(name):
    """PAD, then MUL by per-channel constants into another quantization (found by
    tests/difftest): the padding is the PAD output's zero point, whatever MUL's is."""
    m = M()
    x = m.t("x", I8, [1, 6, 6, 16], inp=True, scale=[0.0152], zp=[8])
    pads = m.const("pads", np.array([[0, 0], [1, 2], [2, 1], [0, 0]], np.int32), I32)
    padded = m.t("padded", I8, [1, 9, 9, 16], scale=[0.0152], zp=[8])
    m.op(PAD, [x, pads], [padded])
    k = m.t("k", I8, [16], data=int8s([16]).tobytes(), scale=[0.0087], zp=[-1])
    y = m.t("y", I8, [1, 9, 9, 16], out=True, scale=[0.0046], zp=[61])
    m.op(MUL, [padded, k], [y], MUL_OPTIONS, [(0, 'b', 0)])
    m.build(os.path.join(here, name + ".tflite"))


def weights16x8(shape, channels):
    """int8 weights quantized per output channel (zero point 0), as for a 16x8 kernel."""
    w = rng.integers(-127, 128, size=shape).astype(np.int8)
    scales = [float(v) for v in 10 ** rng.uniform(-3.5, -2.5, size=channels)]
    return w.tobytes(), scales


def conv16_no_bias(name):
    """A 16x8 CONV_2D (int16 activations, int8 weights) without a bias: TFLite Micro sums
    in int64 and requantizes with its 64-bit MultiplyByQuantizedMultiplier."""
    m = M()
    x = m.t("x", I16, [1, 6, 6, 8], inp=True, scale=[0.00031], zp=[0])
    w, ws = weights16x8([16, 3, 3, 8], 16)
    w = m.t("w", I8, [16, 3, 3, 8], data=w, scale=ws, zp=[0] * 16)
    y = m.t("y", I16, [1, 4, 4, 16], out=True, scale=[0.0021], zp=[0])
    m.op(CONV_2D, [x, w, -1], [y], CONV_2D_OPTIONS, [(0, 'i', VALID), (1, 'i', 1), (2, 'i', 1), (3, 'i', 0)])
    m.build(os.path.join(here, name + ".tflite"))


def fc16_no_bias(name, int32_accumulator):
    """A 16x8 FULLY_CONNECTED without a bias: summed in int64, or in int32 when its
    quantized_bias_type (options field 4) is INT32."""
    m = M()
    x = m.t("x", I16, [4, 32], inp=True, scale=[0.00027], zp=[0])
    w, ws = weights16x8([64, 32], 64)
    w = m.t("w", I8, [64, 32], data=w, scale=ws, zp=[0] * 64)
    y = m.t("y", I16, [4, 64], out=True, scale=[0.00093], zp=[0])
    options = [(0, 'i', 0), (2, 'b', 0)] + ([(4, 'i', I32)] if int32_accumulator else [])
    m.op(FULLY_CONNECTED, [x, w, -1], [y], FULLY_CONNECTED_OPTIONS, options)
    m.build(os.path.join(here, name + ".tflite"))


mean_model("mean_7x7_shared_scale", 7, 512, True)
mean_model("mean_3x3_shared_scale", 3, 1280, False)
classifier_head("mean_fc_softmax_head")
folded_batch_norm("folded_bn_mul_add_relu")
pad_mul("pad_mul_requant")
conv16_no_bias("conv16_no_bias")
fc16_no_bias("fc16_no_bias", False)
fc16_no_bias("fc16_no_bias_acc32", True)


AVERAGE_POOL_2D, MAX_POOL_2D, POOL_2D_OPTIONS, SAME, RELU6 = 1, 17, 5, 0, 3


def int16s(shape):
    return rng.integers(-32768, 32768, size=shape, dtype=np.int64).astype(np.int16)


def mul16(name):
    """An int16 MUL (16x8 models) by a per-channel constant, broadcast, with a fused RELU:
    refused by aotc until issue #26; TFLite Micro computes it as the int8 MUL with zero
    points 0."""
    m = M()
    x = m.t("x", I16, [1, 5, 7, 16], inp=True, scale=[0.00042], zp=[0])
    k = m.t("k", I16, [16], data=int16s([16]).tobytes(), scale=[0.000061], zp=[0])
    y = m.t("y", I16, [1, 5, 7, 16], out=True, scale=[0.00017], zp=[0])
    m.op(MUL, [x, k], [y], MUL_OPTIONS, [(0, 'b', RELU)])
    m.build(os.path.join(here, name + ".tflite"))


def pool16(name):
    """int16 AVERAGE_POOL_2D (3x3, stride 2, SAME: windows clipped at the edges, rounding
    half away from zero) then MAX_POOL_2D (2x2, stride 1, VALID) with a fused RELU6."""
    m = M()
    q = dict(scale=[0.00025], zp=[0])
    x = m.t("x", I16, [1, 9, 11, 8], inp=True, **q)
    avg = m.t("avg", I16, [1, 5, 6, 8], **q)
    m.op(AVERAGE_POOL_2D, [x], [avg], POOL_2D_OPTIONS,
         [(0, 'b', SAME), (1, 'i', 2), (2, 'i', 2), (3, 'i', 3), (4, 'i', 3), (5, 'b', 0)])
    y = m.t("y", I16, [1, 4, 5, 8], out=True, **q)
    m.op(MAX_POOL_2D, [avg], [y], POOL_2D_OPTIONS,
         [(0, 'b', VALID), (1, 'i', 1), (2, 'i', 1), (3, 'i', 2), (4, 'i', 2), (5, 'b', RELU6)])
    m.build(os.path.join(here, name + ".tflite"))


def softmax16(name, beta):
    """An int16 SOFTMAX (TFLite Micro's SoftmaxInt16: exp and 1 / (1 + x) tables with
    interpolation) over 40 classes, rows of 3 x 5."""
    m = M()
    x = m.t("x", I16, [3, 5, 40], inp=True, scale=[0.00021], zp=[0])
    y = m.t("y", I16, [3, 5, 40], out=True, scale=[1.0 / 32768], zp=[0])
    m.op(SOFTMAX, [x], [y], SOFTMAX_OPTIONS, [(0, 'f', beta)])
    m.build(os.path.join(here, name + ".tflite"))


LOGISTIC, TANH = 14, 28


def table16_large_scale(name, code, scale):
    """int16 TANH or LOGISTIC of an input whose scale is above 32767 / (3 * 4096): the table
    look-up multiplier stays above 32767, which TFLite Micro uses unchanged (found by the
    TFLite differential test; aotc refused it)."""
    m = M()
    x = m.t("x", I16, [2, 64], inp=True, scale=[scale], zp=[0])
    y = m.t("y", I16, [2, 64], out=True, scale=[1.0 / 32768], zp=[0])
    m.op(code, [x], [y])
    m.build(os.path.join(here, name + ".tflite"))


HARD_SWISH = 117


def hard_swish_far_scales(name, input_scale, output_scale):
    """int8 HARD_SWISH whose 16-bit rounding shift is beyond 15: an output scale over 512 times
    the input's, or an input scale below 2^-15 / 85 (the reluish multiplier's shift). TFLite
    Micro's int16 RoundingDivideByPOT then keeps only the sign (found by the TFLite differential
    test; aotc refused it)."""
    m = M()
    x = m.t("x", I8, [2, 64], inp=True, scale=[input_scale], zp=[3])
    y = m.t("y", I8, [2, 64], out=True, scale=[output_scale], zp=[-5])
    m.op(HARD_SWISH, [x], [y])
    m.build(os.path.join(here, name + ".tflite"))


mul16("mul16_relu")
pool16("pool16_avg_max")
softmax16("softmax16", 1.0)
softmax16("softmax16_beta", 0.37)
table16_large_scale("tanh16_large_scale", TANH, 3.9)
table16_large_scale("logistic16_large_scale", LOGISTIC, 5.1)


def fc16_per_tensor(name):
    """A 16x8 FULLY_CONNECTED with per-tensor weights, a fused RELU6 and an int32 accumulator,
    with the scales of the TFLite differential test's seed 1058923: TFLite Micro multiplies the
    input and weight scales in float before dividing by the output's in double
    (GetQuantizedConvolutionMultipler), a multiplier 349 units below the double product's,
    which moves 16-bit outputs within a few thousandths of a half by one."""
    m = M()
    x = m.t("x", I16, [1062, 4], inp=True, scale=[5.5723274e-05], zp=[0])
    w = m.t("w", I8, [14, 4], data=rng.integers(-127, 128, size=[14, 4]).astype(np.int8).tobytes(), scale=[0.01021496], zp=[0])
    y = m.t("y", I16, [1062, 14], out=True, scale=[5.1995496e-05], zp=[0])
    m.op(FULLY_CONNECTED, [x, w, -1], [y], FULLY_CONNECTED_OPTIONS, [(0, 'b', RELU6), (2, 'b', 0), (4, 'i', I32)])
    m.build(os.path.join(here, name + ".tflite"))


hard_swish_far_scales("hswish_large_out_scale", 0.05, 31.0)
hard_swish_far_scales("hswish_tiny_in_scale", 1.5e-7, 2.0e-7)
fc16_per_tensor("fc16_per_tensor")
