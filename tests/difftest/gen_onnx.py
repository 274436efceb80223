"""Random, valid, small ONNX models for differential testing (NNSmith-style).

generate(seed) builds a model of 1 to 12 operator nodes (a macro such as a QDQ convolution or
an If counts as one) over operators aotc supports, with random shapes, attributes, opset
(13-17 here; for a third of the seeds 18-24, whose new operators and forms
gen_onnx_recent.py adds) and inputs, and returns (model, {input name: array}). Every
tensor's shape is tracked here, so each node is valid by construction; ONNX Runtime
refusing a model is a bug of this generator, not of aotc.

Why values are tracked too: two correct implementations of the same model differ in the
rounding of a float sum (summation order) or of a transcendental function, and a rounding
operator (QuantizeLinear, Cast to an integer, a comparison feeding Where) turns such a
difference of one ulp into a whole quantization step. So every tensor carries what is known
about its values:
  - grid (exponent e, bound b): every value is an integer multiple of 2**-e of magnitude at
    most b * 2**-e, with b < 2**22, so sums and products of such values are exact in float32
    whatever the order: a convolution over grid values and grid weights is bit-exact;
  - det: computed only by correctly rounded elementwise arithmetic and data movement, so
    every correct implementation gives the same bits;
  - float: anything else.
Rounding operators take only grid or det inputs, with power-of-two quantization scales (so
x / scale is exact), and the comparison is then exact for them.

Command line: gen_onnx.py SEED OUTDIR [LO-HI] writes OUTDIR/model.onnx and OUTDIR/input_<i>.npy
(LO-HI: an opset range of 18-24 for this seed, as difftest_onnx.py --recent-opsets).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F32, I64, I32, I8, U8, BOOL = "f32", "i64", "i32", "i8", "u8", "bool"
ONNX_TYPE = {F32: TensorProto.FLOAT, I64: TensorProto.INT64, I32: TensorProto.INT32, I8: TensorProto.INT8,
             U8: TensorProto.UINT8, BOOL: TensorProto.BOOL}
NP_TYPE = {F32: np.float32, I64: np.int64, I32: np.int32, I8: np.int8, U8: np.uint8, BOOL: np.bool_}
GRID_LIMIT = 1 << 22
# metadata_props key + output name: the absolute tolerance of that output (op_qdq_layer).
TOLERANCE_KEY = "difftest.atol."
# metadata_props key: options for `aotc run` on this model (--dim N=2, --io-in-arena).
AOTC_ARGS_KEY = "difftest.aotc_args"
# The share of seeds whose model is of opset 18 to 24 (gen_onnx_recent.py).
RECENT_SHARE = 1 / 3


class Tensor:
    def __init__(self, name, shape, dtype, grid=None, det=False, tol=0.0):
        self.name, self.shape, self.dtype = name, list(shape), dtype
        # tol: how far (absolutely) a correct implementation may be from ORT here; only
        # data movement and DequantizeLinear read such a tensor (see op_qdq_layer).
        self.tol = tol
        self.qparams = None  # (scale, zero point) of the QuantizeLinear that made it
        self.grid = grid if grid is not None and grid[1] < GRID_LIMIT else None  # (e, bound)
        self.det = det or self.grid is not None
        self.uses = 0

    @property
    def rank(self):
        return len(self.shape)

    def size(self):
        return int(np.prod(self.shape)) if self.shape else 1


def grid_add(a, b):
    if a is None or b is None:
        return None
    e = max(a[0], b[0])
    return (e, (a[1] << (e - a[0])) + (b[1] << (e - b[0])))


def grid_union(a, b):
    """The grid of values taken from either a or b (Concat, Where)."""
    if a is None or b is None:
        return None
    e = max(a[0], b[0])
    return (e, max(a[1] << (e - a[0]), b[1] << (e - b[0])))


def grid_mul(a, b, terms=1):
    if a is None or b is None:
        return None
    return (a[0] + b[0], a[1] * b[1] * terms)


class Builder:
    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.opset = int(self.rng.integers(13, 18))
        self.nodes, self.inits, self.inputs, self.feeds = [], [], [], {}
        self.pool = []  # tensors a node may read
        self.forced = None  # the tensor the next pick returns if it can (op_chain)
        self.count = 0

    # ---- helpers
    def name(self, prefix):
        self.count += 1
        return f"{prefix}{self.count}"

    def chance(self, p):
        return self.rng.random() < p

    def choice(self, seq):
        return seq[int(self.rng.integers(len(seq)))]

    def randint(self, lo, hi):  # inclusive
        return int(self.rng.integers(lo, hi + 1))

    def const(self, array, prefix="c"):
        name = self.name(prefix)
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def ints(self, values):
        return self.const(np.array(values, dtype=np.int64), "i")

    def node(self, op, inputs, outputs, **attrs):
        self.nodes.append(helper.make_node(op, inputs, outputs, name=self.name(op.lower() + "_"), **attrs))

    def out(self, shape, dtype=F32, grid=None, det=False, tol=0.0):
        t = Tensor(self.name("t"), shape, dtype, grid, det, tol)
        self.pool.append(t)
        return t

    def use(self, *tensors):
        for t in tensors:
            t.uses += 1
        return [t.name for t in tensors]

    def pick(self, pred=lambda t: True, dtype=F32, tolerant=False):
        """A tensor of the pool of that type (None: any) satisfying pred; one with a tolerance
        only for an operator that is tolerant (data movement)."""
        cands = [t for t in self.pool if (dtype is None or t.dtype == dtype) and pred(t)
                 and (tolerant or t.tol == 0)]
        if self.forced is not None:  # op_chain: the previous operator's output, when it fits
            forced, self.forced = self.forced, None
            if forced in cands:
                return forced
        if not cands:
            return None
        # Prefer recent tensors (deeper chains), but not always.
        weights = np.array([1.0 + 2.0 * i for i in range(len(cands))])
        return cands[int(self.rng.choice(len(cands), p=weights / weights.sum()))]

    def grid_values(self, shape, e=4, bound=64):
        return (self.rng.integers(-bound, bound + 1, size=shape) * 2.0 ** -e).astype(np.float32)

    def float_values(self, shape, scale=1.0):
        return (self.rng.standard_normal(shape) * scale).astype(np.float32)

    def add_input(self, shape, dtype=F32, data=None, pool=True):
        """A graph input; data: its values (default: random of the type); pool: whether other
        operators may read it (not for run-time operands such as Gather's indices)."""
        name = self.name("in")
        grid = None
        if data is not None:
            pass
        elif dtype == F32 and self.chance(0.5):
            data, grid = self.grid_values(shape), (4, 64)
        elif dtype == F32:
            data, grid = self.float_values(shape, 2.0), None
        elif dtype in (I8, U8):
            info = np.iinfo(NP_TYPE[dtype])
            data, grid = self.rng.integers(info.min, info.max + 1, size=shape).astype(NP_TYPE[dtype]), None
        else:
            data, grid = self.rng.integers(-20, 21, size=shape).astype(NP_TYPE[dtype]), None
        self.inputs.append(helper.make_tensor_value_info(name, ONNX_TYPE[dtype], shape))
        self.feeds[name] = data
        t = Tensor(name, shape, dtype, grid, det=True)
        if pool:
            self.pool.append(t)
        return t

    def runtime_operand(self, data):
        """data as a graph input (an operand known only at run time) or a constant."""
        if self.chance(0.25):
            dtype = {np.dtype(np.int64): I64, np.dtype(np.bool_): BOOL, np.dtype(np.float32): F32}[data.dtype]
            return self.use(self.add_input(list(data.shape), dtype, data=data, pool=False))[0]
        return self.const(data)

    def random_shape(self):
        r = self.rng.random()
        if r < 0.15:  # more channels and pixels: the blocked kernels' remainders
            return [1, self.randint(7, 33), self.randint(3, 17), self.randint(3, 17)]
        if r < 0.55:
            return [self.randint(1, 2), self.randint(1, 6), self.randint(3, 10), self.randint(3, 10)]
        if r < 0.7:
            return [self.randint(1, 2), self.randint(1, 6), self.randint(3, 12)]
        if r < 0.9:
            return [self.randint(1, 6), self.randint(1, 8)]
        return [self.randint(1, 3) for _ in range(self.randint(0, 5))]

    def broadcast_partner_shape(self, shape):
        """A shape that broadcasts against shape (possibly shorter, some dims 1)."""
        k = self.randint(0, len(shape))
        tail = shape[len(shape) - k:]
        return [1 if self.chance(0.4) else d for d in tail]

    def partner(self, t):
        """A second operand for a broadcasting binary op on t: a tensor of the pool whose shape
        broadcasts with t's, a new graph input, or a constant."""
        def compatible(u):
            if u is t or u.rank > t.rank:
                return False
            return all(a == b or b == 1 for a, b in zip(t.shape[::-1], u.shape[::-1]))
        if self.chance(0.05):
            return t  # x op x: both operands one buffer
        u = self.pick(compatible) if self.chance(0.5) else None
        if u is not None:
            return u
        shape = self.broadcast_partner_shape(t.shape)
        if self.chance(0.3):
            return self.add_input(shape)
        if self.chance(0.5):
            return Tensor(self.const(self.grid_values(shape, 3, 16)), shape, F32, (3, 16))
        return Tensor(self.const(self.float_values(shape)), shape, F32)

    # ---- operators; each returns False when the pool has nothing it can take
    def op_binary(self):
        a = self.pick()
        if a is None:
            return False
        op = self.choice(["Add", "Sub", "Mul", "Div"])
        if op == "Div":
            shape = self.broadcast_partner_shape(a.shape)
            mag = self.rng.uniform(0.5, 2.0, size=shape) * self.rng.choice([-1, 1], size=shape)
            b = Tensor(self.const(mag.astype(np.float32)), shape, F32)
        else:
            b = self.partner(a)
        # A computed divisor would turn a difference in its last bits (ORT's Sigmoid is off by
        # 3% of its value at -13, seed 700083) into a large one: the divisor is the constant.
        x, y = (a, b) if op == "Div" or self.chance(0.7) else (b, a)
        shape = list(np.broadcast_shapes(tuple(x.shape), tuple(y.shape)))
        if op in ("Add", "Sub"):
            grid, det = grid_add(x.grid, y.grid), x.det and y.det
        elif op == "Mul":
            grid, det = grid_mul(x.grid, y.grid), x.det and y.det
        else:
            grid, det = None, False
        o = self.out(shape, grid=grid, det=det)
        self.node(op, self.use(x, y), [o.name])
        return True

    def op_unary(self):
        a = self.pick()
        if a is None:
            return False
        ops = ["Relu", "Sigmoid", "Tanh", "LeakyRelu", "Clip", "HardSigmoid", "Gelu", "Abs", "Neg", "Identity",
               "Dropout"]
        if self.opset >= 14:
            ops.append("HardSwish")
        op = self.choice(ops)
        keeps = op in ("Relu", "Abs", "Neg", "Clip", "Identity", "Dropout")
        if op == "Gelu":  # x * 0.5 * (1 + erf(x / sqrt(2))), the chain exporters write
            h = self.name("t"); e = self.name("t"); p = self.name("t"); m = self.name("t")
            x = self.use(a)[0]
            self.node("Div", [x, self.const(np.float32(1.4142135))], [h])
            self.node("Erf", [h], [e])
            self.node("Add", [e, self.const(np.float32(1.0))], [p])
            self.node("Mul", [x, p], [m])
            o = self.out(a.shape)
            self.node("Mul", [m, self.const(np.float32(0.5))], [o.name])
            return True
        o = self.out(a.shape, grid=a.grid if keeps else None, det=keeps and a.det)
        attrs = {}
        inputs = self.use(a)
        if op == "LeakyRelu":
            attrs["alpha"] = float(self.choice([0.01, 0.1, 0.2, 0.3333]))
        elif op == "HardSigmoid":
            attrs = {"alpha": float(self.rng.uniform(0.1, 0.5)), "beta": float(self.rng.uniform(0.2, 0.8))}
        elif op == "Clip":
            lo = np.float32(self.choice([-1.0, -0.5, 0.0, -6.0]))
            hi = np.float32(self.choice([0.5, 1.0, 6.0]))
            which = self.randint(0, 3)
            inputs += [self.runtime_operand(np.array(lo)) if which & 1 else "",
                       self.runtime_operand(np.array(hi)) if which & 2 else ""]
            while inputs and inputs[-1] == "":
                inputs.pop()
        self.node(op, inputs, [o.name], **attrs)
        return True

    def conv_weights(self, shape, grid_input):
        """Float weights, or (when the input is on a grid) int8 weights through a
        DequantizeLinear with power-of-two scales, per tensor or per output channel."""
        if grid_input and self.chance(0.7):
            q = self.rng.integers(-127, 128, size=shape).astype(np.int8)
            e = self.randint(5, 8)
            if self.chance(0.5):
                scale = np.float32(2.0 ** -e)
                dq_in = [self.const(q, "w"), self.const(scale, "s")]
                attrs = {}
            else:
                es = self.rng.integers(e - 2, e + 1, size=shape[0])
                dq_in = [self.const(q, "w"), self.const((2.0 ** -es).astype(np.float32), "s"),
                         self.const(np.zeros(shape[0], np.int8), "z")]
                e = int(es.max())
                attrs = {"axis": 0}
            w = self.name("w")
            self.node("DequantizeLinear", dq_in, [w], **attrs)
            return w, (e, 128)
        fan_in = int(np.prod(shape[1:]))
        return self.const(self.float_values(shape, 1.0 / np.sqrt(fan_in)), "w"), None

    def window(self, size, k, allow_dilation=True, pad_limit=None):
        """Stride, dilation and pads for a window of k over size, with a non-empty output."""
        for _ in range(20):
            s = self.randint(1, 3) if self.chance(0.4) else 1
            d = self.randint(1, 2) if allow_dilation and self.chance(0.3) else 1
            limit = (k - 1) if pad_limit is None else pad_limit
            pb, pe = (self.randint(0, limit), self.randint(0, limit)) if self.chance(0.5) else (0, 0)
            span = (k - 1) * d + 1
            if size + pb + pe >= span:
                return s, d, pb, pe
        return 1, 1, max(0, k - size), 0  # a window longer than the axis: padded to fit

    def op_conv(self):
        a = self.pick(lambda t: t.rank in (3, 4, 5) and t.shape[1] <= 16)
        if a is None:
            return False
        spatial = a.shape[2:]
        c = a.shape[1]
        groups = self.choice([g for g in range(1, c + 1) if c % g == 0]) if self.chance(0.4) else 1
        if self.chance(0.2):
            groups = c
        m = groups * self.randint(1, max(1, 8 // groups) if groups > 1 else 8)
        ks = [self.randint(1, min(3, d + 2)) for d in spatial]
        strides, dilations, pads_b, pads_e = [], [], [], []
        for size, k in zip(spatial, ks):
            s, d, pb, pe = self.window(size, k)
            strides.append(s); dilations.append(d); pads_b.append(pb); pads_e.append(pe)
        wname, wgrid = self.conv_weights([m, c // groups] + ks, a.grid is not None)
        attrs = {"group": groups} if groups > 1 or self.chance(0.5) else {}
        auto = self.choice(["NOTSET"] * 4 + ["SAME_UPPER", "SAME_LOWER", "VALID"])
        if auto == "NOTSET":
            attrs["pads"] = pads_b + pads_e
            out_sp = [(n + pb + pe - ((k - 1) * d + 1)) // s + 1
                      for n, k, s, d, pb, pe in zip(spatial, ks, strides, dilations, pads_b, pads_e)]
        elif auto == "VALID":
            attrs["auto_pad"] = auto
            out_sp = [(n - ((k - 1) * d + 1)) // s + 1 for n, k, s, d in zip(spatial, ks, strides, dilations)]
            if min(out_sp) < 1:
                return False
        else:  # ONNX Runtime refuses dilations with SAME_UPPER/SAME_LOWER
            attrs["auto_pad"] = auto
            out_sp = [-(-n // s) for n, s in zip(spatial, strides)]
            dilations = [1] * len(spatial)
        attrs["strides"] = strides
        if any(d > 1 for d in dilations) or self.chance(0.3):
            attrs["dilations"] = dilations
        if self.chance(0.5):
            attrs["kernel_shape"] = ks
        terms = (c // groups) * int(np.prod(ks))
        grid = grid_mul(a.grid, wgrid, terms)
        inputs = self.use(a) + [wname]
        if self.chance(0.6):
            if grid is not None:
                inputs.append(self.const(self.grid_values([m], grid[0], 256)))
                grid = (grid[0], grid[1] + 256)
            else:
                inputs.append(self.const(self.float_values([m], 0.5)))
        o = self.out([a.shape[0], m] + out_sp, grid=grid)
        self.node("Conv", inputs, [o.name], **attrs)
        return True

    def op_conv_transpose(self):
        a = self.pick(lambda t: t.rank in (3, 4) and t.shape[1] <= 16)
        if a is None:
            return False
        c = a.shape[1]
        spatial = a.shape[2:]
        groups = self.choice([g for g in range(1, c + 1) if c % g == 0]) if self.chance(0.3) else 1
        mg = self.randint(1, 3)
        ks = [self.randint(1, 3) for _ in spatial]
        strides = [self.randint(1, 2) for _ in spatial]
        dilations = [self.randint(1, 2) if self.chance(0.2) else 1 for _ in spatial]
        pads = [self.randint(0, k - 1) if self.chance(0.4) else 0 for k in ks] * 2
        outpad = [self.randint(0, s - 1) if self.chance(0.3) else 0 for s in strides]
        n = len(spatial)
        out_sp = [s * (i - 1) + op + (k - 1) * d + 1 - pads[j] - pads[j + n]
                  for j, (i, s, op, k, d) in enumerate(zip(spatial, strides, outpad, ks, dilations))]
        if min(out_sp) < 1:
            return False
        wname, wgrid = self.conv_weights([c, mg] + ks, a.grid is not None)
        attrs = {"strides": strides, "pads": pads}
        how = self.choice(["pads"] * 4 + ["output_shape", "SAME_UPPER", "SAME_LOWER"])
        if how == "output_shape":  # the pads are what makes this size (shorter or longer than natural)
            natural = [s * (i - 1) + op + (k - 1) * d + 1 for i, s, op, k, d in
                       zip(spatial, strides, outpad, ks, dilations)]
            # Not longer than natural: ORT then gives the natural size, not output_shape.
            out_sp = [max(1, nat - self.randint(0, k - 1)) for nat, k in zip(natural, ks)]
            attrs = {"strides": strides, "output_shape": out_sp}
        elif how != "pads":
            if any((k - 1) * d + 1 < s for k, d, s in zip(ks, dilations, strides)):
                return False  # input * stride would be longer than natural: ORT gives natural
            attrs = {"strides": strides, "auto_pad": how}
            out_sp = [i * s for i, s in zip(spatial, strides)]
            outpad = [0] * n  # onnx's shape inference and ORT disagree on output_padding with SAME_*
        if groups > 1:
            attrs["group"] = groups
        if any(outpad):
            attrs["output_padding"] = outpad
        if any(d > 1 for d in dilations):
            attrs["dilations"] = dilations
        inputs = self.use(a) + [wname]
        if self.chance(0.5):
            inputs.append(self.const(self.float_values([mg * groups], 0.5)))
            wgrid = None
        terms = c * int(np.prod(ks))
        o = self.out([a.shape[0], mg * groups] + out_sp, grid=grid_mul(a.grid, wgrid, terms))
        self.node("ConvTranspose", inputs, [o.name], **attrs)
        return True

    def op_pool(self):
        a = self.pick(lambda t: t.rank in (3, 4, 5) and t.dtype in (F32, I8, U8), dtype=None)
        if a is None:
            return False
        # MaxPool also takes 8-bit tensors (opset 12): padding must then be the type's minimum.
        op = self.choice(["MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool"]) if a.dtype == F32 \
            else "MaxPool"
        spatial = a.shape[2:]
        if op.startswith("Global"):
            o = self.out(a.shape[:2] + [1] * len(spatial),
                         grid=a.grid if op == "GlobalMaxPool" else None, det=op == "GlobalMaxPool" and a.det)
            self.node(op, self.use(a), [o.name])
            return True
        ks = [self.randint(1, min(3, d)) for d in spatial]
        strides, dil, pb, pe = [], [], [], []
        for size, k in zip(spatial, ks):
            s, d, b, e = self.window(size, k, allow_dilation=op == "MaxPool" or self.opset >= 19)
            # ORT and the spec: pads smaller than the kernel.
            b, e = min(b, k - 1), min(e, k - 1)
            strides.append(s); dil.append(d); pb.append(b); pe.append(e)
        ceil = self.chance(0.3)
        out_sp = []
        for n, k, s, d, b, e in zip(spatial, ks, strides, dil, pb, pe):
            span = (k - 1) * d + 1
            num = n + b + e - span
            o_ = (-(-num // s) if ceil else num // s) + 1
            # With ceil_mode, a last window starting in the end padding is dropped (as in the spec's
            # reference implementation and ORT): keep clear of that case's ambiguity.
            if ceil and (o_ - 1) * s >= n + b:
                return False
            out_sp.append(o_)
        attrs = {"kernel_shape": ks, "strides": strides, "pads": pb + pe}
        if ceil:
            attrs["ceil_mode"] = 1
        if any(d > 1 for d in dil):  # AveragePool's from opset 19
            attrs["dilations"] = dil
        if op == "AveragePool" and self.chance(0.5):
            attrs["count_include_pad"] = 1
        o = self.out(a.shape[:2] + out_sp, a.dtype, grid=a.grid if op == "MaxPool" else None,
                     det=op == "MaxPool" and a.det)
        self.node(op, self.use(a), [o.name], **attrs)
        return True

    def op_matmul(self):
        a = self.pick(lambda t: t.rank >= 2 and t.rank <= 4)
        if a is None:
            return False
        k = a.shape[-1]
        n = self.randint(1, 8)
        if self.chance(0.15):  # a 1-D right operand: the last axis contracts away
            wname, wgrid = self.conv_weights([k], a.grid is not None)
            o = self.out(a.shape[:-1], grid=grid_mul(a.grid, wgrid, k))
            self.node("MatMul", self.use(a) + [wname], [o.name])
            return True
        if self.chance(0.3) and a.rank >= 3:
            bshape = [1 if self.chance(0.5) else a.shape[-3], k, n]
        else:
            bshape = [k, n]
        wname, wgrid = self.conv_weights(bshape[::-1], a.grid is not None)
        # conv_weights makes [n, k] (quantized along its axis 0); MatMul wants [.., k, n].
        t = self.name("w")
        if len(bshape) == 3:
            self.node("Transpose", [wname], [t], perm=[2, 1, 0])
            wname = t
            bshape = [bshape[0], k, n]  # after the transpose of [n, k, b]: [b, k, n]
        else:
            self.node("Transpose", [wname], [t], perm=[1, 0])
            wname = t
        out = list(np.broadcast_shapes(tuple(a.shape[:-2]), tuple(bshape[:-2]))) + [a.shape[-2], n]
        o = self.out(out, grid=grid_mul(a.grid, wgrid, k))
        self.node("MatMul", self.use(a) + [wname], [o.name])
        return True

    def op_gemm(self):
        a = self.pick(lambda t: t.rank == 2)
        if a is None:
            return False
        trans_a, trans_b = self.chance(0.3), self.chance(0.5)
        m, k = (a.shape[1], a.shape[0]) if trans_a else a.shape
        n = self.randint(1, 8)
        wname, wgrid = self.conv_weights([n, k] if trans_b else [k, n], a.grid is not None)
        attrs = {}
        if trans_a:
            attrs["transA"] = 1
        if trans_b:
            attrs["transB"] = 1
        alpha = 1.0
        if self.chance(0.4):
            alpha = float(self.choice([0.5, 2.0, 0.25, 1.5]))
            attrs["alpha"] = alpha
        inputs = self.use(a) + [wname]
        # alpha on a grid: 1.5 = 3 * 2**-1; 0.25, 0.5, 1 and 2 are at most 8 * 2**-2.
        grid = grid_mul(grid_mul(a.grid, wgrid, k), (1, 3) if alpha == 1.5 else (2, 8))
        if self.chance(0.6):
            cshape = self.choice([[n], [1, n], [m, 1], [m, n], []])
            inputs.append(self.const(self.float_values(cshape, 0.5)))
            grid = None
            if self.chance(0.4):
                attrs["beta"] = float(self.choice([0.5, 2.0, 0.3]))
        o = self.out([m, n], grid=grid)
        self.node("Gemm", inputs, [o.name], **attrs)
        return True

    def op_batchnorm(self):
        a = self.pick(lambda t: t.rank >= 2)
        if a is None:
            return False
        c = a.shape[1]
        ins = self.use(a) + [self.const(self.float_values([c], 0.5) + 1), self.const(self.float_values([c], 0.5)),
                             self.const(self.float_values([c], 0.5)),
                             self.const(self.rng.uniform(0.2, 2.0, size=c).astype(np.float32))]
        o = self.out(a.shape)
        self.node("BatchNormalization", ins, [o.name], epsilon=float(self.choice([1e-5, 1e-3, 0.1])))
        return True

    def op_concat(self):
        a = self.pick(dtype=None)
        if a is None or a.dtype == BOOL:
            return False
        axis = self.randint(0, a.rank - 1) if a.rank else None
        if axis is None:
            return False
        def same_but_axis(u):
            return u.dtype == a.dtype and u.rank == a.rank and all(
                x == y for i, (x, y) in enumerate(zip(u.shape, a.shape)) if i != axis)
        parts = [a]
        for _ in range(self.randint(1, 2)):
            u = self.pick(same_but_axis, dtype=a.dtype) if self.chance(0.6) else None
            if u is None:
                shape = list(a.shape)
                shape[axis] = self.randint(1, 4)
                if a.dtype == F32:
                    u = Tensor(self.const(self.grid_values(shape, 4, 64)), shape, F32, (4, 64))
                else:
                    u = Tensor(self.const(self.rng.integers(-5, 6, size=shape).astype(NP_TYPE[a.dtype])),
                               shape, a.dtype, det=True)
            parts.append(u)
        self.rng.shuffle(parts)
        shape = list(a.shape)
        shape[axis] = sum(p.shape[axis] for p in parts)
        grid = parts[0].grid
        for p in parts[1:]:
            grid = grid_union(grid, p.grid)
        o = self.out(shape, a.dtype, grid=grid, det=all(p.det for p in parts))
        self.node("Concat", self.use(*parts), [o.name], axis=axis - a.rank if self.chance(0.3) else axis)
        return True

    def movement_out(self, a, shape):
        return self.out(shape, a.dtype, grid=a.grid, det=a.det, tol=a.tol)

    def op_split(self):
        a = self.pick(lambda t: t.rank >= 1 and max(t.shape) >= 2, dtype=None, tolerant=True)
        if a is None or a.dtype == BOOL:
            return False
        axis = self.choice([i for i, d in enumerate(a.shape) if d >= 2])
        d = a.shape[axis]
        if self.chance(0.5):
            cuts = sorted(self.rng.choice(np.arange(1, d), size=self.randint(1, min(3, d - 1)), replace=False))
            sizes = list(np.diff([0] + [int(c) for c in cuts] + [d]))
            inputs = self.use(a) + [self.ints(sizes)]
        else:
            divisors = [k for k in range(2, d + 1) if d % k == 0]
            parts = self.choice(divisors)
            sizes = [d // parts] * parts
            inputs = self.use(a)
        outs = []
        for s in sizes:
            shape = list(a.shape)
            shape[axis] = int(s)
            outs.append(self.movement_out(a, shape))
        self.node("Split", inputs, [o.name for o in outs], axis=axis)
        return True

    def op_slice(self):
        a = self.pick(lambda t: t.rank >= 1, dtype=None, tolerant=True)
        if a is None or a.dtype == BOOL:
            return False
        axes = sorted(self.rng.choice(a.rank, size=self.randint(1, a.rank), replace=False))
        starts, ends, steps, shape = [], [], [], list(a.shape)
        for ax in axes:
            d = a.shape[ax]
            for _ in range(10):
                step = self.choice([1, 1, 1, 2, -1, -2, 3])
                start = self.randint(-d - 1, d + 1)
                end = self.choice([self.randint(-d - 1, d + 1), 2**62, -2**62])
                n = len(range(*slice(start, end, step).indices(d)))
                if n > 0:
                    break
            else:
                start, end, step, n = 0, d, 1, d
            starts.append(start); ends.append(end); steps.append(step); shape[ax] = n
        ax_out = [int(ax) - a.rank if self.chance(0.3) else int(ax) for ax in axes]
        inputs = self.use(a) + [self.ints(starts), self.ints(ends), self.ints(ax_out)]
        if any(s != 1 for s in steps) or self.chance(0.3):
            inputs.append(self.ints(steps))
        o = self.movement_out(a, shape)
        self.node("Slice", inputs, [o.name])
        return True

    def op_transpose(self):
        a = self.pick(lambda t: t.rank >= 2, dtype=None, tolerant=True)
        if a is None:
            return False
        perm = [int(p) for p in self.rng.permutation(a.rank)]
        o = self.movement_out(a, [a.shape[p] for p in perm])
        self.node("Transpose", self.use(a), [o.name], perm=perm)
        return True

    def op_reshape(self):
        a = self.pick(dtype=None, tolerant=True)
        if a is None or a.dtype == BOOL:
            return False
        total = a.size()
        shape, rest = [], total
        for _ in range(self.randint(1, 4) - 1):
            divs = [k for k in range(1, rest + 1) if rest % k == 0]
            k = self.choice(divs)
            shape.append(k)
            rest //= k
        shape.append(rest)
        self.rng.shuffle(shape)
        spec = list(shape)
        if self.chance(0.5):
            spec[self.randint(0, len(spec) - 1)] = -1
        for i in range(min(len(spec), a.rank)):  # 0 copies the input's dimension
            if spec[i] == a.shape[i] and self.chance(0.3):
                spec[i] = 0
        o = self.movement_out(a, shape)
        self.node("Reshape", self.use(a) + [self.ints(spec)], [o.name])
        return True

    def op_flatten(self):
        a = self.pick(lambda t: t.rank >= 1, dtype=None, tolerant=True)
        if a is None or a.dtype == BOOL:
            return False
        axis = self.randint(-a.rank, a.rank)
        p = axis + a.rank if axis < 0 else axis
        o = self.movement_out(a, [int(np.prod(a.shape[:p])), int(np.prod(a.shape[p:]))])
        self.node("Flatten", self.use(a), [o.name], axis=axis)
        return True

    def op_squeeze_unsqueeze(self):
        a = self.pick(dtype=None, tolerant=True)
        if a is None or a.dtype == BOOL:
            return False
        ones = [i for i, d in enumerate(a.shape) if d == 1]
        if ones and self.chance(0.6):
            axes = sorted(self.rng.choice(ones, size=self.randint(1, len(ones)), replace=False))
            shape = [d for i, d in enumerate(a.shape) if i not in axes]
            inputs = self.use(a)
            if self.chance(0.8) or len(axes) != len(ones):
                inputs.append(self.ints([int(x) - a.rank if self.chance(0.3) else int(x) for x in axes]))
            else:
                shape = [d for d in a.shape if d != 1]
            o = self.movement_out(a, shape)
            self.node("Squeeze", inputs, [o.name])
            return True
        if a.rank >= 5:
            return False
        k = self.randint(1, 2)
        r = a.rank + k
        axes = sorted(int(x) for x in self.rng.choice(r, size=k, replace=False))
        shape, it = [], iter(a.shape)
        for i in range(r):
            shape.append(1 if i in axes else next(it))
        o = self.movement_out(a, shape)
        self.node("Unsqueeze", self.use(a) + [self.ints([x - r if self.chance(0.3) else x for x in axes])], [o.name])
        return True

    def op_pad(self):
        a = self.pick(lambda t: t.rank >= 1 and t.dtype != BOOL, dtype=None)
        if a is None:
            return False
        mode = self.choice(["constant", "constant", "reflect", "edge"])
        pads = []
        for d in a.shape:
            for _ in range(2):
                if mode == "reflect":
                    pads.append(self.randint(0, min(2, d - 1)))
                elif mode == "constant" and self.chance(0.15) and d > 1:
                    pads.append(-1)
                else:
                    pads.append(self.randint(0, 2) if self.chance(0.6) else 0)
        n = a.rank
        pads = pads[0::2] + pads[1::2]
        shape = [d + pads[i] + pads[i + n] for i, d in enumerate(a.shape)]
        if min(shape) < 1:
            return False
        inputs = self.use(a) + [self.ints(pads)]
        attrs = {"mode": mode} if mode != "constant" or self.chance(0.5) else {}
        if mode == "constant" and self.chance(0.5):
            inputs.append(self.const(NP_TYPE[a.dtype](self.choice([0.5, -1.0, 2.0]) if a.dtype == F32
                                                     else self.choice([-1, 2, 7]) + (128 if a.dtype == U8 else 0))))
        o = self.movement_out(a, shape)
        self.node("Pad", inputs, [o.name], **attrs)
        return True

    def op_reduce(self):
        a = self.pick(lambda t: t.rank >= 1, dtype=None)
        if a is None or a.dtype == BOOL:
            return False
        op = self.choice(["ReduceMean", "ReduceSum", "ReduceMax"] if a.dtype == F32 else
                         ["ReduceSum", "ReduceMax"] if a.dtype == I64 else ["ReduceMax"])
        keep = self.chance(0.5)
        if self.chance(0.2):
            axes = list(range(a.rank))
            given = None
        else:
            axes = sorted(int(x) for x in self.rng.choice(a.rank, size=self.randint(1, a.rank), replace=False))
            given = [x - a.rank if self.chance(0.3) else x for x in axes]
        shape = [1 if i in axes else d for i, d in enumerate(a.shape)] if keep else \
            [d for i, d in enumerate(a.shape) if i not in axes]
        attrs = {} if keep and self.chance(0.5) else {"keepdims": int(keep)}
        inputs = self.use(a)
        if given is not None:
            if op == "ReduceSum":
                inputs.append(self.ints(given))
            else:
                attrs["axes"] = given
        count = int(np.prod([a.shape[i] for i in axes]))
        if op == "ReduceMax":
            grid, det = a.grid, a.det
        elif op == "ReduceSum":
            grid, det = (None if a.grid is None else (a.grid[0], a.grid[1] * count)), a.dtype == I64
        else:
            grid, det = None, False
        o = self.out(shape, a.dtype, grid=grid, det=det)
        self.node(op, inputs, [o.name], **attrs)
        return True

    def op_softmax(self):
        a = self.pick(lambda t: t.rank >= 1)
        if a is None:
            return False
        op = self.choice(["Softmax", "LogSoftmax"])
        attrs = {} if self.chance(0.2) else {"axis": self.randint(-a.rank, a.rank - 1)}
        x = self.use(a)[0]
        if self.chance(0.2):  # large logits: exp overflows unless the maximum is subtracted first
            x, big = self.name("t"), x
            self.node("Mul", [big, self.const(np.float32(60.0))], [x])
        o = self.out(a.shape)
        self.node(op, [x], [o.name], **attrs)
        return True

    def op_resize(self):
        a = self.pick(lambda t: t.rank == 4 and t.dtype in (F32, I8, U8), dtype=None, tolerant=True)
        if a is None:
            return False
        # Interpolation only on axes of at most 32: ORT computes the source coordinate in float32,
        # which at coordinate 514 (seed 4000810, cubic 572 -> 827) moved a result by 0.4 %;
        # aotc and ONNX's reference compute it in double.
        interpolate = a.dtype == F32 and a.tol == 0 and max(a.shape[2:]) <= 32
        mode = self.choice(["nearest", "linear", "cubic"]) if interpolate else "nearest"
        ctm = self.choice(["half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel"])
        attrs = {"mode": mode, "coordinate_transformation_mode": ctm}
        if mode == "nearest":
            attrs["nearest_mode"] = self.choice(["round_prefer_floor", "round_prefer_ceil", "floor", "ceil"])
        if mode == "cubic":
            attrs["cubic_coeff_a"] = float(self.choice([-0.75, -0.5]))
            if self.chance(0.3):
                attrs["exclude_outside"] = 1
        roi = "" if self.chance(0.7) else self.const(np.zeros(0, np.float32))  # absent or empty
        if self.chance(0.5):
            scales = [1.0, 1.0] + [float(self.choice([0.5, 0.75, 1.5, 2.0, 3.0, 1.25])) for _ in range(2)]
            shape = a.shape[:2] + [int(np.floor(d * s)) for d, s in zip(a.shape[2:], scales[2:])]
            # align_corners divides by the resized length less one: the ONNX reference takes
            # input * scale unfloored (onnx/onnx#2462: intended), ORT the output length, so they
            # differ unless input * scale is whole. aotc follows ONNX.
            if ctm == "align_corners" and any(d * s != int(d * s) for d, s in zip(a.shape[2:], scales[2:])):
                return False
            if min(shape) < 1:
                return False
            # ORT copies the input when the output has its shape, whatever the scales (seed
            # 4001549: scales 1.25 on [2, 3]).
            if shape == a.shape and any(s_ != 1 for s_ in scales):
                return False
            inputs = self.use(a) + [roi, self.const(np.array(scales, np.float32))]
        else:
            # Sizes whose ratio to the input is a binary fraction (1/2, 1, 3/2, 2, 3): with 9/7,
            # (x + 0.5) / scale - 0.5 is a whole number exactly, and whether it floors to it
            # depends on how the scale was rounded (seed 4200841: ORT's float32 9/7 gives 3,
            # aotc's and ONNX's reference's float64 9/7 give 2.9999999999999996, so 2).
            shape = a.shape[:2] + [self.choice([d * m for m in (1, 2, 3)] + ([d // 2, d * 3 // 2] if d % 2 == 0 else []))
                                   for d in a.shape[2:]]
            inputs = self.use(a) + [roi, "", self.ints(shape)]
        if mode != "nearest":
            inputs[0] = self.interpolated(inputs[0])
        o = self.movement_out(a, shape) if mode == "nearest" else self.out(shape)
        self.node("Resize", inputs, [o.name], **attrs)
        return True

    def interpolated(self, x):
        """x within [-0.5, 0.5], for a linear or cubic Resize to read (op_resize here and in
        gen_onnx_recent.py). ORT computes its interpolation weights in float32, the source
        coordinate and Keys' cubic polynomial, whose terms cancel: at seed 1092066 (cubic,
        asymmetric, scale 3) output row 16 is source row 16/3, float32 5.3333335, and ORT's
        weights (-0.11111125, 0.79629672, 0.37037084, -0.05555634) are up to 7.8e-7 from
        the spec's (-1/9, 43/54, 10/27, -1/18); on inputs 12.68 and 84.09 whose terms cancel
        to 0.022825382 ORT gave 0.02276516, 6.0e-5 off (aotc, weights in float64, 1.4e-7).
        Over the Resizes made here (axes of at most 32, every mode, scale and coefficient),
        one output's weights are at most 5.3e-6 off in L1 norm per axis (cubic, asymmetric,
        exclude_outside, 5 -> 15), and their absolute sum at most 1.375, so about 1.5e-5 over
        two axes per unit of input: inputs within 0.5 keep ORT's error under atol 1e-5."""
        bounded = self.name("t")
        self.node("Clip", [x, self.const(np.float32(-0.5)), self.const(np.float32(0.5))], [bounded])
        return bounded

    def op_gather(self):
        a = self.pick(lambda t: t.rank >= 1, dtype=None, tolerant=True)
        if a is None or a.dtype == BOOL:
            return False
        axis = self.randint(0, a.rank - 1)
        d = a.shape[axis]
        ishape = self.choice([[], [self.randint(1, 4)], [self.randint(1, 3), self.randint(1, 3)]])
        idx = self.rng.integers(-d, d, size=ishape).astype(np.int64)
        shape = a.shape[:axis] + list(ishape) + a.shape[axis + 1:]
        o = self.movement_out(a, shape)
        self.node("Gather", self.use(a) + [self.runtime_operand(idx)], [o.name],
                  axis=axis - a.rank if self.chance(0.3) else axis)
        return True

    def op_where(self):
        a = self.pick()
        if a is None:
            return False
        b = self.partner(a)
        c = self.pick(lambda t: t.det and t.rank <= a.rank and all(
            x == y or y == 1 for x, y in zip(a.shape[::-1], t.shape[::-1])))
        if c is not None and self.chance(0.7):
            cond = self.name("cond")
            self.node(self.choice(["Greater", "Less"]), self.use(c) + [self.const(np.float32(0.0625))], [cond])
        else:
            shape = self.broadcast_partner_shape(a.shape)
            cond = self.runtime_operand(self.rng.random(shape) < 0.5)
        x, y = (a, b) if self.chance(0.5) else (b, a)
        shape = list(np.broadcast_shapes(tuple(x.shape), tuple(y.shape)))
        o = self.out(shape, grid=grid_union(x.grid, y.grid), det=x.det and y.det)
        self.node("Where", [cond] + self.use(x, y), [o.name])
        return True

    def op_cast(self):
        a = self.pick(lambda t: t.det, dtype=None)
        if a is None or a.dtype not in (F32, I64):
            return False
        if a.dtype == F32:  # to int64 (truncation of a value every implementation computes alike)
            o = self.out(a.shape, I64, det=True)
            self.node("Cast", self.use(a), [o.name], to=TensorProto.INT64)
            if self.chance(0.5):  # some int64 arithmetic
                t = self.out(a.shape, I64, det=True)
                self.node(self.choice(["Add", "Mul", "Sub"]),
                          self.use(o) + [self.const(np.int64(self.randint(-3, 3)))], [t.name])
        else:
            o = self.out(a.shape, F32, grid=(0, 1 << 20), det=True)
            self.node("Cast", self.use(a), [o.name], to=TensorProto.FLOAT)
        return True

    def op_quantize(self):
        """QuantizeLinear of a value every implementation computes alike, power-of-two scales
        (per tensor or per axis), int8 or uint8, and usually its DequantizeLinear."""
        a = self.pick(lambda t: t.det)
        if a is None:
            return False
        dtype = self.choice([I8, U8])
        per_axis = a.rank >= 1 and self.chance(0.3)
        e = self.randint(-1, 6) if a.grid is None else self.randint(max(-2, a.grid[0] - 6), a.grid[0] + 1)
        if per_axis:
            axis = self.randint(0, a.rank - 1)
            n = a.shape[axis]
            scale = (2.0 ** -self.rng.integers(e - 1, e + 2, size=n)).astype(np.float32)
            zp = (self.rng.integers(-10, 11, size=n) + (128 if dtype == U8 else 0)).astype(NP_TYPE[dtype])
            attrs = {"axis": axis - a.rank if self.chance(0.3) else axis}
        else:
            scale = np.float32(2.0 ** -e)
            zp = NP_TYPE[dtype](self.randint(-10, 10) + (128 if dtype == U8 else 0))
            attrs = {}
        ins = self.use(a) + [self.const(scale, "s")]
        zp_name = self.const(zp, "z")
        q = self.out(a.shape, dtype, det=True)
        self.node("QuantizeLinear", ins + [zp_name], [q.name], **attrs)
        if self.chance(0.8):
            emax = int(np.max(-np.log2(scale)))
            o = self.out(a.shape, grid=(max(emax, 0), 256 << max(0, emax - int(np.min(-np.log2(scale))))))
            self.node("DequantizeLinear", self.use(q) + [self.const(scale, "s"), self.const(zp, "z")], [o.name],
                      **attrs)
        return True

    def op_dequantize(self):
        """DequantizeLinear of an 8-bit tensor (a graph input or a QuantizeLinear's output)."""
        a = self.pick(lambda t: t.dtype in (I8, U8), dtype=None, tolerant=True)
        if a is None:
            return False
        e = self.randint(2, 7)
        zp = NP_TYPE[a.dtype](self.randint(-10, 10) + (128 if a.dtype == U8 else 0))
        ins = self.use(a) + [self.const(np.float32(2.0 ** -e), "s")]
        if a.dtype == I8 or self.chance(0.7):
            ins.append(self.const(zp, "z"))
        else:
            zp = 0
        o = self.out(a.shape, grid=(e, 256), tol=a.tol * 2.0 ** -e)
        self.node("DequantizeLinear", ins, [o.name])
        return True

    def op_qdq_layer(self):
        """One layer of a quantized network in QDQ form, the patterns aotc folds into integer
        kernels (aot/passes/fold_qdq.cc): DQ(x) -> Conv | MatMul | Gemm | Add (-> Relu | Clip)
        -> Q (-> DQ). Either every scale is a power of two and the bias is on the accumulator's
        grid, so the float graph is exact and the integer kernel must give the same bytes, ties
        included (round half to even), or the scales are arbitrary, as a quantizer writes them:
        the integer kernel rounds the real result once where the float graph rounds in float32
        first, so near a tie they may differ by one step (fold_qdq.cc says so), which is the
        tolerance of this output; it then only reaches data movement and DequantizeLinear."""
        kind = self.choice(["Conv", "Conv", "MatMul", "Gemm", "Add"])
        rank_ok = {"Conv": lambda t: t.rank in (3, 4) and t.shape[1] <= 32, "MatMul": lambda t: 2 <= t.rank <= 4,
                   "Gemm": lambda t: t.rank == 2, "Add": lambda t: t.rank >= 1}[kind]
        a = self.pick(lambda t: t.det and rank_ok(t), dtype=None)
        if a is None or a.dtype not in (F32, I8, U8):
            return False
        exact = self.chance(0.5)

        def scale(lo, hi):  # a power of two in [lo, hi] when exact
            if exact:
                return np.float32(2.0 ** -self.randint(int(-np.log2(hi)), int(-np.log2(lo))))
            return np.float32(self.rng.uniform(lo, hi))

        def as_quantized(t):
            """(int8 or uint8 tensor, its scale, zero point, and the DQ'd float tensor name)."""
            if t.dtype in (I8, U8):
                self.use(t)
                q, s_, dtype = t, scale(0.004, 0.1), t.dtype
                zp = NP_TYPE[dtype](self.randint(-5, 5) + (128 if dtype == U8 else 0))
                if t.qparams is not None and self.chance(0.8):  # the Q's own: the folded layers chain
                    s_, zp = t.qparams
            else:
                dtype = self.choice([I8, U8])
                s_ = scale(0.004, 0.1)
                zp = NP_TYPE[dtype](self.randint(-20, 20) + (128 if dtype == U8 else 0))
                q = self.out(t.shape, dtype, det=True)
                self.node("QuantizeLinear", self.use(t) + [self.const(s_, "s"), self.const(zp, "z")], [q.name])
                self.pool.remove(q)
            f = self.name("t")
            self.node("DequantizeLinear", [q.name, self.const(s_, "s"), self.const(zp, "z")], [f])
            return s_, f

        s_x, x = as_quantized(a)
        if kind == "Add":
            b = self.pick(lambda t: t.det and t is not a and t.rank <= a.rank and all(
                p == q or q == 1 for p, q in zip(a.shape[::-1], t.shape[::-1])), dtype=None)
            if b is None or b.dtype not in (F32, I8, U8):
                return False
            s_b, bf = as_quantized(b)
            shape = list(np.broadcast_shapes(tuple(a.shape), tuple(b.shape)))
            y = self.name("t")
            self.node("Add", [x, bf] if self.chance(0.5) else [bf, x], [y])
            s_acc, k = min(s_x, s_b), 2
        else:
            if kind == "Conv":
                c = a.shape[1]
                groups = self.choice([1, 1, c] + [g for g in range(2, c) if c % g == 0])
                m = groups * self.randint(1, max(1, 16 // groups))
                ks = [self.randint(1, min(3, d + 2)) for d in a.shape[2:]]
                wshape, axis = [m, c // groups] + ks, 0
                k = (c // groups) * int(np.prod(ks))
            elif kind == "MatMul":
                k, m = a.shape[-1], self.randint(1, 24)
                if k > 800:  # keep the accumulator within float32's exact integers
                    return False
                wshape, axis = [k, m], 1
            else:
                trans_b = self.chance(0.5)
                k, m = a.shape[1], self.randint(1, 24)
                wshape, axis = ([m, k], 0) if trans_b else ([k, m], 1)
            wq = self.rng.integers(-127, 128, size=wshape).astype(np.int8)
            if self.chance(0.5):
                s_w = np.array([scale(0.002, 0.03) for _ in range(m)], np.float32)
                w_attrs = {"axis": axis}
            else:
                s_w, w_attrs = scale(0.002, 0.03), {}
            w_zp = np.zeros(np.shape(s_w), np.int8)
            if self.chance(0.3):  # uint8 weights around a zero point (asymmetric quantization)
                w_zp = (128 + self.rng.integers(-20, 21, size=np.shape(s_w))).astype(np.uint8)
                wq = (wq.astype(np.int32) // 2 + 128).astype(np.uint8)
            elif self.chance(0.15):  # int8 weights with a zero point other than 0
                w_zp = self.rng.integers(-10, 11, size=np.shape(s_w)).astype(np.int8)
            wf = self.name("w")
            self.node("DequantizeLinear", [self.const(wq, "w"), self.const(s_w, "s"), self.const(w_zp, "z")], [wf],
                      **w_attrs)
            bias = []
            acc_scale = (s_x * s_w).astype(np.float32)
            if kind != "MatMul" and self.chance(0.7):
                bq = self.rng.integers(-3000, 3000, size=m).astype(np.int32)
                if exact or self.chance(0.5):  # int32 at the accumulator's scale, as quantizers write it
                    bname = self.name("bias")
                    self.node("DequantizeLinear", [self.const(bq, "b"), self.const(
                        np.broadcast_to(acc_scale, (m,)).copy() if np.ndim(acc_scale) else acc_scale, "s")], [bname],
                              **({"axis": 0} if np.ndim(acc_scale) else {}))
                else:  # a float bias, which the folding rounds to the accumulator's scale
                    bname = self.const((bq * np.max(acc_scale) * self.rng.uniform(0.9, 1.1, size=m)).astype(np.float32))
                bias = [bname]
            y = self.name("t")
            if kind == "Conv":
                n = len(ks)
                strides = [self.randint(1, 2) for _ in ks]
                pads = [self.randint(0, kk - 1) if self.chance(0.5) else 0 for kk in ks] * 2
                sp = [(d + pads[i] + pads[i + n] - ks[i]) // strides[i] + 1 for i, d in enumerate(a.shape[2:])]
                if min(sp) < 1:
                    return False
                self.node("Conv", [x, wf] + bias, [y], strides=strides, pads=pads, group=groups)
                shape = [a.shape[0], m] + sp
            elif kind == "MatMul":
                self.node("MatMul", [x, wf], [y])
                shape = a.shape[:-1] + [m]
            else:
                self.node("Gemm", [x, wf] + bias, [y], **({"transB": 1} if trans_b else {}))
                shape = [a.shape[0], m]
            s_acc = float(np.mean(s_x * s_w))
        act = self.choice(["", "", "Relu", "Clip"])
        if act:
            z = self.name("t")
            lo_hi = [self.const(np.float32(0.0)), self.const(np.float32(self.choice([6.0, 1.0, 0.5])))] \
                if act == "Clip" else []
            self.node(act, [y] + lo_hi, [z])
            y = z
        # The output scale: about the accumulator's spread over 256 steps, sometimes saturating.
        s_y = scale(max(1e-4, s_acc * np.sqrt(k) * 4), max(2e-4, s_acc * np.sqrt(k) * 64))
        ydtype = self.choice([I8, U8])
        zp_y = NP_TYPE[ydtype](self.randint(-20, 20) + (128 if ydtype == U8 else 0))
        tol = 0.0 if exact else 1.0
        q = self.out(shape, ydtype, det=exact, tol=tol)
        q.qparams = (s_y, zp_y)
        self.node("QuantizeLinear", [y, self.const(s_y, "s"), self.const(zp_y, "z")], [q.name])
        if self.chance(0.6):
            o = self.out(shape, grid=None, det=exact, tol=tol * float(s_y))
            self.use(q)
            self.node("DequantizeLinear", [q.name, self.const(s_y, "s"), self.const(zp_y, "z")], [o.name])
        return True

    def op_chain(self):
        """A kernel (Conv, MatMul, pooling) followed by two to four elementwise operators, each
        reading only the one before: what fuse_operators appends to the kernel's epilogue."""
        if not self.choice([self.op_conv, self.op_conv, self.op_matmul, self.op_pool, self.op_gemm])():
            return False
        for _ in range(self.randint(2, 4)):
            self.forced = self.pool[-1]
            if self.chance(0.15):
                self.op_batchnorm()
            else:
                (self.op_binary if self.chance(0.5) else self.op_unary)()
        self.forced = None
        return True

    def op_if(self):
        """An If whose condition is computed at run time from the data; each branch reads a
        value of the outer graph."""
        a = self.pick(lambda t: t.det)
        if a is None:
            return False
        m = self.name("t"); cond = self.name("cond")
        self.node("ReduceMax", self.use(a), [m], keepdims=0)
        self.node("Greater", [m, self.const(np.float32(self.choice([0.0, 0.5, 2.0])))], [cond])
        x = self.pick()
        shape = x.shape
        self.use(x)
        def branch(tag):
            out = self.name("b")
            if self.chance(0.2):  # the outer value itself (ORT wants an Identity in between)
                return helper.make_graph([helper.make_node("Identity", [x.name], [out], name=self.name("n"))], tag,
                                         [], [helper.make_tensor_value_info(out, TensorProto.FLOAT, shape)])
            op = self.choice(["Relu", "Sigmoid", "Neg", "Tanh"])
            mid = self.name("b")
            k = self.name("k")
            nodes = [helper.make_node(op, [x.name], [mid], name=self.name("n")),
                     helper.make_node("Constant", [], [k], name=self.name("n"),
                                      value=numpy_helper.from_array(np.float32(self.rng.uniform(-2, 2)))),
                     helper.make_node(self.choice(["Add", "Mul"]), [mid, k], [out], name=self.name("n"))]
            return helper.make_graph(nodes, tag, [], [helper.make_tensor_value_info(out, TensorProto.FLOAT, shape)])
        o = self.out(shape)
        self.node("If", [cond], [o.name], then_branch=branch("then"), else_branch=branch("else"))
        return True

    def op_loop(self):
        """A Loop with a constant trip count carrying v = v * k + x and scanning out v."""
        x = self.pick(lambda t: t.size() <= 64)
        if x is None:
            return False
        trips = self.randint(1, 4)
        it, cin, vin, cout, vout, sc = (self.name(p) for p in ("it", "c", "v", "c", "v", "s"))
        k = self.name("k"); tmp = self.name("b")
        f32 = lambda n: helper.make_tensor_value_info(n, TensorProto.FLOAT, x.shape)
        body = helper.make_graph(
            [helper.make_node("Identity", [cin], [cout], name=self.name("n")),
             helper.make_node("Constant", [], [k], name=self.name("n"), value=numpy_helper.from_array(np.float32(0.5))),
             helper.make_node("Mul", [vin, k], [tmp], name=self.name("n")),
             helper.make_node("Add", [tmp, x.name], [vout], name=self.name("n")),
             helper.make_node("Identity", [vout], [sc], name=self.name("n"))],
            "body",
            [helper.make_tensor_value_info(it, TensorProto.INT64, []),
             helper.make_tensor_value_info(cin, TensorProto.BOOL, []), f32(vin)],
            [helper.make_tensor_value_info(cout, TensorProto.BOOL, []), f32(vout), f32(sc)])
        self.use(x)
        v = self.out(x.shape, det=x.det)
        s = self.out([trips] + x.shape, det=x.det)
        init = self.const(self.grid_values(x.shape, 2, 8))
        self.node("Loop", [self.ints(trips), self.const(np.bool_(True)), init], [v.name, s.name], body=body)
        return True

    def op_while(self):
        """A Loop whose condition is computed from the data at run time (at most M iterations,
        a constant): v = v * 0.5 + x while max(v) < threshold."""
        x = self.pick(lambda t: t.size() <= 64 and t.det)
        if x is None:
            return False
        trips = self.randint(2, 6)
        it, cin, vin, cout, vout = (self.name(p) for p in ("it", "c", "v", "c", "v"))
        k, tmp, mx, thr = self.name("k"), self.name("b"), self.name("b"), self.name("k")
        f32 = lambda n: helper.make_tensor_value_info(n, TensorProto.FLOAT, x.shape)
        body = helper.make_graph(
            [helper.make_node("Constant", [], [k], name=self.name("n"), value=numpy_helper.from_array(np.float32(0.5))),
             helper.make_node("Mul", [vin, k], [tmp], name=self.name("n")),
             helper.make_node("Add", [tmp, x.name], [vout], name=self.name("n")),
             helper.make_node("ReduceMax", [vout], [mx], name=self.name("n"), keepdims=0),
             helper.make_node("Constant", [], [thr], name=self.name("n"),
                              value=numpy_helper.from_array(np.float32(self.choice([0.5, 1.0, 2.0])))),
             helper.make_node("Less", [mx, thr], [cout], name=self.name("n"))],
            "body",
            [helper.make_tensor_value_info(it, TensorProto.INT64, []),
             helper.make_tensor_value_info(cin, TensorProto.BOOL, []), f32(vin)],
            [helper.make_tensor_value_info(cout, TensorProto.BOOL, []), f32(vout)])
        self.use(x)
        v = self.out(x.shape, det=x.det)
        init = self.const(self.grid_values(x.shape, 2, 8))
        self.node("Loop", [self.ints(trips), self.const(np.bool_(True)), init], [v.name], body=body)
        return True

    def op_constant(self):
        """A constant in the pool: what reads it folds at compile time (fold_constants), and
        when nothing reads it, it is a graph output itself."""
        shape = self.random_shape() if self.chance(0.5) else self.broadcast_partner_shape(self.pool[0].shape)
        if int(np.prod(shape)) > 4000:
            return False
        name = self.const(self.grid_values(shape, 3, 16))
        self.pool.append(Tensor(name, shape, F32, (3, 16)))
        self.forced = self.pool[-1] if self.chance(0.5) else None
        return True

    def op_shape_arith(self):
        """Shape arithmetic as exporters write it, which aotc folds at compile time:
        Reshape(x, Concat(Slice(Shape(x)) or Gather(Shape(x)), constants))."""
        a = self.pick(lambda t: t.rank >= 2, dtype=None, tolerant=True)
        if a is None:
            return False
        shp = self.name("shape")
        if self.opset >= 15 and self.chance(0.3):  # Shape's start and end (opset 15)
            self.node("Shape", self.use(a), [shp], start=0, end=a.rank)
        else:
            self.node("Shape", self.use(a), [shp])
        keep = self.randint(1, a.rank - 1)
        head = self.name("t")
        if self.chance(0.5):
            self.node("Slice", [shp, self.ints([0]), self.ints([keep])], [head])
        else:
            self.node("Gather", [shp, self.ints(list(range(keep)))], [head], axis=0)
        spec = self.name("t")
        self.node("Concat", [head, self.ints([-1])], [spec], axis=0)
        o = self.movement_out(a, a.shape[:keep] + [int(np.prod(a.shape[keep:]))])
        self.node("Reshape", [a.name, spec], [o.name])
        return True

    def op_expand_tile(self):
        a = self.pick(lambda t: 1 <= t.rank <= 4 and t.size() <= 2000 and t.dtype != BOOL, dtype=None, tolerant=True)
        if a is None:
            return False
        if self.chance(0.5):  # Expand: broadcast to a shape (possibly of higher rank)
            shape = [self.randint(2, 3) if d == 1 and self.chance(0.6) else d for d in a.shape]
            extra = [self.randint(1, 3) for _ in range(self.randint(0, 1))]
            spec = extra + [1 if self.chance(0.2) else d for d in shape]
            out = list(np.broadcast_shapes(tuple(a.shape), tuple(spec)))
            o = self.movement_out(a, out)
            self.node("Expand", self.use(a) + [self.ints(spec)], [o.name])
        else:
            reps = [self.randint(1, 3) if self.chance(0.5) else 1 for _ in a.shape]
            o = self.movement_out(a, [d * r for d, r in zip(a.shape, reps)])
            self.node("Tile", self.use(a) + [self.ints(reps)], [o.name])
        return True

    def op_norm(self):
        """LayerNormalization or InstanceNormalization. Their epsilon is at least 0.01: where the
        values normalized together are (nearly) equal, a one-ulp difference in their mean is
        multiplied by 1 / sqrt(variance + epsilon) (seed 1000521, InstanceNormalization of one
        element: ORT -0.765625, where the spec gives the bias, -0.76641697, as aotc does). No
        InstanceNormalization of one element at all: with inputs near 130 ORT's result still
        missed the bias by 3.8e-5 (seed 1039903; aotc gives the bias exactly)."""
        a = self.pick(lambda t: t.rank >= 2)
        if a is None:
            return False
        if self.opset >= 17 and self.chance(0.6):
            axis = self.randint(-a.rank, a.rank - 1)
            norm_shape = a.shape[axis:]
            ins = self.use(a) + [self.const(self.float_values(norm_shape, 0.5) + 1)]
            if self.chance(0.7):
                ins.append(self.const(self.float_values(norm_shape, 0.5)))
            o = self.out(a.shape)
            self.node("LayerNormalization", ins, [o.name], axis=axis, epsilon=float(self.choice([0.01, 0.1])))
        else:
            if a.rank < 3 or int(np.prod(a.shape[2:])) == 1:
                return False
            c = a.shape[1]
            o = self.out(a.shape)
            self.node("InstanceNormalization", self.use(a) + [self.const(self.float_values([c], 0.5) + 1),
                                                              self.const(self.float_values([c], 0.5))],
                      [o.name], epsilon=float(self.choice([0.01, 0.1])))
        return True

    def op_math(self):
        """Elementwise functions beyond the activations, on inputs inside their domains."""
        a = self.pick()
        if a is None:
            return False
        op = self.choice(["Exp", "Log", "Sqrt", "Softplus", "Elu", "Selu", "PRelu", "Max", "Min", "Sum", "Mean",
                          "Reciprocal", "Pow", "Floor", "Ceil", "Round", "Sign"])
        x = self.use(a)[0]
        det = False
        if op in ("Log", "Sqrt", "Reciprocal", "Pow"):  # away from 0 and negatives: |x| + 0.5
            ab, pos = self.name("t"), self.name("t")
            self.node("Abs", [x], [ab])
            self.node("Add", [ab, self.const(np.float32(0.5))], [pos])
            x = pos
        if op == "Exp":
            cl = self.name("t")  # bounded, no overflow to compare
            self.node("Clip", [x, self.const(np.float32(-20.0)), self.const(np.float32(20.0))], [cl])
            x = cl
        if op in ("Floor", "Ceil", "Round", "Sign") and not a.det:
            return False  # a rounding step must read exact values
        ins, attrs, shape = [x], {}, a.shape
        if op in ("Max", "Min", "Sum", "Mean"):
            others = [self.partner(a) for _ in range(self.randint(1, 2))]
            ins += self.use(*others)
            shape = list(np.broadcast_shapes(tuple(a.shape), *[tuple(t.shape) for t in others]))
            det = op in ("Max", "Min") and a.det and all(t.det for t in others)
        elif op == "PRelu":
            slope_shape = self.broadcast_partner_shape(a.shape)
            ins.append(self.const(self.float_values(slope_shape, 0.3)))
        elif op == "Pow":
            ins.append(self.const(np.float32(self.choice([2.0, 0.5, 3.0, -1.0, 1.5]))))
        elif op == "Elu":
            attrs["alpha"] = float(self.choice([1.0, 0.5]))
        elif op in ("Floor", "Ceil", "Round", "Sign"):
            det = True
        o = self.out(shape, det=det)
        self.node(op, ins, [o.name], **attrs)
        return True

    def op_depth_space(self):
        # float32 only: ORT has no 8-bit SpaceToDepth (seed 4100270)
        a = self.pick(lambda t: t.rank == 4, tolerant=True)
        if a is None:
            return False
        n, c, h, w = a.shape
        b = self.choice([2, 3])
        if self.chance(0.5) and c % (b * b) == 0:
            mode = self.choice(["DCR", "CRD"])
            o = self.movement_out(a, [n, c // (b * b), h * b, w * b])
            self.node("DepthToSpace", self.use(a), [o.name], blocksize=b, mode=mode)
        elif h % b == 0 and w % b == 0:
            o = self.movement_out(a, [n, c * b * b, h // b, w // b])
            self.node("SpaceToDepth", self.use(a), [o.name], blocksize=b)
        else:
            return False
        return True

    def op_arg_cumsum(self):
        a = self.pick(lambda t: t.rank >= 1 and t.det)
        if a is None:
            return False
        axis = self.randint(-a.rank, a.rank - 1)
        if self.chance(0.5):
            op = self.choice(["ArgMax", "ArgMin"])
            keep = self.chance(0.5)
            ax = axis % a.rank
            shape = [1 if i == ax else d for i, d in enumerate(a.shape)] if keep else \
                [d for i, d in enumerate(a.shape) if i != ax]
            attrs = {"axis": axis, "keepdims": int(keep)}
            if self.chance(0.5):
                attrs["select_last_index"] = 1
            o = self.out(shape, I64, det=True)
            self.node(op, self.use(a), [o.name], **attrs)
        else:
            attrs = {}
            if self.chance(0.4):
                attrs["exclusive"] = 1
            if self.chance(0.4):
                attrs["reverse"] = 1
            o = self.out(a.shape, grid=None if a.grid is None else (a.grid[0], a.grid[1] * a.shape[axis]))
            self.node("CumSum", self.use(a) + [self.ints(axis)], [o.name], **attrs)
        return True

    def op_rnn(self):
        """LSTM or GRU over a [seq, batch, input] tensor (forward, reverse or bidirectional,
        GRU's linear_before_reset), with its last hidden state."""
        a = self.pick(lambda t: t.rank == 3 and t.shape[2] <= 16)
        if a is None:
            return False
        op = self.choice(["LSTM", "GRU"])
        seq, batch, size = a.shape
        hidden = self.randint(1, 8)
        direction = self.choice(["forward", "reverse", "bidirectional"])
        dirs = 2 if direction == "bidirectional" else 1
        gates = 4 if op == "LSTM" else 3
        w = self.const(self.float_values([dirs, gates * hidden, size], 0.5), "w")
        r = self.const(self.float_values([dirs, gates * hidden, hidden], 0.5), "w")
        ins = self.use(a) + [w, r]
        if self.chance(0.7):
            ins.append(self.const(self.float_values([dirs, 2 * gates * hidden], 0.3), "b"))
        if self.chance(0.3):  # an initial hidden state
            ins += [""] * (4 - len(ins)) + ["", self.const(self.float_values([dirs, batch, hidden], 0.5), "h")]
        attrs = {"hidden_size": hidden, "direction": direction}
        if op == "GRU" and self.chance(0.5):
            attrs["linear_before_reset"] = 1
        y = self.out([seq, dirs, batch, hidden])
        h = self.out([dirs, batch, hidden])
        self.node(op, ins, [y.name, h.name], **attrs)
        return True

    def op_reduce_more(self):
        """The other reductions (axes an attribute before opset 18)."""
        a = self.pick(lambda t: t.rank >= 1)
        if a is None:
            return False
        op = self.choice(["ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2", "ReduceLogSumExp", "ReduceSumSquare"])
        axes = sorted(int(x) for x in self.rng.choice(a.rank, size=self.randint(1, a.rank), replace=False))
        keep = self.chance(0.5)
        shape = [1 if i in axes else d for i, d in enumerate(a.shape)] if keep else \
            [d for i, d in enumerate(a.shape) if i not in axes]
        if op == "ReduceProd" and int(np.prod([a.shape[i] for i in axes])) > 8:
            return False  # products of many values overflow or vanish
        o = self.out(shape, grid=a.grid if op == "ReduceMin" else None, det=op == "ReduceMin" and a.det)
        self.node(op, self.use(a), [o.name], axes=axes, keepdims=int(keep))
        return True

    def op_logic(self):
        """Comparisons and boolean logic deciding a Where, on exact values."""
        a = self.pick(lambda t: t.det)
        if a is None:
            return False
        conds = []
        for _ in range(self.randint(1, 2)):
            c = self.name("cond")
            self.node(self.choice(["Greater", "Less", "Equal", "GreaterOrEqual", "LessOrEqual"]),
                      [a.name, self.const(np.float32(self.choice([0.0, 0.0625, -0.25])))], [c])
            conds.append(c)
        if len(conds) == 2:
            c = self.name("cond")
            self.node(self.choice(["And", "Or", "Xor"]), conds, [c])
            conds = [c]
        if self.chance(0.3):
            c = self.name("cond")
            self.node("Not", conds, [c])
            conds = [c]
        self.use(a)
        o = self.out(a.shape, grid=a.grid, det=True)
        self.node("Where", [conds[0], a.name, self.const(np.float32(0.5))], [o.name])
        return True

    OPS = [("op_binary", 6), ("op_unary", 5), ("op_conv", 4), ("op_conv_transpose", 1.5), ("op_pool", 3),
           ("op_matmul", 2), ("op_gemm", 2), ("op_batchnorm", 1.5), ("op_concat", 2), ("op_split", 1.5),
           ("op_slice", 2), ("op_transpose", 1.5), ("op_reshape", 2), ("op_flatten", 1),
           ("op_squeeze_unsqueeze", 1.5), ("op_pad", 2), ("op_reduce", 2), ("op_softmax", 1.5),
           ("op_resize", 1.5), ("op_gather", 1.5), ("op_where", 1), ("op_cast", 1), ("op_quantize", 2),
           ("op_dequantize", 1), ("op_qdq_layer", 4),
           ("op_if", 0.7), ("op_loop", 0.5), ("op_chain", 3), ("op_while", 0.5),
           ("op_shape_arith", 1), ("op_expand_tile", 1), ("op_norm", 1), ("op_math", 2), ("op_depth_space", 0.7),
           ("op_arg_cumsum", 1), ("op_constant", 0.7), ("op_rnn", 2),
           ("op_reduce_more", 1), ("op_logic", 0.7)]

    def ir_version(self):
        return 8

    def build(self):
        self.add_input(self.random_shape())
        if self.chance(0.15):
            self.add_input(self.random_shape(), self.choice([I8, U8]))
        if self.chance(0.3):
            self.add_input(self.broadcast_partner_shape(self.pool[0].shape) or [1])
        target = self.randint(1, 12)
        names = [n for n, _ in self.OPS]
        weights = np.array([w for _, w in self.OPS])
        made, tries = 0, 0
        while made < target and tries < 200:
            tries += 1
            op = names[int(self.rng.choice(len(names), p=weights / weights.sum()))]
            before = (len(self.nodes), len(self.inits), len(self.pool), self.count)
            if getattr(self, op)():
                made += 1
                # Keep tensors small enough for a quick run.
                if self.pool[-1].size() > 20000:
                    return None
            else:
                del self.nodes[before[0]:]
                del self.inits[before[1]:]
                del self.pool[before[2]:]
        # Outputs: every tensor no node reads (data-type bool never is one), at least the last.
        outs = [t for t in self.pool if t.uses == 0 and t.name not in self.feeds and t.dtype != BOOL]
        if not outs:
            outs = [self.pool[-1]]
        # Sometimes a tensor that other nodes read is an output too (the memory plan must keep it).
        read = [t for t in self.pool if t.uses > 0 and t.name not in self.feeds and t.dtype != BOOL]
        if read and self.chance(0.3):
            outs.append(self.choice(read))
        if self.chance(0.05):  # a graph input passed straight through
            outs.append(self.pool[0])
        outputs = [helper.make_tensor_value_info(t.name, ONNX_TYPE[t.dtype], t.shape) for t in outs]
        # Some constants as Constant nodes, as exporters write them, instead of initializers.
        constant_nodes = []
        for init in list(self.inits):
            if self.chance(0.15):
                self.inits.remove(init)
                constant_nodes.append(helper.make_node("Constant", [], [init.name], name=self.name("constant_"),
                                                       value=init))
        self.nodes[:0] = constant_nodes
        graph = helper.make_graph(self.nodes, "difftest", self.inputs, outputs, self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", self.opset)],
                                  producer_name="aotc-difftest")
        model.ir_version = self.ir_version()
        # Sometimes the first input's dimension 0 is symbolic, bound at compile time with
        # --dim (the driver passes the model's "difftest.aotc_args"); outputs then say only
        # their type and rank.
        aotc_args = []
        first = model.graph.input[0].type.tensor_type.shape
        if len(first.dim) and self.chance(0.1):
            size = first.dim[0].dim_value
            first.dim[0].dim_param = "N"
            for o in model.graph.output:
                for d in o.type.tensor_type.shape.dim:
                    d.ClearField("dim_value")
            aotc_args.append(f"--dim N={size}")
        # Other memory plans: inputs and outputs in the arena (seed 3200086), no in-place kernels.
        if self.chance(0.15):
            aotc_args.append("--io-in-arena")
        elif self.chance(0.05):
            aotc_args.append("--no-in-place")
        if aotc_args:
            helper.set_model_props(model, {AOTC_ARGS_KEY: " ".join(aotc_args)})
        for t in outs:
            if t.tol:
                helper.set_model_props(model, dict({p.key: p.value for p in model.metadata_props},
                                                   **{TOLERANCE_KEY + t.name: repr(t.tol)}))
        return model


def generate(seed, recent_opsets=None):
    """(model, [(input name, array)]) for this seed: the same seed gives the same model.
    About a third of the seeds (drawn apart from the model's own draws, so the other seeds
    give the models they gave before opsets 18-24 came) make a model of opset 18 to 24
    (gen_onnx_recent.py); recent_opsets=(lo, hi) makes every seed's model one of those."""
    from gen_onnx_recent import RECENT_OPSETS, RecentBuilder  # it builds on this module
    if recent_opsets is None and np.random.default_rng([seed, 18]).random() < RECENT_SHARE:
        recent_opsets = RECENT_OPSETS
    for attempt in range(20):
        b = RecentBuilder(seed * 31 + attempt, recent_opsets) if recent_opsets else Builder(seed * 31 + attempt)
        model = b.build()
        if model is not None:
            return model, [(i.name, b.feeds[i.name]) for i in b.inputs]
    raise RuntimeError(f"seed {seed}: no model small enough")


if __name__ == "__main__":
    seed, outdir = int(sys.argv[1]), sys.argv[2]
    recent = tuple(int(v) for v in sys.argv[3].split("-")) if len(sys.argv) > 3 else None
    os.makedirs(outdir, exist_ok=True)
    model, feeds = generate(seed, recent)
    onnx.save(model, os.path.join(outdir, "model.onnx"))
    for i, (_, data) in enumerate(feeds):
        np.save(os.path.join(outdir, f"input_{i}.npy"), data)
