"""The opset 18-24 part of the random ONNX model generator (gen_onnx.py).

RecentBuilder is gen_onnx's Builder with an opset drawn from 18 to 24 (generate() picks it for
about a third of the seeds). It writes the operators whose form changed in those opsets as
the new opset defines them, and adds the operators those opsets introduced:

  changed form     the reductions with axes as an input (absent: every axis; empty, with
                   noop_with_empty_axes=1: the identity), Split-18 num_outputs (a shorter last
                   part), Pad-18 axes (and Pad-19 wrap), Resize-18 axes, AveragePool-19
                   dilations (in gen_onnx.op_pool), LayerNormalization's Mean and InvStdDev
                   outputs, QuantizeLinear/DequantizeLinear-21 block_size
  new operators    GroupNormalization-18 (scale and bias per group) and -21 (per channel),
                   RMSNormalization-23, Gelu-20 (exact and tanh), Mish-18, Swish-24,
                   Attention-23/24 (3-D and 4-D, grouped heads, boolean and float masks,
                   is_causal, past_key/past_value into present_key/present_value, scale,
                   softcap, qk_matmul_output in its four modes, nonpad_kv_seqlen),
                   RotaryEmbedding-23 (3-D and 4-D, position_ids or a cache per position,
                   interleaved, a partial rotary_embedding_dim), DFT-20 (axis and dft_length
                   inputs, inverse, onesided), Col2Im-18, CenterCropPad-18,
                   BitwiseAnd/Or/Xor/Not-18 (int8, uint8, int32, int64)

Every operator of gen_onnx keeps its meaning in opsets 18 to 24 (onnx_operator_versions.cc:
later versions only add types), so the rest of the Builder is used as it is. The values'
bookkeeping is gen_onnx's (grid, det, tol); the new float operators make plain float values.
"""
import numpy as np

from gen_onnx import BOOL, F32, I8, I32, I64, NP_TYPE, U8, Builder, grid_mul

RECENT_OPSETS = (18, 24)
# The IR version of the ONNX release that introduced each opset (onnx/docs/Versioning.md).
IR_VERSION = {18: 8, 19: 9, 20: 9, 21: 10, 22: 10, 23: 11, 24: 12}


class RecentBuilder(Builder):
    def __init__(self, seed, opsets=RECENT_OPSETS):
        super().__init__(seed)
        self.opset = self.randint(*opsets)

    def ir_version(self):
        return IR_VERSION[self.opset]

    # ---- operators whose form changed

    def op_reduce(self):
        """Every reduction as opset 18 writes it: axes a constant input, some of them (maybe
        negative), absent (every axis) or empty (every axis, or with noop_with_empty_axes=1
        none: each element its own group)."""
        a = self.pick(lambda t: t.rank >= 1 and t.dtype != BOOL, dtype=None)
        if a is None:
            return False
        if a.dtype == F32:
            op = self.choice(["ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1",
                              "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"])
        elif a.dtype == I64:
            op = self.choice(["ReduceSum", "ReduceMax", "ReduceMin"])
        else:
            op = self.choice(["ReduceMax", "ReduceMin"])
        form = self.choice(["some", "some", "some", "absent", "empty"])
        noop = form != "some" and self.chance(0.3)
        attrs = {"noop_with_empty_axes": 1} if noop else ({"noop_with_empty_axes": 0} if self.chance(0.1) else {})
        x = self.use(a)[0]
        if op == "ReduceLogSum":  # a positive input: |x| + 0.5
            ab, pos = self.name("t"), self.name("t")
            self.node("Abs", [x], [ab])
            self.node("Add", [ab, self.const(np.float32(0.5))], [pos])
            x = pos
        inputs = [x]
        if form == "some":
            axes = sorted(int(v) for v in self.rng.choice(a.rank, size=self.randint(1, a.rank), replace=False))
            inputs.append(self.ints([v - a.rank if self.chance(0.3) else v for v in axes]))
        else:
            axes = [] if noop else list(range(a.rank))
            if form == "empty":
                inputs.append(self.ints(np.zeros(0, np.int64)))
        keep = self.chance(0.5)
        if not (keep and self.chance(0.5)):
            attrs["keepdims"] = int(keep)
        shape = [1 if i in axes else d for i, d in enumerate(a.shape)] if keep else \
            [d for i, d in enumerate(a.shape) if i not in axes]
        count = int(np.prod([a.shape[i] for i in axes]))
        if op == "ReduceProd" and count > 8:
            return False  # products of many values overflow or vanish
        if op in ("ReduceMax", "ReduceMin"):
            grid, det = a.grid, a.det
        elif op == "ReduceSum":
            grid, det = (None if a.grid is None else (a.grid[0], a.grid[1] * count)), a.dtype == I64
        elif op == "ReduceMean" and noop:
            grid, det = a.grid, a.det
        else:
            grid, det = None, False
        o = self.out(shape, a.dtype, grid=grid, det=det)
        self.node(op, inputs, [o.name], **attrs)
        return True

    op_reduce_more = op_reduce

    def op_split(self):
        """Split-18: the sizes as an input, or num_outputs parts of ceil(d / num_outputs), the
        last one shorter when d does not divide."""
        a = self.pick(lambda t: t.rank >= 1 and max(t.shape) >= 2, dtype=None, tolerant=True)
        if a is None or a.dtype == BOOL:
            return False
        axis = self.choice([i for i, d in enumerate(a.shape) if d >= 2])
        d = a.shape[axis]
        attrs = {"axis": axis - a.rank if self.chance(0.3) else axis}
        if self.chance(0.4):
            cuts = sorted(self.rng.choice(np.arange(1, d), size=self.randint(1, min(3, d - 1)), replace=False))
            sizes = [int(s) for s in np.diff([0] + [int(c) for c in cuts] + [d])]
            inputs = self.use(a) + [self.ints(sizes)]
        else:
            # num_outputs n is valid when n - 1 parts of ceil(d / n) leave a non-empty last part.
            counts = [n for n in range(2, min(d, 5) + 1) if d - (n - 1) * -(-d // n) > 0]
            n = self.choice(counts)
            part = -(-d // n)
            sizes = [part] * (n - 1) + [d - part * (n - 1)]
            attrs["num_outputs"] = n
            inputs = self.use(a)
        outs = []
        for s in sizes:
            shape = list(a.shape)
            shape[axis] = s
            outs.append(self.movement_out(a, shape))
        self.node("Split", inputs, [o.name for o in outs], **attrs)
        return True

    def op_pad(self):
        """Pad-18 with its axes input (the pads of those axes only), Pad-19's wrap mode; else
        the pads of every axis as before."""
        if self.chance(0.4):
            return super().op_pad()
        a = self.pick(lambda t: t.rank >= 1 and t.dtype != BOOL, dtype=None)
        if a is None:
            return False
        modes = ["constant", "constant", "reflect", "edge"] + (["wrap"] if self.opset >= 19 else [])
        mode = self.choice(modes)
        axes = sorted(int(v) for v in self.rng.choice(a.rank, size=self.randint(1, a.rank), replace=False))
        begin, end = [], []
        for ax in axes:
            d = a.shape[ax]
            for side in (begin, end):
                if mode in ("reflect", "wrap"):
                    side.append(self.randint(0, min(2, d - 1)))
                elif mode == "constant" and self.chance(0.15) and d > 1:
                    side.append(-1)
                else:
                    side.append(self.randint(0, 2) if self.chance(0.7) else 0)
        shape = list(a.shape)
        for ax, b, e in zip(axes, begin, end):
            shape[ax] += b + e
        if min(shape) < 1:
            return False
        given = [v - a.rank if self.chance(0.3) else v for v in axes]
        value = ""
        if mode == "constant" and self.chance(0.5):
            value = self.const(NP_TYPE[a.dtype](self.choice([0.5, -1.0, 2.0]) if a.dtype == F32
                                                else self.choice([-1, 2, 7]) + (128 if a.dtype == U8 else 0)))
        o = self.movement_out(a, shape)
        self.node("Pad", self.use(a) + [self.ints(begin + end), value, self.ints(given)], [o.name], mode=mode)
        return True

    def op_resize(self):
        """Resize-18 with axes: scales or sizes of some of the spatial axes only."""
        if self.chance(0.4):
            return super().op_resize()
        a = self.pick(lambda t: t.rank in (3, 4) and t.dtype in (F32, I8, U8), dtype=None, tolerant=True)
        if a is None:
            return False
        # Interpolation of 4-D tensors only (ORT's linear and cubic modes want 2-D or 4-D).
        interpolate = a.rank == 4 and a.dtype == F32 and a.tol == 0 and max(a.shape[2:]) <= 32
        mode = self.choice(["nearest", "linear", "cubic"]) if interpolate else "nearest"
        spatial = list(range(2, a.rank))
        axes = sorted(int(v) for v in self.rng.choice(spatial, size=self.randint(1, len(spatial)), replace=False))
        ctm = self.choice(["half_pixel", "asymmetric", "pytorch_half_pixel"])
        attrs = {"mode": mode, "coordinate_transformation_mode": ctm,
                 "axes": [v - a.rank if self.chance(0.3) else v for v in axes]}
        if mode == "nearest":
            attrs["nearest_mode"] = self.choice(["round_prefer_floor", "round_prefer_ceil", "floor", "ceil"])
        if mode == "cubic":
            attrs["cubic_coeff_a"] = float(self.choice([-0.75, -0.5]))
        if self.chance(0.3):
            attrs["keep_aspect_ratio_policy"] = "stretch"
        shape = list(a.shape)
        if self.chance(0.5):
            scales = [float(self.choice([0.5, 0.75, 1.5, 2.0, 3.0, 1.25])) for _ in axes]
            for ax, s in zip(axes, scales):
                shape[ax] = int(np.floor(a.shape[ax] * s))
            if min(shape) < 1 or shape == a.shape:  # ORT copies an input of the output's shape
                return False
            inputs = self.use(a) + ["", self.const(np.array(scales, np.float32))]
        else:  # sizes a binary fraction of the input (see gen_onnx.op_resize)
            for ax in axes:
                d = a.shape[ax]
                shape[ax] = self.choice([d * m for m in (1, 2, 3)] + ([d // 2, d * 3 // 2] if d % 2 == 0 else []))
            inputs = self.use(a) + ["", "", self.ints([shape[ax] for ax in axes])]
        if mode != "nearest":
            inputs[0] = self.interpolated(inputs[0])
        o = self.movement_out(a, shape) if mode == "nearest" else self.out(shape)
        self.node("Resize", inputs, [o.name], **attrs)
        return True

    def op_norm(self):
        """GroupNormalization (18: scale and bias per group; 21: per channel), RMSNormalization
        (23), LayerNormalization with its Mean and InvStdDev outputs, or gen_onnx's. Epsilon is
        at least 0.01 (see gen_onnx.op_norm)."""
        choices = ["group", "layer", "base"] + (["rms"] * 4 if self.opset >= 23 else [])
        kind = self.choice(choices)
        if kind == "base":
            return super().op_norm()
        eps = float(self.choice([0.01, 0.1]))
        if kind == "group":
            a = self.pick(lambda t: t.rank >= 3)
            if a is None:
                return False
            c = a.shape[1]
            groups = self.choice([g for g in range(1, c + 1) if c % g == 0])
            n = c if self.opset >= 21 else groups
            o = self.out(a.shape)
            self.node("GroupNormalization", self.use(a) + [self.const(self.float_values([n], 0.5) + 1),
                                                           self.const(self.float_values([n], 0.5))],
                      [o.name], num_groups=groups, epsilon=eps)
            return True
        a = self.pick(lambda t: t.rank >= 1)
        if a is None:
            return False
        axis = self.randint(-a.rank, a.rank - 1)
        norm_shape = a.shape[axis:]
        # RMSNormalization's scale broadcasts to the normalized shape (a suffix of it).
        scale_shape = norm_shape[self.randint(0, len(norm_shape) - 1):] \
            if kind == "rms" and self.chance(0.3) else norm_shape
        ins = self.use(a) + [self.const(self.float_values(scale_shape, 0.5) + 1)]
        o = self.out(a.shape)
        if kind == "rms":
            self.node("RMSNormalization", ins, [o.name], axis=axis, epsilon=eps)
            return True
        if self.chance(0.7):
            ins.append(self.const(self.float_values(norm_shape, 0.5)))
        outs = [o.name]
        if self.chance(0.5):  # Mean and InvStdDev: the input's shape, 1 on the normalized axes
            stat = a.shape[:axis % a.rank] + [1] * len(norm_shape)
            outs += [self.out(stat).name for _ in range(self.randint(1, 2))]
        self.node("LayerNormalization", ins, outs, axis=axis, epsilon=eps)
        return True

    # ---- operators new in opsets 18 to 24

    def op_activation(self):
        """Gelu-20 (exact or tanh), Mish-18, Swish-24 (alpha)."""
        a = self.pick()
        if a is None:
            return False
        op = self.choice(["Mish"] + (["Gelu", "Gelu"] if self.opset >= 20 else []) +
                         (["Swish", "Swish"] if self.opset >= 24 else []))
        attrs = {}
        if op == "Gelu" and self.chance(0.5):
            attrs["approximate"] = self.choice(["tanh", "none"])
        if op == "Swish" and self.chance(0.6):
            attrs["alpha"] = float(self.choice([0.5, 1.702, 2.0]))
        inputs = self.use(a)
        if attrs.get("approximate") == "tanh":
            # ONNX Runtime's tanh form loses its digits where 1 + tanh(z) cancels: Gelu of
            # -5.14 is -8.5e-8, ORT gives +3.1e-7 (aotc -1.5e-7), and a Mul by 42 after it
            # put ORT's error past atol 1e-5 (seed 1086643). Inputs within [-3, 3] keep the
            # result's magnitude, and with it the float32 error, where the tolerance holds.
            clipped = self.name("t")
            self.node("Clip", inputs + [self.const(np.float32(-3.0)), self.const(np.float32(3.0))], [clipped])
            inputs = [clipped]
        o = self.out(a.shape)
        self.node(op, inputs, [o.name], **attrs)
        return True

    def op_bitwise(self):
        """BitwiseAnd/Or/Xor (broadcasting) and BitwiseNot of 8-bit, int32 or int64 tensors."""
        a = self.pick(lambda t: t.dtype in (I8, U8, I64, I32), dtype=None)
        if a is None or self.chance(0.3):
            dtype = self.choice([I8, U8, I32, I64])
            shape = self.random_shape()
            if int(np.prod(shape)) > 2000:
                return False
            a = self.add_input(shape, dtype, data=self.full_range(dtype, shape))
        op = self.choice(["BitwiseAnd", "BitwiseOr", "BitwiseXor", "BitwiseNot"])
        if op == "BitwiseNot":
            o = self.out(a.shape, a.dtype, det=True)
            self.node(op, self.use(a), [o.name])
            return True
        shape = self.broadcast_partner_shape(a.shape)
        data = self.full_range(a.dtype, shape)
        b = self.use(self.add_input(shape, a.dtype, data=data, pool=False))[0] if self.chance(0.3) else self.const(data)
        x, y = (self.use(a)[0], b) if self.chance(0.7) else (b, self.use(a)[0])
        o = self.out(list(np.broadcast_shapes(tuple(a.shape), tuple(shape))), a.dtype, det=True)
        self.node(op, [x, y], [o.name])
        return True

    def full_range(self, dtype, shape):
        """Integers over the whole range of the type (every bit set or clear), but int64 within
        [-2**16, 2**16): the int64 arithmetic of gen_onnx (ReduceSum, Add, Cast to float on a
        grid) reads them, and a sum that overflows is undefined (seed 6704: aotc wraps around
        as numpy does, ORT saturates). And, Or, Xor and Not keep values within such a range."""
        if dtype == I64:
            return self.rng.integers(-2**16, 2**16, size=shape, dtype=np.int64)
        info = np.iinfo(NP_TYPE[dtype])
        return self.rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=np.int64).astype(NP_TYPE[dtype])

    def op_center_crop_pad(self):
        """CenterCropPad-18: each axis (all, or those of axes) cropped or padded with zeros
        about its centre to a given length."""
        a = self.pick(lambda t: t.rank >= 1 and t.dtype != BOOL, dtype=None, tolerant=True)
        if a is None:
            return False
        attrs = {}
        if self.chance(0.5):
            axes = sorted(int(v) for v in self.rng.choice(a.rank, size=self.randint(1, a.rank), replace=False))
            attrs["axes"] = [v - a.rank if self.chance(0.3) else v for v in axes]
        else:
            axes = list(range(a.rank))
        shape = list(a.shape)
        for ax in axes:
            shape[ax] = max(1, a.shape[ax] + self.randint(-3, 3))
        o = self.movement_out(a, shape)
        # Padding makes zeros: on a grid (zero is on every grid), exact (det) as ever.
        self.node("CenterCropPad", self.use(a) + [self.ints([shape[ax] for ax in axes])], [o.name], **attrs)
        return True

    def op_col2im(self):
        """Col2Im-18: [N, C * prod(block), L] columns summed back into an image [N, C, *image]
        with strides, dilations and pads; the columns are a reshaped tensor of the pool of
        that size, or a new input."""
        dims = self.randint(1, 2) if self.chance(0.3) else 2
        image = [self.randint(2, 7) for _ in range(dims)]
        block = [self.randint(1, min(3, d)) for d in image]
        n, c = self.randint(1, 2), self.randint(1, 3)
        # ORT's Col2Im of one spatial axis with a dilation and more than one channel sums the
        # wrong columns (seed 218: [1, 6, 3] into image [5], block [2], dilations [2]; in a
        # sweep of 300 random configurations, 21 of 37 such, and no other, differed from the
        # definition, which aotc follows): no dilation there.
        dilate = dims == 2 or c == 1
        strides, dilations, pads, counts = [], [], [[], []], []
        for d, k in zip(image, block):
            s, dil, pb, pe = self.window(d, k, allow_dilation=dilate, pad_limit=1)
            strides.append(s); dilations.append(dil); pads[0].append(pb); pads[1].append(pe)
            counts.append((d + pb + pe - ((k - 1) * dil + 1)) // s + 1)
        shape = [n, c * int(np.prod(block)), int(np.prod(counts))]
        size = int(np.prod(shape))
        a = self.pick(lambda t: t.size() == size)
        if a is None:
            a = self.add_input(shape)
        if a.shape != shape:
            r = self.out(shape, grid=a.grid, det=a.det)
            self.node("Reshape", self.use(a) + [self.ints(shape)], [r.name])
            a = r
        attrs = {}
        if any(s > 1 for s in strides) or self.chance(0.3):
            attrs["strides"] = strides
        if any(d > 1 for d in dilations) or self.chance(0.3):
            attrs["dilations"] = dilations
        if any(pads[0] + pads[1]) or self.chance(0.3):
            attrs["pads"] = pads[0] + pads[1]
        o = self.out([n, c] + image, grid=grid_mul(a.grid, (0, 1), int(np.prod(block))))
        self.node("Col2Im", self.use(a) + [self.ints(image), self.ints(block)], [o.name], **attrs)
        return True

    def op_dft(self):
        """DFT along an axis other than the last (an input from opset 20, DFT-17's attribute
        before) of a real ([..., 1]) or complex ([..., 2]) signal of at least one batch and one
        signal axis, with dft_length (padding or truncating), inverse, and onesided for a real
        signal forward. The signal is a tensor of the pool through Tanh and scaled by 1/4: ORT
        rounds its twiddle factors to float32, so a coefficient that is exactly 0 (the
        imaginary part at n/2 of a real signal) comes out as about n * max|x| * 1e-6 (seed
        1320: -1.08e-5 for 12 values of Tanh, over the absolute tolerance 1e-5).
        A transform length n that is not a power of two scales it down further, by
        min(1, 6 / n)^1.5: ORT transforms those lengths with Bluestein's algorithm, whose
        chirp exp(-i pi k^2 / n) it computes at the float32 angle pi k^2 / n, off by up to
        about 1e-7 * pi n radians, and that leaves up to about 7e-7 * n^1.5 * max|x| on every
        coefficient (ORT 1.30 against numpy's float64 FFT, 64 signals uniform in [-1/4, 1/4]
        per n: 4.7e-6 at n = 12, 5.8e-5 at n = 72, 5.6e-4 at n = 255). With the scale, ORT's
        error stays under 4e-6 for n = 3..255, real or complex (radix 2 reaches 5.3e-6 at
        n = 256). Seed 1095391: a real signal of 72 values, whose coefficient 6 is -0.0072168
        in float64 and in aotc, -0.0072370 in ORT."""
        a = self.pick(lambda t: 2 <= t.rank <= 3 and t.size() <= 256)
        if a is None:
            return False
        complex_signal = a.rank >= 3 and a.shape[-1] == 2 and self.chance(0.5)
        shape = list(a.shape) if complex_signal else a.shape + [1]
        rank = len(shape)
        axis = self.randint(0, rank - 2)
        n = shape[axis]
        inverse = self.chance(0.4)
        onesided = shape[-1] == 1 and not inverse and self.chance(0.4)
        length = self.randint(1, min(16, 2 * n + 2)) if self.chance(0.4) else None
        given = axis - rank if self.chance(0.3) else axis
        out_len = length if length is not None else n
        scale = 0.25 if out_len & (out_len - 1) == 0 else 0.25 * min(1.0, 6.0 / out_len) ** 1.5
        bounded, th = self.name("t"), self.name("t")
        self.node("Tanh", self.use(a), [bounded])
        self.node("Mul", [bounded, self.const(np.float32(scale))], [th])
        if complex_signal:
            signal = th
        else:
            signal = self.name("t")
            self.node("Unsqueeze", [th, self.ints([-1])], [signal])
        inputs = [signal, self.ints(np.int64(length)) if length is not None else ""]
        if self.opset >= 20:
            inputs.append(self.ints(np.int64(given)))
            attrs = {}
        else:
            while inputs[-1] == "":
                inputs.pop()
            attrs = {"axis": given}
        out = list(shape[:-1]) + [2]
        out[axis] = out_len // 2 + 1 if onesided else out_len
        if inverse:
            attrs["inverse"] = 1
        if onesided:
            attrs["onesided"] = 1
        o = self.out(out)
        self.node("DFT", inputs, [o.name], **attrs)
        return True

    def float_operand(self, shape, scale=1.0):
        """A float tensor of this shape: from the pool when one fits (and is not too large in
        magnitude, so through Tanh and scaled), else a new graph input."""
        a = self.pick(lambda t: t.shape == shape) if self.chance(0.5) else None
        if a is None:
            return self.use(self.add_input(shape, data=self.float_values(shape, scale)))[0]
        t, s = self.name("t"), self.name("t")
        self.node("Tanh", self.use(a), [t])
        self.node("Mul", [t, self.const(np.float32(2.0 * scale))], [s])
        return s

    def op_attention(self):
        """Attention-23/24 with random valid attributes and small shapes: 3-D or 4-D Q/K/V,
        grouped query heads, a boolean or float mask broadcast over batch and heads,
        is_causal, a key/value cache (present_key/present_value), scale, softcap,
        qk_matmul_output in each mode and, from opset 24, nonpad_kv_seqlen."""
        if self.opset < 23:
            return False
        batch, kv_heads = self.randint(1, 2), self.randint(1, 2)
        q_heads = kv_heads * self.randint(1, 3)
        q_len, kv_len = self.randint(1, 5), self.randint(1, 5)
        # is_causal: query i sees key j <= i + the past length (the errata, onnx/onnx#8068, and
        # aotc), where ORT 1.30 takes the total less the query length (seed 1090: 1 query, 5
        # keys after 3 cached); they agree when there are as many new keys as queries.
        causal = self.chance(0.4)
        if causal:
            kv_len = q_len
        head, v_head = self.choice([2, 4, 8]), self.choice([2, 4, 8]) if self.chance(0.3) else None
        v_head = v_head or head
        three_d = self.chance(0.4)
        past = self.randint(1, 4) if self.chance(0.35) else 0
        nonpad = self.opset >= 24 and not past and self.chance(0.5)
        total = past + kv_len
        attrs = {}
        if three_d:
            attrs = {"q_num_heads": q_heads, "kv_num_heads": kv_heads}
            shapes = [[batch, q_len, q_heads * head], [batch, kv_len, kv_heads * head],
                      [batch, kv_len, kv_heads * v_head]]
        else:
            shapes = [[batch, q_heads, q_len, head], [batch, kv_heads, kv_len, head], [batch, kv_heads, kv_len, v_head]]
        inputs = [self.float_operand(s) for s in shapes]
        if causal:
            attrs["is_causal"] = 1
        mask_kind = self.choice(["", "", "bool", "float"])
        if mask_kind:
            mshape = self.choice([[q_len, total], [1, q_len, total], [batch, 1, q_len, total],
                                  [1, q_heads, q_len, total], [batch, q_heads, q_len, total]])
            if mask_kind == "bool":
                data = self.rng.random(mshape) < 0.75
            else:
                data = self.float_values(mshape, 1.0)
            inputs.append(self.runtime_operand(data))
        if past or nonpad:
            inputs += [""] * (4 - len(inputs))
        if past:
            inputs += [self.use(self.add_input([batch, kv_heads, past, head], data=self.float_values(
                [batch, kv_heads, past, head])))[0],
                       self.use(self.add_input([batch, kv_heads, past, v_head], data=self.float_values(
                           [batch, kv_heads, past, v_head])))[0]]
        if nonpad:
            low = min(q_len, kv_len) if causal else 1
            lengths = self.rng.integers(low, kv_len + 1, size=batch).astype(np.int64)
            inputs += ["", "", self.runtime_operand(lengths)]
        if self.chance(0.3):
            attrs["scale"] = float(self.choice([0.125, 0.3, 1.0]))
        if self.chance(0.3):
            attrs["softcap"] = float(self.choice([1.0, 2.0, 5.0]))
        y_shape = [batch, q_len, q_heads * v_head] if three_d else [batch, q_heads, q_len, v_head]
        outs = [self.out(y_shape)]
        if past:  # ORT computes no past_key without present_key
            outs += [self.out([batch, kv_heads, total, head]), self.out([batch, kv_heads, total, v_head])]
        if self.chance(0.3):
            # Mode 2 (scores with the masks added): ORT writes the lowest float where a boolean
            # or causal mask removes a key, the spec -inf (tests/models/opset18plus): not drawn then.
            modes = [0, 1, 3] + ([2] if not causal and mask_kind != "bool" and not nonpad else [])
            mode = self.choice(modes)
            if mode or self.chance(0.5):
                attrs["qk_matmul_output_mode"] = mode
            while len(outs) < 3:  # present_key/present_value unnamed
                outs.append(None)
            outs.append(self.out([batch, q_heads, q_len, total]))
        names = [o.name if o is not None else "" for o in outs]
        self.node("Attention", inputs, names, **attrs)
        return True

    def op_rotary(self):
        """RotaryEmbedding-23: 4-D [batch, heads, sequence, head] or 3-D with num_heads, the
        whole head or an even rotary_embedding_dim of it, halves or interleaved pairs, the
        angles from position_ids into a cache or from a cache per batch and position."""
        if self.opset < 23:
            return False
        def fits(t):
            if t.rank == 4:
                return t.shape[3] % 2 == 0 and t.shape[3] <= 16
            return t.rank == 3 and t.shape[2] % 2 == 0 and t.shape[2] <= 32
        a = self.pick(fits) if self.chance(0.6) else None
        if a is None:
            shape = [self.randint(1, 2), self.randint(1, 3), self.randint(1, 5), self.choice([2, 4, 6, 8])]
            if self.chance(0.4):
                shape = [shape[0], shape[2], shape[1] * shape[3]]
            a = self.add_input(shape, data=self.float_values(shape))
        attrs = {}
        if a.rank == 4:
            batch, _, length, head = a.shape
        else:
            batch, length, hidden = a.shape
            heads = self.choice([h for h in range(1, hidden + 1) if hidden % h == 0 and (hidden // h) % 2 == 0])
            attrs["num_heads"] = heads
            head = hidden // heads
        rotary = head
        if self.chance(0.4):
            rotary = 2 * self.randint(1, head // 2)
            attrs["rotary_embedding_dim"] = rotary
        if self.chance(0.4):
            attrs["interleaved"] = 1
        half = rotary // 2
        if self.chance(0.6):
            max_pos = self.randint(length, length + 6)
            angles = np.outer(np.arange(max_pos), 1.0 / 10000 ** (np.arange(half) / max(half, 1)))
            positions = self.rng.integers(0, max_pos, size=(batch, length)).astype(np.int64)
            caches = [np.cos(angles).astype(np.float32), np.sin(angles).astype(np.float32)]
            extra = [self.runtime_operand(positions)]
        else:
            angles = self.rng.uniform(-3, 3, size=(batch, length, half))
            caches = [np.cos(angles).astype(np.float32), np.sin(angles).astype(np.float32)]
            extra = []
        o = self.out(a.shape)
        self.node("RotaryEmbedding", self.use(a) + [self.const(c) for c in caches] + extra, [o.name], **attrs)
        return True

    def op_quantize_blocked(self):
        """QuantizeLinear/DequantizeLinear-21 with block_size: power-of-two scales per block
        of an axis (a shorter last block), on a value every implementation computes alike
        (as gen_onnx.op_quantize), or int8 weights dequantized per block into a MatMul. At
        least two blocks: ORT takes a scale of one element for per-tensor quantization and
        refuses its block_size (seed 2803)."""
        if self.opset < 21:
            return False
        if self.chance(0.5):
            a = self.pick(lambda t: t.det and t.rank >= 1 and max(t.shape) >= 2)
            if a is None:
                return False
            axis = self.choice([i for i, d in enumerate(a.shape) if d >= 2])
            block = self.randint(1, a.shape[axis] - 1)
            sshape = list(a.shape)
            sshape[axis] = -(-a.shape[axis] // block)
            e0 = self.randint(-1, 6) if a.grid is None else self.randint(max(-2, a.grid[0] - 6), a.grid[0] + 1)
            exps = self.rng.integers(e0 - 1, e0 + 2, size=sshape)
            scale = (2.0 ** -exps).astype(np.float32)
            dtype = self.choice([I8, U8])
            zp = (self.rng.integers(-10, 11, size=sshape) + (128 if dtype == U8 else 0)).astype(NP_TYPE[dtype])
            attrs = {"axis": axis - a.rank if self.chance(0.3) else axis, "block_size": block}
            q = self.out(a.shape, dtype, det=True)
            self.node("QuantizeLinear", self.use(a) + [self.const(scale, "s"), self.const(zp, "z")], [q.name], **attrs)
            if self.chance(0.8):
                emax, emin = int(exps.max()), int(exps.min())
                o = self.out(a.shape, grid=(max(emax, 0), 256 << max(0, emax - emin)))
                self.node("DequantizeLinear", self.use(q) + [self.const(scale, "s"), self.const(zp, "z")], [o.name],
                          **attrs)
            return True
        a = self.pick(lambda t: 2 <= t.rank <= 4 and t.shape[-1] <= 64)
        if a is None:
            return False
        k, n = a.shape[-1], self.randint(2, 8)
        axis = 1 if k < 2 else self.randint(0, 1)  # blocks along K (axis 0) or along N (axis 1)
        block = self.randint(1, (k, n)[axis] - 1)
        sshape = [k, n]
        sshape[axis] = -(-sshape[axis] // block)
        wq = self.rng.integers(-127, 128, size=(k, n)).astype(np.int8)
        exps = self.rng.integers(5, 9, size=sshape)
        ins = [self.const(wq, "w"), self.const((2.0 ** -exps).astype(np.float32), "s")]
        if self.chance(0.5):
            ins.append(self.const(self.rng.integers(-5, 6, size=sshape).astype(np.int8), "z"))
        w = self.name("w")
        self.node("DequantizeLinear", ins, [w], axis=axis, block_size=block)
        emax, emin = int(exps.max()), int(exps.min())
        o = self.out(a.shape[:-1] + [n], grid=grid_mul(a.grid, (emax, 133 << (emax - emin)), k))
        self.node("MatMul", self.use(a) + [w], [o.name])
        return True

    OPS = Builder.OPS + [("op_activation", 2), ("op_bitwise", 1), ("op_center_crop_pad", 1), ("op_col2im", 1),
                         ("op_dft", 1), ("op_attention", 3), ("op_rotary", 2), ("op_quantize_blocked", 1.5)]
