#!/usr/bin/python3
"""Int8 TFLite models with the architectures of Keras applications, as the TFLite converter
writes them, for measuring aotc's activation RAM against ST X-CUBE-AI's published figures
(issue #29, bench/memory/zoo_bench.py):

  mobilenet_v1_025_224_u8     MobileNet v1, alpha 0.25, 224x224x3 uint8 input then QUANTIZE
                              (uint8 -> int8), 1000 classes
  mobilenet_v2_035_224        MobileNet v2, alpha 0.35, 224x224x3 int8 input, 1000 classes
  mobilenet_v2_035_128        the same at 128x128x3
  mobilenet_v1_025_96_5class  MobileNet v1, alpha 0.25, 96x96x3 int8 input, 5 classes

    /usr/bin/python3 bench/memory/make_zoo_models.py OUT_DIR

and the same four with the explicit PADs folded into SAME padding (*_nopad, FOLDED_PAD below).

The layers are those of keras.applications.mobilenet / mobilenet_v2 once the converter has
folded each BatchNormalization into its convolution and fused the ReLU6 that follows:
the first convolution 3x3 stride 2 SAME; each stride-2 depthwise convolution preceded by
its ZeroPadding2D (an explicit PAD, ((0, 1), (0, 1)) for even sizes, as Keras's
correct_pad) and VALID, the stride-1 ones SAME; MobileNet v2's channels rounded as Keras's
_make_divisible (multiples of 8), its blocks' 1x1 expansion (x6, not in block 0), 3x3
depthwise, 1x1 linear projection and a residual ADD where the stride is 1 and the channels
agree; global average pooling (AVERAGE_POOL_2D over the whole map), FULLY_CONNECTED to the
classes (behind a RESHAPE to [1, C]) and SOFTMAX.

Weights are random (a fixed seed per model), per-channel int8 with zero point 0 and int32
biases, as the converter writes them. The scales are chosen from the expected magnitude of
each layer's real values so that activations stay spread over their range instead of
saturating or collapsing to a constant: each convolution's weight scale puts its
pre-activation at a standard deviation of about 2 (so ReLU6 clips a little), ReLU6 outputs
are quantized over [0, 6] (zero point -128, as the converter does), the linear ones over
+-4 standard deviations.
"""
import math, os, sys
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "tests", "difftest"))
import generate_tflite as g  # noqa: E402
from generate_tflite import Gen, Act  # noqa: E402

U8 = 3  # TensorType UINT8 (the writer names only the types it needed)
CODE_SPREAD = 73.0  # standard deviation of int8 codes drawn uniformly over [-127, 127]
PRE_ACTIVATION_STD = 2.0  # what each convolution's result is scaled to, before its ReLU6


class ZooGen(Gen):
    """Gen's flatbuffer writer and random draws, with the layers of the Keras MobileNets.
    rms[tensor] is the expected root mean square of a tensor's real values."""

    def __init__(s, seed, explicit_pad=True):
        super().__init__(seed)
        s.rms = {}
        s.explicit_pad = explicit_pad

    def tensor(s, shape, typ, scale, zp, rms, base, **kw):
        a = s.act_tensor(shape, typ, scale, zp, base=base, **kw)
        s.rms[a.idx] = rms
        return a

    def relu6_output(s, shape, pre_std, base):
        """A ReLU6 output: quantized over [0, 6], and the rms of a clipped N(0, pre_std^2)."""
        z = np.clip(np.random.default_rng(0).normal(0.0, pre_std, 100000), 0.0, 6.0)
        return s.tensor(shape, g.I8, 6.0 / 255.0, -128, float(np.sqrt(np.mean(z * z))), base)

    def linear_output(s, shape, std, base):
        return s.tensor(shape, g.I8, 8.0 * std / 255.0, 0, std, base)

    def weights_for(s, shape, channels, fan_in, x, target_std):
        """Per-channel int8 weights whose products with x sum to about target_std, and an int32
        bias of real standard deviation target_std / 4."""
        w = s.r.integers(-127, 128, size=shape).astype(np.int8)
        base = target_std / (math.sqrt(fan_in) * CODE_SPREAD * s.rms[x.idx])
        ws = [float(base * 10 ** s.r.uniform(-0.15, 0.15)) for _ in range(channels)]
        scales = [x.scale * v for v in ws]
        b = np.array([round(s.r.normal(0.0, target_std / 4) / sc) for sc in scales], np.int32)
        bi = s.m.t(s.name("bias"), g.I32, [channels], data=b.tobytes(), scale=scales, zp=[0] * channels)
        return w, ws, bi

    @staticmethod
    def out_size(h, k, stride, pad):
        return -(-h // stride) if pad == g.SAME else (h - k) // stride + 1

    def conv(s, x, oc, k, stride, pad, relu6, base):
        n, h, w, c = x.shape
        oh, ow = s.out_size(h, k, stride, pad), s.out_size(w, k, stride, pad)
        wt, ws, bi = s.weights_for([oc, k, k, c], oc, k * k * c, x, PRE_ACTIVATION_STD)
        wi = s.m.t(s.name(base + "_w"), g.I8, [oc, k, k, c], data=wt.tobytes(), scale=ws, zp=[0] * oc, qdim=0)
        y = s.relu6_output([n, oh, ow, oc], PRE_ACTIVATION_STD, base) if relu6 else \
            s.linear_output([n, oh, ow, oc], PRE_ACTIVATION_STD / 2, base)
        s.m.op(g.CONV_2D, [x.idx, wi, bi], [y.idx], g.OPT_CONV,
               [(0, 'i', pad), (1, 'i', stride), (2, 'i', stride), (3, 'i', g.ACT_RELU6 if relu6 else g.ACT_NONE),
                (4, 'i', 1), (5, 'i', 1)])
        return y

    def depthwise(s, x, stride, base):
        """3x3 depthwise + ReLU6; stride 2 behind Keras's ZeroPadding2D and VALID (or, without
        explicit_pad, SAME: the same padding where the size is even)."""
        n, h, w, c = x.shape
        pad = g.SAME
        if stride == 2 and not s.explicit_pad and (h % 2 or w % 2):
            raise ValueError("%s: SAME pads an odd map as (1, 1), not as ZeroPadding2D" % base)
        if stride == 2 and s.explicit_pad:
            x = s.zero_pad(x, ((h % 2, 1), (w % 2, 1)), base + "_pad")  # correct_pad
            h, w, pad = x.shape[1], x.shape[2], g.VALID
        oh, ow = s.out_size(h, 3, stride, pad), s.out_size(w, 3, stride, pad)
        wt, ws, bi = s.weights_for([1, 3, 3, c], c, 9, x, PRE_ACTIVATION_STD)
        wi = s.m.t(s.name(base + "_w"), g.I8, [1, 3, 3, c], data=wt.tobytes(), scale=ws, zp=[0] * c, qdim=3)
        y = s.relu6_output([n, oh, ow, c], PRE_ACTIVATION_STD, base)
        s.m.op(g.DEPTHWISE_CONV_2D, [x.idx, wi, bi], [y.idx], g.OPT_DW,
               [(0, 'i', pad), (1, 'i', stride), (2, 'i', stride), (3, 'i', 1), (4, 'i', g.ACT_RELU6),
                (5, 'i', 1), (6, 'i', 1)])
        return y

    def zero_pad(s, x, hw_pads, base):
        pads = [[0, 0], list(hw_pads[0]), list(hw_pads[1]), [0, 0]]
        shape = [d + a + b for d, (a, b) in zip(x.shape, pads)]
        y = s.tensor(shape, x.typ, x.scale, x.zp, s.rms[x.idx], base)
        s.m.op(g.PAD, [x.idx, s.m.const(s.name(base + "_pads"), np.array(pads, np.int32), g.I32)], [y.idx])
        return y

    def add(s, a, b, base):
        std = math.sqrt(s.rms[a.idx] ** 2 + s.rms[b.idx] ** 2)
        y = s.linear_output(a.shape, std, base)
        s.m.op(g.ADD, [a.idx, b.idx], [y.idx], g.OPT_ADD, [(0, 'i', g.ACT_NONE)])
        return y

    def model_input(s, size, uint8):
        """The image: int8 at scale 1/128; uint8 (zero point 128) then QUANTIZE to it."""
        shape = [1, size, size, 3]
        if not uint8:
            return s.tensor(shape, g.I8, 1.0 / 128, 0, CODE_SPREAD / 128, "input", inp=True)
        x = s.tensor(shape, U8, 1.0 / 128, 128, CODE_SPREAD / 128, "input", inp=True)
        y = s.tensor(shape, g.I8, 1.0 / 128, 0, CODE_SPREAD / 128, "input_int8")
        s.m.op(g.QUANTIZE, [x.idx], [y.idx])
        return y

    def classifier(s, x, classes):
        """GlobalAveragePooling2D, Dense(classes), softmax."""
        n, h, w, c = x.shape
        pooled = s.tensor([n, 1, 1, c], x.typ, x.scale, x.zp, s.rms[x.idx], "global_pool")
        s.m.op(g.AVERAGE_POOL_2D, [x.idx], [pooled.idx], g.OPT_POOL,
               [(0, 'i', g.VALID), (1, 'i', 1), (2, 'i', 1), (3, 'i', w), (4, 'i', h), (5, 'i', g.ACT_NONE)])
        flat = s.tensor([n, c], x.typ, x.scale, x.zp, s.rms[x.idx], "flatten")
        s.m.op(g.RESHAPE, [pooled.idx, s.const_i32([n, c])], [flat.idx])
        wt, ws, bi = s.weights_for([classes, c], classes, c, flat, PRE_ACTIVATION_STD)
        wi = s.m.t(s.name("logits_w"), g.I8, [classes, c], data=wt.tobytes(), scale=ws, zp=[0] * classes, qdim=0)
        logits = s.linear_output([n, classes], PRE_ACTIVATION_STD, "logits")
        s.m.op(g.FULLY_CONNECTED, [flat.idx, wi, bi], [logits.idx], g.OPT_FC, [(0, 'i', g.ACT_NONE)])
        probs = s.tensor([n, classes], g.I8, 1.0 / 256, -128, 0.0, "predictions", out=True)
        s.m.op(g.SOFTMAX, [logits.idx], [probs.idx], g.OPT_SOFTMAX, [(0, 'f', 1.0)])
        return probs


def mobilenet_v1(path, seed, size, alpha, classes, uint8_input, explicit_pad=True):
    """keras.applications.MobileNet: _conv_block then 13 _depthwise_conv_blocks."""
    m = ZooGen(seed, explicit_pad)
    x = m.model_input(size, uint8_input)
    x = m.conv(x, int(32 * alpha), 3, 2, g.SAME, True, "conv1")
    blocks = [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2)] + [(512, 1)] * 5 + [(1024, 2), (1024, 1)]
    for i, (filters, stride) in enumerate(blocks, 1):
        x = m.depthwise(x, stride, "conv_dw_%d" % i)
        x = m.conv(x, int(filters * alpha), 1, 1, g.SAME, True, "conv_pw_%d" % i)
    m.classifier(x, classes)
    m.m.build(path)


def make_divisible(v, divisor=8):
    """Keras's _make_divisible: the nearest multiple of divisor, never 10% below v."""
    new_v = max(divisor, int(v + divisor / 2) // divisor * divisor)
    return new_v + divisor if new_v < 0.9 * v else new_v


def mobilenet_v2(path, seed, size, alpha, classes, explicit_pad=True):
    """keras.applications.MobileNetV2: Conv1, 17 _inverted_res_blocks, Conv_1 (1280), head."""
    m = ZooGen(seed, explicit_pad)
    x = m.model_input(size, False)
    x = m.conv(x, make_divisible(32 * alpha), 3, 2, g.SAME, True, "Conv1")
    blocks = [(16, 1, 1), (24, 2, 6), (24, 1, 6), (32, 2, 6), (32, 1, 6), (32, 1, 6), (64, 2, 6)] + \
        [(64, 1, 6)] * 3 + [(96, 1, 6)] * 3 + [(160, 2, 6)] + [(160, 1, 6)] * 2 + [(320, 1, 6)]
    for block_id, (filters, stride, expansion) in enumerate(blocks):
        prefix = "block_%d" % block_id if block_id else "expanded_conv"
        inputs, in_channels = x, x.shape[3]
        if block_id:
            x = m.conv(x, expansion * in_channels, 1, 1, g.SAME, True, prefix + "_expand")
        x = m.depthwise(x, stride, prefix + "_depthwise")
        out_channels = make_divisible(int(filters * alpha))
        x = m.conv(x, out_channels, 1, 1, g.SAME, False, prefix + "_project")
        if in_channels == out_channels and stride == 1:
            x = m.add(inputs, x, prefix + "_add")
    x = m.conv(x, make_divisible(1280 * alpha) if alpha > 1.0 else 1280, 1, 1, g.SAME, True, "Conv_1")
    m.classifier(x, classes)
    m.m.build(path)


MODELS = {
    "mobilenet_v1_025_224_u8": lambda p: mobilenet_v1(p, 2901, 224, 0.25, 1000, True),
    "mobilenet_v2_035_224": lambda p: mobilenet_v2(p, 2902, 224, 0.35, 1000),
    "mobilenet_v2_035_128": lambda p: mobilenet_v2(p, 2903, 128, 0.35, 1000),
    "mobilenet_v1_025_96_5class": lambda p: mobilenet_v1(p, 2904, 96, 0.25, 5, False),
}
# The same models with each ZeroPadding2D folded into its depthwise convolution as SAME
# padding (what the converter writes for padding='same'): every map a stride-2 layer reads
# has an even size here, so SAME pads (0, 1) as correct_pad does and the weights are drawn
# in the same order: the outputs are those of the models above, with no PAD copies. They
# show what the PAD operators cost in RAM.
FOLDED_PAD = {
    "mobilenet_v1_025_224_u8_nopad": lambda p: mobilenet_v1(p, 2901, 224, 0.25, 1000, True, False),
    "mobilenet_v2_035_224_nopad": lambda p: mobilenet_v2(p, 2902, 224, 0.35, 1000, False),
    "mobilenet_v2_035_128_nopad": lambda p: mobilenet_v2(p, 2903, 128, 0.35, 1000, False),
    "mobilenet_v1_025_96_5class_nopad": lambda p: mobilenet_v1(p, 2904, 96, 0.25, 5, False, False),
}


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make_zoo_models.py OUT_DIR")
    os.makedirs(sys.argv[1], exist_ok=True)
    for name, make in list(MODELS.items()) + list(FOLDED_PAD.items()):
        path = os.path.join(sys.argv[1], name + ".tflite")
        make(path)
        print("%s: %d bytes" % (path, os.path.getsize(path)))


if __name__ == "__main__":
    main()
