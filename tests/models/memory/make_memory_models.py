#!/usr/bin/python3
"""Small TFLite models for the memory work of issue #29: layers whose plan or lowering
changes how much RAM they take, each checked against TensorFlow Lite Micro's bytes.
Writes <name>.tflite here.

    /usr/bin/python3 tests/models/memory/make_memory_models.py

  pad_dw_stride2        int8 [1,12,12,8] -> PAD ((0,1),(0,1)) -> DEPTHWISE_CONV_2D 3x3 stride 2
                        VALID, RELU6: Keras's ZeroPadding2D before a stride-2 MobileNet layer.
  pad_conv_asymmetric   int8 (zero point -3) -> PADV2 with the zero point, ((2,1),(1,2)) ->
                        CONV_2D 3x3 VALID, per-channel weights.
  pad16_conv_stride2    int16 (16x8) -> PAD ((1,1),(1,1)) -> CONV_2D 3x3 stride 2 VALID.
  pad_conv_same         int8 PAD -> CONV_2D SAME: a PAD that stays (its convolution pads
                        itself too), for the same bytes either way.
  pad_shared            int8 PAD read by two DEPTHWISE_CONV_2D (VALID): stays.
  pad_add_pad           int8 x -> two PADs (other paddings) -> ADD -> MAX_POOL_2D: the ADD runs in
                        the kernel of one PAD, reading the other PAD's output, which dies
                        there: a kernel that fills the padding first must not write over it
                        (it did, difftest seed 1107125).
  dw_add_input          int8 x [1,6,6,4] -> DEPTHWISE_CONV_2D 3x3 SAME + ADD of a second graph
                        input e -> MAX_POOL_2D, with --io-in-arena: the ADD runs in the depthwise
                        kernel, whose output takes e's memory; it must then not also overlap
                        x, which the application writes beside e (it did, difftest seed 1108501).
  quantize_u8_dw        uint8 input [1,16,16,8] -> QUANTIZE to int8 (zero point 128 -> 0, the
                        scale kept) -> DEPTHWISE_CONV_2D 3x3 stride 2 SAME: the conversion of a uint8
                        camera image, computed in place over its input.

Needs Debian's python3-flatbuffers and numpy. The reference outputs come from TensorFlow Lite
Micro (tests/models/make_tflm_references.sh TFLM_RUN tests/models/memory), never from aotc."""
import os, sys
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "bad"))
from tflite_writer import M, I16, I32, I8  # noqa: E402

U8 = 3  # TensorType UINT8

ADD, CONV_2D, DEPTHWISE_CONV_2D, MAX_POOL_2D, PAD, PADV2, QUANTIZE = 0, 3, 4, 17, 34, 60, 114
CONV_2D_OPTIONS, DEPTHWISE_OPTIONS, POOL_OPTIONS, ADD_OPTIONS = 1, 2, 5, 11
SAME, VALID = 0, 1
NONE, RELU6 = 0, 3
rng = np.random.default_rng(29)


def weights(shape, channels, low=-3.0, high=-2.0):
    """int8 weights quantized per channel (zero point 0)."""
    w = rng.integers(-127, 128, size=shape).astype(np.int8)
    return w.tobytes(), [float(v) for v in 10 ** rng.uniform(low, high, size=channels)]


def bias(m, channels, in_scale, w_scales):
    values = rng.integers(-300, 300, size=channels).astype(np.int32)
    return m.t("b", I32, [channels], data=values.tobytes(), scale=[in_scale * s for s in w_scales], zp=[0] * channels)


def pads_const(m, pads):
    return m.const("pads", np.array(pads, np.int32), I32)


def pad_dw_stride2(name):
    m = M()
    q = dict(scale=[0.047], zp=[-20])
    x = m.t("x", I8, [1, 12, 12, 8], inp=True, **q)
    padded = m.t("padded", I8, [1, 13, 13, 8], **q)
    m.op(PAD, [x, pads_const(m, [[0, 0], [0, 1], [0, 1], [0, 0]])], [padded])
    w, ws = weights([1, 3, 3, 8], 8, -2.0, -1.0)
    w = m.t("w", I8, [1, 3, 3, 8], data=w, scale=ws, zp=[0] * 8, qdim=3)
    y = m.t("y", I8, [1, 6, 6, 8], out=True, scale=[0.039], zp=[-128])
    m.op(DEPTHWISE_CONV_2D, [padded, w, bias(m, 8, 0.047, ws)], [y], DEPTHWISE_OPTIONS,
         [(0, 'i', VALID), (1, 'i', 2), (2, 'i', 2), (3, 'i', 1), (4, 'i', RELU6), (5, 'i', 1), (6, 'i', 1)])
    m.build(os.path.join(here, name + ".tflite"))


def pad_conv_asymmetric(name):
    m = M()
    q = dict(scale=[0.031], zp=[-3])
    x = m.t("x", I8, [1, 7, 9, 5], inp=True, **q)
    padded = m.t("padded", I8, [1, 10, 12, 5], **q)
    value = m.t("value", I8, [1], data=np.array([-3], np.int8).tobytes(), scale=[0.031], zp=[-3])
    m.op(PADV2, [x, pads_const(m, [[0, 0], [2, 1], [1, 2], [0, 0]]), value], [padded])
    w, ws = weights([6, 3, 3, 5], 6)
    w = m.t("w", I8, [6, 3, 3, 5], data=w, scale=ws, zp=[0] * 6)
    y = m.t("y", I8, [1, 8, 10, 6], out=True, scale=[0.021], zp=[7])
    m.op(CONV_2D, [padded, w, bias(m, 6, 0.031, ws)], [y], CONV_2D_OPTIONS,
         [(0, 'i', VALID), (1, 'i', 1), (2, 'i', 1), (3, 'i', NONE)])
    m.build(os.path.join(here, name + ".tflite"))


def pad16_conv_stride2(name):
    m = M()
    q = dict(scale=[0.00031], zp=[0])
    x = m.t("x", I16, [1, 8, 8, 4], inp=True, **q)
    padded = m.t("padded", I16, [1, 10, 10, 4], **q)
    m.op(PAD, [x, pads_const(m, [[0, 0], [1, 1], [1, 1], [0, 0]])], [padded])
    w, ws = weights([8, 3, 3, 4], 8, -3.5, -2.5)
    w = m.t("w", I8, [8, 3, 3, 4], data=w, scale=ws, zp=[0] * 8)
    y = m.t("y", I16, [1, 4, 4, 8], out=True, scale=[0.0021], zp=[0])
    m.op(CONV_2D, [padded, w, -1], [y], CONV_2D_OPTIONS, [(0, 'i', VALID), (1, 'i', 2), (2, 'i', 2), (3, 'i', NONE)])
    m.build(os.path.join(here, name + ".tflite"))


def pad_conv_same(name):
    m = M()
    q = dict(scale=[0.05], zp=[11])
    x = m.t("x", I8, [1, 6, 6, 3], inp=True, **q)
    padded = m.t("padded", I8, [1, 8, 8, 3], **q)
    m.op(PAD, [x, pads_const(m, [[0, 0], [1, 1], [1, 1], [0, 0]])], [padded])
    w, ws = weights([4, 3, 3, 3], 4)
    w = m.t("w", I8, [4, 3, 3, 3], data=w, scale=ws, zp=[0] * 4)
    y = m.t("y", I8, [1, 8, 8, 4], out=True, scale=[0.02], zp=[-5])
    m.op(CONV_2D, [padded, w, bias(m, 4, 0.05, ws)], [y], CONV_2D_OPTIONS,
         [(0, 'i', SAME), (1, 'i', 1), (2, 'i', 1), (3, 'i', NONE)])
    m.build(os.path.join(here, name + ".tflite"))


def pad_shared(name):
    m = M()
    q = dict(scale=[0.04], zp=[5])
    x = m.t("x", I8, [1, 6, 6, 4], inp=True, **q)
    padded = m.t("padded", I8, [1, 8, 8, 4], **q)
    m.op(PAD, [x, pads_const(m, [[0, 0], [1, 1], [1, 1], [0, 0]])], [padded])
    branches = []
    for k in range(2):
        w, ws = weights([1, 3, 3, 4], 4, -2.0, -1.0)
        w = m.t("w%d" % k, I8, [1, 3, 3, 4], data=w, scale=ws, zp=[0] * 4, qdim=3)
        y = m.t("y%d" % k, I8, [1, 6, 6, 4], scale=[0.03], zp=[0])
        m.op(DEPTHWISE_CONV_2D, [padded, w, bias(m, 4, 0.04, ws)], [y], DEPTHWISE_OPTIONS,
             [(0, 'i', VALID), (1, 'i', 1), (2, 'i', 1), (3, 'i', 1), (4, 'i', NONE), (5, 'i', 1), (6, 'i', 1)])
        branches.append(y)
    z = m.t("z", I8, [1, 6, 6, 4], out=True, scale=[0.05], zp=[1])
    m.op(ADD, branches, [z], ADD_OPTIONS, [(0, 'i', NONE)])
    m.build(os.path.join(here, name + ".tflite"))


def quantize_u8_dw(name):
    m = M()
    x = m.t("x", U8, [1, 16, 16, 8], inp=True, scale=[0.0078], zp=[128])
    q = m.t("q", I8, [1, 16, 16, 8], scale=[0.0078], zp=[0])
    m.op(QUANTIZE, [x], [q])
    w, ws = weights([1, 3, 3, 8], 8, -2.0, -1.0)
    w = m.t("w", I8, [1, 3, 3, 8], data=w, scale=ws, zp=[0] * 8, qdim=3)
    y = m.t("y", I8, [1, 8, 8, 8], out=True, scale=[0.02], zp=[-10])
    m.op(DEPTHWISE_CONV_2D, [q, w, bias(m, 8, 0.0078, ws)], [y], DEPTHWISE_OPTIONS,
         [(0, 'i', SAME), (1, 'i', 2), (2, 'i', 2), (3, 'i', 1), (4, 'i', NONE), (5, 'i', 1), (6, 'i', 1)])
    m.build(os.path.join(here, name + ".tflite"))


def pad_add_pad(name):
    m = M()
    q = dict(scale=[0.04], zp=[-7])
    x = m.t("x", I8, [1, 6, 6, 4], inp=True, **q)
    a = m.t("a", I8, [1, 8, 8, 4], **q)
    m.op(PAD, [x, pads_const(m, [[0, 0], [1, 1], [1, 1], [0, 0]])], [a])
    b = m.t("b", I8, [1, 8, 8, 4], **q)
    m.op(PAD, [x, m.const("pads_b", np.array([[0, 0], [0, 2], [2, 0], [0, 0]], np.int32), I32)], [b])
    y = m.t("y", I8, [1, 8, 8, 4], scale=[0.07], zp=[3])
    m.op(ADD, [b, a], [y], ADD_OPTIONS, [(0, 'i', NONE)])
    z = m.t("z", I8, [1, 4, 4, 4], out=True, scale=[0.07], zp=[3])
    m.op(MAX_POOL_2D, [y], [z], POOL_OPTIONS, [(0, 'i', VALID), (1, 'i', 2), (2, 'i', 2), (3, 'i', 2), (4, 'i', 2), (5, 'i', NONE)])
    m.build(os.path.join(here, name + ".tflite"))


def dw_add_input(name):
    m = M()
    q = dict(scale=[0.05], zp=[2])
    x = m.t("x", I8, [1, 6, 6, 4], inp=True, **q)
    e = m.t("e", I8, [1, 6, 6, 4], inp=True, scale=[0.03], zp=[-4])
    w, ws = weights([1, 3, 3, 4], 4, -2.0, -1.0)
    w = m.t("w", I8, [1, 3, 3, 4], data=w, scale=ws, zp=[0] * 4, qdim=3)
    d = m.t("d", I8, [1, 6, 6, 4], scale=[0.06], zp=[-1])
    m.op(DEPTHWISE_CONV_2D, [x, w, bias(m, 4, 0.05, ws)], [d], DEPTHWISE_OPTIONS,
         [(0, 'i', SAME), (1, 'i', 1), (2, 'i', 1), (3, 'i', 1), (4, 'i', NONE), (5, 'i', 1), (6, 'i', 1)])
    s_ = m.t("s", I8, [1, 6, 6, 4], scale=[0.08], zp=[0])
    m.op(ADD, [d, e], [s_], ADD_OPTIONS, [(0, 'i', NONE)])
    z = m.t("z", I8, [1, 3, 3, 4], out=True, scale=[0.08], zp=[0])
    m.op(MAX_POOL_2D, [s_], [z], POOL_OPTIONS, [(0, 'i', VALID), (1, 'i', 2), (2, 'i', 2), (3, 'i', 2), (4, 'i', 2), (5, 'i', NONE)])
    m.build(os.path.join(here, name + ".tflite"))


pad_dw_stride2("pad_dw_stride2")
pad_conv_asymmetric("pad_conv_asymmetric")
pad16_conv_stride2("pad16_conv_stride2")
pad_conv_same("pad_conv_same")
pad_shared("pad_shared")
quantize_u8_dw("quantize_u8_dw")
pad_add_pad("pad_add_pad")
dw_add_input("dw_add_input")
