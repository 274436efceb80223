#!/usr/bin/python3
"""Small TFLite models for the wrong answers of issue #26, each the smallest form of a case
found in a real model (see README.md beside this script). Writes <name>.tflite here.

    /usr/bin/python3 tests/models/fidelity/make_fidelity_models.py

Needs Debian's python3-flatbuffers and numpy. The reference outputs come from TensorFlow
Lite Micro itself (make_references.sh), never from aotc."""
import os, sys
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "bad"))
from tflite_writer import M, F32, I32, I8  # noqa: E402

ADD, FULLY_CONNECTED, MUL, SOFTMAX, MEAN = 0, 9, 18, 25, 40
ADD_OPTIONS, FULLY_CONNECTED_OPTIONS, SOFTMAX_OPTIONS, MUL_OPTIONS, REDUCER_OPTIONS = 11, 8, 9, 21, 27
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


mean_model("mean_7x7_shared_scale", 7, 512, True)
mean_model("mean_3x3_shared_scale", 3, 1280, False)
classifier_head("mean_fc_softmax_head")
folded_batch_norm("folded_bn_mul_add_relu")
