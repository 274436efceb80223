#!/usr/bin/python3
"""Random, valid, small quantized TFLite graphs for the differential test against TensorFlow
Lite Micro (difftest_tflite.py, issue #26). One seed gives one model, the same on every run:

    /usr/bin/python3 tests/difftest/generate_tflite.py SEED out.tflite   # prints its inputs/outputs

The graphs look like what converters write: int8 activations with per-tensor scale and zero
point, int8 weights (per-channel for CONV_2D / DEPTHWISE_CONV_2D and sometimes
FULLY_CONNECTED, zero point 0), int32 biases at input scale x weight scale, folded batch norms
as MUL + ADD with per-channel constants, fixed output quantizations where TFLite requires
them (SOFTMAX, LOGISTIC, TANH), the input's quantization kept where it must be (pooling,
PAD, RESHAPE, TRANSPOSE, CONCATENATION, STRIDED_SLICE), and int16 (16x8: zero point 0, int64
bias) sections entered and left through QUANTIZE for CONV_2D, FULLY_CONNECTED, ADD, SUB, MUL
the pools and SOFTMAX.
Scales are drawn over 1e-4..1 and zero points over the whole int8 range; output scales are
mostly derived from the expected range of the result (so outputs are not all saturated) and
sometimes drawn at random (so saturation is tested too). Needs numpy and python3-flatbuffers."""
import math, os, sys
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "models", "bad"))
from tflite_writer import M, I8, I16, I32, I64  # noqa: E402

# Builtin operator codes and BuiltinOptions union indices of the TFLite schema.
ADD, AVERAGE_POOL_2D, CONCATENATION, CONV_2D, DEPTHWISE_CONV_2D = 0, 1, 2, 3, 4
FULLY_CONNECTED, LOGISTIC, MAX_POOL_2D, MUL, RELU, RELU6, RESHAPE = 9, 14, 17, 18, 19, 21, 22
SOFTMAX, TANH, PAD, TRANSPOSE, MEAN, SUB, STRIDED_SLICE = 25, 28, 34, 39, 40, 41, 45
PADV2, SUM, LEAKY_RELU, QUANTIZE, HARD_SWISH = 60, 74, 98, 114, 117
OPT_CONV, OPT_DW, OPT_POOL, OPT_FC, OPT_SOFTMAX, OPT_CONCAT, OPT_ADD = 1, 2, 5, 8, 9, 10, 11
OPT_MUL, OPT_SUB, OPT_REDUCER, OPT_STRIDED_SLICE, OPT_LEAKY_RELU = 21, 28, 27, 32, 75
ACT_NONE, ACT_RELU, ACT_RELU_N1_TO_1, ACT_RELU6 = 0, 1, 2, 3
SAME, VALID = 0, 1
MAX_ELEMENTS = 4096


class Act:
    """An activation tensor: its index in the model, shape, type and quantization."""
    def __init__(s, idx, shape, typ, scale, zp):
        s.idx, s.shape, s.typ, s.scale, s.zp = idx, list(shape), typ, scale, zp


class Gen:
    def __init__(s, seed):
        s.r = np.random.default_rng(seed)
        s.m = M()
        s.n = 0
        s.ops = []  # names of the operators written, for the report

    # --- random quantities -------------------------------------------------------------
    def scale(s, lo=-4.0, hi=0.0):
        return float(10 ** s.r.uniform(lo, hi))

    def zp(s, typ):
        return 0 if typ == I16 else int(s.r.integers(-128, 128))

    def chance(s, p):
        return s.r.random() < p

    def pick(s, xs):
        return xs[int(s.r.integers(len(xs)))]

    def channels(s):
        """Mostly few channels; sometimes as many as a real layer's, for the kernels'
        vectorized paths and their remainders."""
        return int(s.r.integers(1, 17)) if s.chance(0.7) else int(s.r.integers(17, 65))

    def name(s, base):
        s.n += 1
        return "%s_%d" % (base, s.n)

    def act_tensor(s, shape, typ, scale, zp, out=False, inp=False, base="t"):
        idx = s.m.t(s.name(base), typ, shape, scale=[scale], zp=[zp], out=out, inp=inp)
        return Act(idx, shape, typ, scale, zp)

    def out_scale(s, typical_real):
        """A scale putting a result of typical magnitude typical_real at ~1/4 of the type's
        range, times a random factor; 15% of the time any scale at all."""
        if s.chance(0.15):
            return s.scale()
        return float(min(max(typical_real / 32.0 * 10 ** s.r.uniform(-1.0, 1.0), 1e-5), 2.0))

    def real_spread(s, a):
        """Typical magnitude of the real values of a random int tensor a (uniform inputs)."""
        return a.scale * (64.0 if a.typ == I8 else 16384.0)

    def like(s, a, shape=None):
        """An output tensor with a's quantization (ops that must keep it)."""
        return s.act_tensor(shape if shape is not None else a.shape, a.typ, a.scale, a.zp)

    def const_i32(s, vals):
        return s.m.const(s.name("c"), np.array(vals, np.int32), I32)

    def fused(s):
        return s.pick([ACT_NONE, ACT_NONE, ACT_RELU, ACT_RELU6, ACT_RELU_N1_TO_1])

    # --- operators ------------------------------------------------------------------------
    def conv_geometry(s, h, w):
        kh, kw = int(s.r.integers(1, 4)), int(s.r.integers(1, 4))
        sh, sw = int(s.r.integers(1, 3)), int(s.r.integers(1, 3))
        dh, dw = (int(s.r.integers(1, 3)), int(s.r.integers(1, 3))) if s.chance(0.3) else (1, 1)
        pad = s.pick([SAME, VALID])
        if pad == VALID:
            eh, ew = (kh - 1) * dh + 1, (kw - 1) * dw + 1
            if eh > h or ew > w:
                pad = SAME
        if pad == SAME:
            oh, ow = -(-h // sh), -(-w // sw)
        else:
            oh, ow = (h - ((kh - 1) * dh + 1)) // sh + 1, (w - ((kw - 1) * dw + 1)) // sw + 1
        return kh, kw, sh, sw, dh, dw, pad, oh, ow

    def weights(s, shape, channels):
        w = s.r.integers(-127, 128, size=shape).astype(np.int8)
        base = s.scale(-4, -0.5)
        ws = [float(base * 10 ** s.r.uniform(-1, 1)) for _ in range(channels)]
        return w, ws

    def bias(s, channels, scales, typ, acc_typical):
        """A bias of `channels` values, at `scales` (one, or one per channel)."""
        span = max(int(acc_typical), 1)
        b = s.r.integers(-span, span + 1, size=channels)
        arr = b.astype(np.int64 if typ == I64 else np.int32)
        return s.m.t(s.name("bias"), typ, [channels], data=arr.tobytes(), scale=scales,
                     zp=[0] * len(scales))

    def bias_type_option(s, slot):
        """Sometimes quantized_bias_type INT32 (which makes a 16x8 kernel without a bias sum
        in int32 instead of int64)."""
        return [(slot, 'i', I32)] if s.chance(0.2) else []

    def conv2d(s, x):
        n, h, w, c = x.shape
        kh, kw, sh, sw, dh, dw, pad, oh, ow = s.conv_geometry(h, w)
        oc = s.channels()
        if n * oh * ow * oc > MAX_ELEMENTS:
            return None
        wt, ws = s.weights([oc, kh, kw, c], oc)
        wi = s.m.t(s.name("w"), I8, [oc, kh, kw, c], data=wt.tobytes(), scale=ws, zp=[0] * oc, qdim=0)
        k = kh * kw * c
        acc = math.sqrt(k) * 73 * (64 if x.typ == I8 else 16384)
        btyp = I64 if x.typ == I16 else I32
        bi = s.bias(oc, [x.scale * v for v in ws], btyp, acc / 4) if s.chance(0.85) else -1
        real = acc * x.scale * float(np.mean(ws)) / (64 if x.typ == I8 else 16384) * 64
        y = s.act_tensor([n, oh, ow, oc], x.typ, s.out_scale(real / 2), s.zp(x.typ))
        s.m.op(CONV_2D, [x.idx, wi, bi], [y.idx], OPT_CONV,
               [(0, 'i', pad), (1, 'i', sw), (2, 'i', sh), (3, 'i', s.fused()), (4, 'i', dw), (5, 'i', dh)]
               + s.bias_type_option(6))
        return y

    def depthwise(s, x):
        n, h, w, c = x.shape
        mult = 2 if (c <= 4 and s.chance(0.3)) else 1
        kh, kw, sh, sw, dh, dw, pad, oh, ow = s.conv_geometry(h, w)
        oc = c * mult
        if n * oh * ow * oc > MAX_ELEMENTS:
            return None
        wt, ws = s.weights([1, kh, kw, oc], oc)
        wi = s.m.t(s.name("w"), I8, [1, kh, kw, oc], data=wt.tobytes(), scale=ws, zp=[0] * oc, qdim=3)
        acc = math.sqrt(kh * kw) * 73 * (64 if x.typ == I8 else 16384)
        bi = s.bias(oc, [x.scale * v for v in ws], I64 if x.typ == I16 else I32, acc / 4)
        real = acc * x.scale * float(np.mean(ws)) / (64 if x.typ == I8 else 16384) * 64
        y = s.act_tensor([n, oh, ow, oc], x.typ, s.out_scale(real / 2), s.zp(x.typ))
        s.m.op(DEPTHWISE_CONV_2D, [x.idx, wi, bi], [y.idx], OPT_DW,
               [(0, 'i', pad), (1, 'i', sw), (2, 'i', sh), (3, 'i', mult), (4, 'i', s.fused()),
                (5, 'i', dw), (6, 'i', dh)])
        return y

    def fully_connected(s, x):
        depth = x.shape[-1]
        if depth > 256:
            return None
        units = s.channels()
        per_channel = s.chance(0.4)
        wt, ws = s.weights([units, depth], units)
        if not per_channel:
            ws = ws[:1]
        wi = s.m.t(s.name("w"), I8, [units, depth], data=wt.tobytes(), scale=ws,
                   zp=[0] * len(ws), qdim=0)
        acc = math.sqrt(depth) * 73 * (64 if x.typ == I8 else 16384)
        btyp = I64 if x.typ == I16 else I32
        ins = [x.idx, wi]
        if s.chance(0.85):
            ins.append(s.bias(units, [x.scale * v for v in ws], btyp, acc / 4))
        else:
            ins.append(-1)  # no bias
        keep = len(x.shape) > 2 and s.chance(0.5)
        rows = int(np.prod(x.shape[:-1]))
        shape = x.shape[:-1] + [units] if keep else [rows, units]
        real = acc * x.scale * float(np.mean(ws)) / (64 if x.typ == I8 else 16384) * 64
        y = s.act_tensor(shape, x.typ, s.out_scale(real / 2), s.zp(x.typ))
        s.m.op(FULLY_CONNECTED, ins, [y.idx], OPT_FC, [(0, 'i', s.fused()), (2, 'b', int(keep))]
               + s.bias_type_option(4))
        return y

    def pool(s, x):
        n, h, w, c = x.shape
        fh, fw = int(s.r.integers(1, min(h, 3) + 1)), int(s.r.integers(1, min(w, 3) + 1))
        sh, sw = int(s.r.integers(1, 3)), int(s.r.integers(1, 3))
        pad = s.pick([SAME, VALID])
        if pad == SAME:
            oh, ow = -(-h // sh), -(-w // sw)
        else:
            oh, ow = (h - fh) // sh + 1, (w - fw) // sw + 1
        y = s.like(x, [n, oh, ow, c])
        code = s.pick([AVERAGE_POOL_2D, MAX_POOL_2D])
        s.m.op(code, [x.idx], [y.idx], OPT_POOL,
               [(0, 'i', pad), (1, 'i', sw), (2, 'i', sh), (3, 'i', fw), (4, 'i', fh), (5, 'i', s.fused())])
        return y

    def pad(s, x):
        p = [[0, 0]] + [[int(s.r.integers(0, 3)), int(s.r.integers(0, 3))] for _ in x.shape[1:]]
        if len(x.shape) == 4 and s.chance(0.7):
            p[3] = [0, 0]
        shape = [d + a + b for d, (a, b) in zip(x.shape, p)]
        if np.prod(shape) > MAX_ELEMENTS:
            return None
        y = s.like(x, shape)
        pi = s.m.const(s.name("pads"), np.array(p, np.int32), I32)
        if s.chance(0.5):
            v = s.m.t(s.name("pad_value"), x.typ, [], data=np.array([s.zp(x.typ) if x.typ == I8 else 0],
                      np.int8 if x.typ == I8 else np.int16).tobytes(), scale=[x.scale], zp=[x.zp])
            s.m.op(PADV2, [x.idx, pi, v], [y.idx])
        else:
            s.m.op(PAD, [x.idx, pi], [y.idx])
        return y

    def binary_other(s, x):
        """The second operand of ADD/SUB/MUL: a constant or a new graph input, of x's shape
        or one that broadcasts to it."""
        r = len(x.shape)
        kind = s.pick(["full", "channel", "bcast", "bcast", "scalar"])
        if kind == "full":
            shape = list(x.shape)
        elif kind == "channel":
            shape = [x.shape[-1]] if s.chance(0.5) else [1] * (r - 1) + [x.shape[-1]]
        elif kind == "scalar":
            shape = [] if s.chance(0.5) else [1]
        else:
            shape = [d if s.chance(0.5) else 1 for d in x.shape]
            if s.chance(0.3):
                shape = shape[int(s.r.integers(0, r)):]
        sc, zp = s.scale(), s.zp(x.typ)
        if s.chance(0.5):
            return s.act_tensor(shape, x.typ, sc, zp, inp=True, base="in")
        npt = np.int8 if x.typ == I8 else np.int16
        lo, hi = (-128, 128) if x.typ == I8 else (-32768, 32768)
        data = s.r.integers(lo, hi, size=shape).astype(npt)
        idx = s.m.t(s.name("k"), x.typ, shape, data=data.tobytes(), scale=[sc], zp=[zp])
        return Act(idx, shape, x.typ, sc, zp)

    def binary(s, x, code=None):
        code = code if code is not None else s.pick([ADD, SUB, MUL])
        o = s.binary_other(x)
        shape = list(np.broadcast_shapes(tuple(x.shape), tuple(o.shape)))
        a, b = (x, o) if s.chance(0.7) else (o, x)
        sa, sb = s.real_spread(a), s.real_spread(b)
        real = sa * sb if code == MUL else max(sa, sb)
        y = s.act_tensor(shape, x.typ, s.out_scale(real), s.zp(x.typ))
        opt = OPT_ADD if code == ADD else OPT_SUB if code == SUB else OPT_MUL
        fields = [(0, 'i', s.fused())]
        if code != MUL and x.typ == I16:
            fields.append((1, 'b', 0))  # pot_scale_int16 false: the general 16-bit path
        s.m.op(code, [a.idx, b.idx], [y.idx], opt, fields)
        return y

    def batch_norm(s, x):
        """A folded batch norm: x * gamma + beta, per-channel int8 constants."""
        c = x.shape[-1]
        g = s.r.integers(-128, 128, size=[c]).astype(np.int8)
        gs, gz = s.scale(), s.zp(I8)
        gi = s.m.t(s.name("gamma"), I8, [c], data=g.tobytes(), scale=[gs], zp=[gz])
        mid = s.act_tensor(x.shape, I8, s.out_scale(s.real_spread(x) * gs * 128), s.zp(I8))
        s.m.op(MUL, [x.idx, gi], [mid.idx], OPT_MUL, [(0, 'i', ACT_NONE)])
        bt = s.r.integers(-128, 128, size=[c]).astype(np.int8)
        bs, bz = s.scale(), s.zp(I8)
        bi = s.m.t(s.name("beta"), I8, [c], data=bt.tobytes(), scale=[bs], zp=[bz])
        y = s.act_tensor(x.shape, I8, s.out_scale(max(s.real_spread(mid), bs * 64)), s.zp(I8))
        s.m.op(ADD, [mid.idx, bi], [y.idx], OPT_ADD, [(0, 'i', s.fused())])
        return y

    def reduce(s, x):
        r = len(x.shape)
        axes = [a for a in range(r) if s.chance(0.5)] or [int(s.r.integers(r))]
        if s.chance(0.2):
            axes = [a - r if s.chance(0.5) else a for a in axes]  # negative axes
        keep = s.chance(0.5)
        norm = sorted(set(a % r for a in axes))
        shape = [1 if i in norm else d for i, d in enumerate(x.shape)] if keep else \
            [d for i, d in enumerate(x.shape) if i not in norm]
        code = s.pick([MEAN, MEAN, SUM])
        count = int(np.prod([x.shape[a] for a in norm]))
        if code == MEAN and s.chance(0.4):
            y = s.like(x, shape)  # a global average pool keeps the scale
        else:
            real = s.real_spread(x) * (math.sqrt(count) if code == SUM else 0.5)
            y = s.act_tensor(shape, x.typ, s.out_scale(real), s.zp(x.typ))
        s.m.op(code, [x.idx, s.const_i32(axes)], [y.idx], OPT_REDUCER, [(0, 'b', int(keep))])
        return y

    def reshape(s, x):
        n = int(np.prod(x.shape))
        factors, rest = [], n
        for p in (2, 3, 5, 7):
            while rest % p == 0:
                factors.append(p)
                rest //= p
        if rest > 1:
            factors.append(rest)
        s.r.shuffle(factors)
        rank = int(s.r.integers(1, 5))
        shape = [1] * rank
        for f in factors:
            shape[int(s.r.integers(rank))] *= f
        y = s.like(x, shape)
        spec = list(shape)
        if s.chance(0.3):
            spec[int(s.r.integers(rank))] = -1
        s.m.op(RESHAPE, [x.idx, s.const_i32(spec)], [y.idx])
        return y

    def transpose(s, x):
        perm = [int(v) for v in s.r.permutation(len(x.shape))]
        y = s.like(x, [x.shape[p] for p in perm])
        s.m.op(TRANSPOSE, [x.idx, s.const_i32(perm)], [y.idx])
        return y

    def concat(s, x):
        r = len(x.shape)
        axis = int(s.r.integers(r))
        parts = [x]
        for _ in range(int(s.r.integers(1, 3))):
            if s.chance(0.3):
                parts.append(x)
            else:
                shape = list(x.shape)
                shape[axis] = int(s.r.integers(1, 5))
                parts.append(s.act_tensor(shape, x.typ, x.scale, x.zp, inp=True, base="in"))
        shape = list(x.shape)
        shape[axis] = sum(p.shape[axis] for p in parts)
        if np.prod(shape) > MAX_ELEMENTS:
            return None
        y = s.like(x, shape)
        s.m.op(CONCATENATION, [p.idx for p in parts], [y.idx], OPT_CONCAT,
               [(0, 'i', axis - r if s.chance(0.3) else axis), (1, 'i', ACT_NONE)])
        return y

    def softmax(s, x):
        y = s.act_tensor(x.shape, I8, 1.0 / 256, -128) if x.typ == I8 else s.act_tensor(x.shape, I16, 1.0 / 32768, 0)
        beta = 1.0 if s.chance(0.7) else float(s.r.uniform(0.1, 2.0))
        s.m.op(SOFTMAX, [x.idx], [y.idx], OPT_SOFTMAX, [(0, 'f', beta)])
        return y

    def logistic_tanh(s, x):
        if s.chance(0.5):
            y = s.act_tensor(x.shape, I8, 1.0 / 256, -128) if x.typ == I8 else s.act_tensor(x.shape, I16, 1.0 / 32768, 0)
            s.m.op(LOGISTIC, [x.idx], [y.idx])
        else:
            y = s.act_tensor(x.shape, I8, 1.0 / 128, 0) if x.typ == I8 else s.act_tensor(x.shape, I16, 1.0 / 32768, 0)
            s.m.op(TANH, [x.idx], [y.idx])
        return y

    def activation(s, x):
        code = s.pick([RELU, RELU6, LEAKY_RELU, HARD_SWISH] if x.typ == I8 else [RELU, RELU6, LEAKY_RELU])
        keep = code in (RELU, RELU6) and s.chance(0.5)
        scale = s.out_scale(s.real_spread(x))
        if code == HARD_SWISH:
            scale = max(scale, x.scale / 100)  # TFLite needs input scale / 128 / output scale < 1
        y = s.like(x) if keep else s.act_tensor(x.shape, x.typ, scale, s.zp(x.typ))
        if code == LEAKY_RELU:
            alpha = float(s.pick([0.1, 0.2, 0.01, s.r.uniform(0.0, 1.0)]))
            s.m.op(code, [x.idx], [y.idx], OPT_LEAKY_RELU, [(0, 'f', alpha)])
        else:
            s.m.op(code, [x.idx], [y.idx])
        return y

    def requantize(s, x, typ=I8):
        if typ == I16:
            y = s.act_tensor(x.shape, I16, s.real_spread(x) / 8192 * 10 ** s.r.uniform(-0.5, 0.5), 0)
        else:
            y = s.act_tensor(x.shape, I8, s.out_scale(s.real_spread(x)), s.zp(I8))
        s.m.op(QUANTIZE, [x.idx], [y.idx])
        return y

    def strided_slice(s, x):
        """Begin, end and stride per axis, negative indices and strides and masks included;
        the output shape is Python's slicing of the same values (TFLite's semantics)."""
        begin, end, strides, shape = [], [], [], []
        bm = em = 0
        for i, d in enumerate(x.shape):
            b, e = int(s.r.integers(-d, d)), int(s.r.integers(-d - 1, d + 1))
            st = s.pick([1, 1, 2, -1])
            if s.chance(0.2):
                bm |= 1 << i
            if s.chance(0.2):
                em |= 1 << i
            sl = slice(None if bm >> i & 1 else b, None if em >> i & 1 else e, st)
            begin.append(b); end.append(e); strides.append(st); shape.append(len(range(d)[sl]))
        if 0 in shape:
            return None
        y = s.like(x, shape)
        s.m.op(STRIDED_SLICE, [x.idx, s.const_i32(begin), s.const_i32(end), s.const_i32(strides)],
               [y.idx], OPT_STRIDED_SLICE, [(0, 'i', bm), (1, 'i', em)])
        return y

    # --- the graph --------------------------------------------------------------------------
    def step(s, x):
        """One operator on x (or a QUANTIZE into / out of int16). None if it does not fit."""
        r = len(x.shape)
        if x.typ == I16:
            choices = [("conv", 3), ("dw", 2), ("fc", 2), ("add", 2), ("sub", 1), ("mul", 1), ("reduce", 2),
                       ("pool", 1), ("softmax", 1), ("pad", 1), ("reshape", 1), ("transpose", 1), ("concat", 1), ("sigmoid", 1),
                       ("act", 1), ("slice", 2), ("requant16", 1), ("back", 2)]
            if r != 4:
                choices = [c for c in choices if c[0] not in ("conv", "dw", "pool")]
            if r == 0:
                choices = [c for c in choices if c[0] in ("reshape", "sigmoid", "act", "back")]
        else:
            choices = [("conv", 4), ("dw", 3), ("fc", 2), ("bn", 2), ("binary", 4), ("reduce", 3),
                       ("pool", 2), ("pad", 2), ("reshape", 1), ("transpose", 1), ("concat", 1),
                       ("softmax", 1), ("sigmoid", 1), ("act", 2), ("requant", 1), ("slice", 2),
                       ("int16", 2)]
            if r != 4:
                choices = [c for c in choices if c[0] not in ("conv", "dw", "pool")]
            if r == 0:  # a reduction to a scalar
                choices = [c for c in choices if c[0] in ("reshape", "sigmoid", "act", "requant")]
        names = [c[0] for c in choices]
        w = np.array([c[1] for c in choices], float)
        what = names[int(s.r.choice(len(names), p=w / w.sum()))]
        f = dict(conv=s.conv2d, dw=s.depthwise, fc=s.fully_connected, bn=s.batch_norm,
                 binary=s.binary, reduce=s.reduce, pool=s.pool, pad=s.pad, reshape=s.reshape,
                 transpose=s.transpose, concat=s.concat, softmax=s.softmax, sigmoid=s.logistic_tanh,
                 act=s.activation, requant=s.requantize, slice=s.strided_slice,
                 add=lambda a: s.binary(a, ADD), sub=lambda a: s.binary(a, SUB), mul=lambda a: s.binary(a, MUL),
                 int16=lambda a: s.requantize(a, I16), requant16=lambda a: s.requantize(a, I16),
                 back=lambda a: s.requantize(a, I8))[what]
        y = f(x)
        if y is not None:
            s.ops.append(what)
        return y

    def model(s, path):
        h, w, c = int(s.r.integers(1, 11)), int(s.r.integers(1, 11)), s.channels()
        typ = I16 if s.chance(0.2) else I8
        shape = [1, h, w, c] if s.chance(0.8) else [int(s.r.integers(1, 5)), int(s.r.integers(1, 33))]
        scale = s.scale() if typ == I8 else s.scale(-5, -2)
        x = s.act_tensor(shape, typ, scale, s.zp(typ), inp=True, base="in")
        target = int(s.r.integers(1, 9))
        tries = 0
        while len(s.ops) < target and tries < 40:
            tries += 1
            y = s.step(x)
            if y is not None:
                if s.chance(0.08) and len(s.ops) < target:
                    s.m.outputs.append(y.idx)  # an intermediate as an output too
                x = y
        s.m.outputs.append(x.idx)
        s.m.build(path)
        return s.ops


if __name__ == "__main__":
    seed, path = int(sys.argv[1]), sys.argv[2]
    g = Gen(seed)
    print(" ".join(g.model(path)))
