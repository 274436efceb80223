#!/usr/bin/python3
"""The models of the random-kernel firmware test (issue #27): every ISA kernel aotc registers
(lowering/kernels/{dsp,mve,fpu}) run on the emulated core against an independent oracle.

Each model holds many independent random layers, each with its own graph input(s) and output,
so that one firmware run checks them all:

  random_kernels_s8.tflite   int8: CONV_2D (random sizes, strides 1-2, dilation, SAME/VALID,
      per-channel scales, input zero points, fused RELU/RELU6), DEPTHWISE_CONV_2D (3x3, other
      kernels, depth multiplier 2), FULLY_CONNECTED (per-tensor and per-channel), AVERAGE_POOL_2D
      and CONV_2D/DEPTHWISE_CONV_2D followed by a residual ADD of another input. The DSP
      kernels (cortex-m4, cortex-m7) and the Helium kernels (cortex-m55) take its layers.
  random_kernels_f32.tflite  float32: CONV_2D, DEPTHWISE_CONV_2D (channels a multiple of 4 and
      not), FULLY_CONNECTED, for the FPU register blocks (and their Helium code on the M55).
      Inputs, weights and biases are positive, so no sum cancels: the float kernels and TFLM
      sum the same K <= 64 positive products in other orders (with or without fused
      multiply-adds), and each result is within about (K + 1) * 2^-24 of the exact sum, so the
      two agree within 2 * 65 * 2^-24 < 1e-5 relative, the firmware's float32 tolerance.

Layers are drawn with the random-TFLite generator's helpers (tests/difftest/generate_tflite.py:
its scales, zero points, weights, biases, output scales and flatbuffer writer); which kind of
layer comes next is fixed by a plan, so that every kernel's conditions are met by some layers
(the e2e test RandomKernelModels.* checks that each registered kernel is chosen).

reference/<model>/input_K.bin (all inputs of case K concatenated in the model's order, random,
seed K) and output_K.bin (all outputs) come from TensorFlow Lite Micro's reference kernels:
tflm_run (tests/oracle/tflm, built by scripts/build_tflm_oracle.sh), the layout of
../shared/models/mlperf-tiny/reference:

    /usr/bin/python3 tests/firmware/random_kernels/make_random_kernels.py <out-dir>/build/tflm_run
"""
import math, os, subprocess, sys, tempfile
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "difftest"))
import generate_tflite as g  # noqa: E402
from generate_tflite import Gen, Act  # noqa: E402

F32 = 0
CASES = 3


class LayerGen(Gen):
    """Gen's helpers, with layers of given kinds, each on a graph input of its own."""

    def input(s, shape, typ):
        if typ == F32:
            return Act(s.m.t(s.name("in"), F32, shape, inp=True), shape, F32, None, None)
        return s.act_tensor(shape, typ, s.scale(-3, 0), s.zp(typ), inp=True, base="in")

    def output(s, y):
        s.m.outputs.append(y.idx)

    def geometry(s, h, w, k=None, stride=None, dilation=False, pad=None):
        """Kernel, strides, dilations, padding and output size; VALID only where the dilated
        window fits."""
        kh, kw = k if k else (int(s.r.integers(1, 4)), int(s.r.integers(1, 4)))
        sh, sw = stride if stride else (int(s.r.integers(1, 3)), int(s.r.integers(1, 3)))
        dh, dw = (int(s.r.integers(1, 3)), 2) if dilation else (1, 1)
        pad = pad if pad is not None else s.pick([g.SAME, g.VALID])
        if pad == g.VALID and ((kh - 1) * dh + 1 > h or (kw - 1) * dw + 1 > w):
            pad = g.SAME
        if pad == g.SAME:
            oh, ow = -(-h // sh), -(-w // sw)
        else:
            oh, ow = (h - ((kh - 1) * dh + 1)) // sh + 1, (w - ((kw - 1) * dw + 1)) // sw + 1
        return kh, kw, sh, sw, dh, dw, pad, oh, ow

    # --- int8 ---------------------------------------------------------------------------------
    def conv_s8(s, x, oc, geom, fused):
        n, h, w, c = x.shape
        kh, kw, sh, sw, dh, dw, pad, oh, ow = geom
        wt, ws = s.weights([oc, kh, kw, c], oc)
        wi = s.m.t(s.name("w"), g.I8, [oc, kh, kw, c], data=wt.tobytes(), scale=ws, zp=[0] * oc, qdim=0)
        acc = math.sqrt(kh * kw * c) * 73 * 64
        bi = s.bias(oc, [x.scale * v for v in ws], g.I32, acc / 4) if s.chance(0.85) else -1
        real = acc * x.scale * float(np.mean(ws))
        y = s.act_tensor([n, oh, ow, oc], g.I8, s.out_scale(real / 2), s.zp(g.I8))
        return s.conv_2d_op(x, wi, bi, y, geom, fused)

    def conv_2d_op(s, x, wi, bi, y, geom, fused):
        """The CONV_2D operator from x with weights wi and bias bi (-1: none) into y."""
        kh, kw, sh, sw, dh, dw, pad, oh, ow = geom
        s.m.op(g.CONV_2D, [x.idx, wi, bi], [y.idx], g.OPT_CONV,
               [(0, 'i', pad), (1, 'i', sw), (2, 'i', sh), (3, 'i', fused), (4, 'i', dw), (5, 'i', dh)])
        return y

    def depthwise_s8(s, x, mult, geom, fused):
        n, h, w, c = x.shape
        kh, kw, sh, sw, dh, dw, pad, oh, ow = geom
        oc = c * mult
        wt, ws = s.weights([1, kh, kw, oc], oc)
        wi = s.m.t(s.name("w"), g.I8, [1, kh, kw, oc], data=wt.tobytes(), scale=ws, zp=[0] * oc, qdim=3)
        acc = math.sqrt(kh * kw) * 73 * 64
        bi = s.bias(oc, [x.scale * v for v in ws], g.I32, acc / 4)
        real = acc * x.scale * float(np.mean(ws))
        y = s.act_tensor([n, oh, ow, oc], g.I8, s.out_scale(real / 2), s.zp(g.I8))
        s.m.op(g.DEPTHWISE_CONV_2D, [x.idx, wi, bi], [y.idx], g.OPT_DW,
               [(0, 'i', pad), (1, 'i', sw), (2, 'i', sh), (3, 'i', mult), (4, 'i', fused), (5, 'i', dw), (6, 'i', dh)])
        return y

    def residual_add(s, y):
        """ADD(y, another graph input of y's shape), in either order."""
        other = s.input(y.shape, g.I8)
        a, b = (y, other) if s.chance(0.5) else (other, y)
        z = s.act_tensor(y.shape, g.I8, s.out_scale(max(s.real_spread(a), s.real_spread(b))), s.zp(g.I8))
        s.m.op(g.ADD, [a.idx, b.idx], [z.idx], g.OPT_ADD, [(0, 'i', s.pick([g.ACT_NONE, g.ACT_RELU]))])
        return z

    def fc_s8(s, x, units, per_channel, fused):
        depth = x.shape[-1]
        wt, ws = s.weights([units, depth], units)
        if not per_channel:
            ws = ws[:1]
        wi = s.m.t(s.name("w"), g.I8, [units, depth], data=wt.tobytes(), scale=ws, zp=[0] * len(ws), qdim=0)
        acc = math.sqrt(depth) * 73 * 64
        bi = s.bias(units, [x.scale * v for v in ws], g.I32, acc / 4) if s.chance(0.85) else -1
        real = acc * x.scale * float(np.mean(ws))
        y = s.act_tensor([x.shape[0], units], g.I8, s.out_scale(real / 2), s.zp(g.I8))
        s.m.op(g.FULLY_CONNECTED, [x.idx, wi, bi], [y.idx], g.OPT_FC, [(0, 'i', fused)])
        return y

    def average_pool_s8(s, x, fh, fw, sh, sw, pad):
        n, h, w, c = x.shape
        if pad == g.SAME:
            oh, ow = -(-h // sh), -(-w // sw)
        else:
            oh, ow = (h - fh) // sh + 1, (w - fw) // sw + 1
        y = s.like(x, [n, oh, ow, c])
        s.m.op(g.AVERAGE_POOL_2D, [x.idx], [y.idx], g.OPT_POOL,
               [(0, 'i', pad), (1, 'i', sw), (2, 'i', sh), (3, 'i', fw), (4, 'i', fh), (5, 'i', s.pick([g.ACT_NONE, g.ACT_RELU6]))])
        return y

    def fused_s8(s):
        return s.pick([g.ACT_NONE, g.ACT_RELU, g.ACT_RELU6])

    def s8_model(s, path):
        """The int8 layers: each kind several times with random sizes."""
        size = lambda: (int(s.r.integers(2, 11)), int(s.r.integers(2, 11)))
        plan = []
        for _ in range(10):  # CONV_2D: the blocked DSP conv, Helium conv
            h, w = size()
            c, oc = int(s.r.integers(1, 41)), int(s.r.integers(1, 41))
            x = s.input([1, h, w, c], g.I8)
            s.output(s.conv_s8(x, oc, s.geometry(h, w), s.fused_s8()))
            plan.append("conv")
        for _ in range(2):  # dilated CONV_2D: the generic kernel on every core
            h, w = int(s.r.integers(5, 11)), int(s.r.integers(5, 11))
            x = s.input([1, h, w, int(s.r.integers(1, 9))], g.I8)
            s.output(s.conv_s8(x, int(s.r.integers(1, 9)), s.geometry(h, w, dilation=True), s.fused_s8()))
            plan.append("conv dilated")
        for _ in range(4):  # depthwise 3x3 (kernel width 3, stride 1 or 2): dsp.depthwise3_s8
            h, w = size()
            x = s.input([1, h, w, int(s.r.integers(1, 33))], g.I8)
            s.output(s.depthwise_s8(x, 1, s.geometry(h, w, k=(3, 3)), s.fused_s8()))
            plan.append("depthwise 3x3")
        # Other depthwise kernels: dsp.depthwise_s8, with random strides and padding, one
        # VALID layer and one whose input is smaller than its kernel (where the kernel's C
        # once declared a table or taps it never read, which -Werror refused: found by this
        # test, fixed in the loop-IR simplifier).
        for k, pad, small in (((2, 2), None, False), ((1, 5), None, False), ((5, 4), None, False),
                              ((3, 2), g.VALID, False), ((4, 5), g.SAME, True)):
            if small:
                h, w = int(s.r.integers(1, k[0])), int(s.r.integers(1, k[1]))
            else:
                h, w = int(s.r.integers(k[0], 11)), int(s.r.integers(k[1], 11))
            x = s.input([1, h, w, int(s.r.integers(1, 33))], g.I8)
            s.output(s.depthwise_s8(x, 1, s.geometry(h, w, k=k, pad=pad), s.fused_s8()))
            plan.append("depthwise %dx%d" % k)
        for _ in range(2):  # depth multiplier 2: the generic kernel
            h, w = size()
            x = s.input([1, h, w, int(s.r.integers(1, 9))], g.I8)
            s.output(s.depthwise_s8(x, 2, s.geometry(h, w), s.fused_s8()))
            plan.append("depthwise x2")
        for depthwise in (False, True, False):  # a residual ADD behind a convolution
            h, w = size()
            c = int(s.r.integers(1, 25))
            x = s.input([1, h, w, c], g.I8)
            y = s.depthwise_s8(x, 1, s.geometry(h, w, k=(3, 3)), g.ACT_NONE) if depthwise else \
                s.conv_s8(x, int(s.r.integers(1, 25)), s.geometry(h, w), g.ACT_NONE)
            s.output(s.residual_add(y))
            plan.append("depthwise + add" if depthwise else "conv + add")
        for per_channel in (False, True, False, True, False, True):  # FULLY_CONNECTED
            x = s.input([int(s.r.integers(1, 4)), int(s.r.integers(1, 80))], g.I8)
            s.output(s.fc_s8(x, int(s.r.integers(1, 21)), per_channel, s.fused_s8()))
            plan.append("fc")
        for pad in (g.VALID, g.VALID, g.SAME):  # AVERAGE_POOL_2D: Helium's inside the input, the generic one
            h, w = size()
            x = s.input([1, h, w, int(s.r.integers(1, 33))], g.I8)
            fh, fw = int(s.r.integers(1, min(h, 3) + 1)), int(s.r.integers(1, min(w, 3) + 1))
            s.output(s.average_pool_s8(x, fh, fw, int(s.r.integers(1, 3)), int(s.r.integers(1, 3)), pad))
            plan.append("average pool")
        s.m.build(path)
        return plan

    # --- float32 ------------------------------------------------------------------------------
    def positive(s, shape, lo=0.1, hi=1.0):
        return s.r.uniform(lo, hi, size=shape).astype(np.float32)

    def float_const(s, base, arr):
        return s.m.t(s.name(base), F32, list(arr.shape), data=arr.tobytes())

    def float_act(s, shape):
        return Act(s.m.t(s.name("t"), F32, shape), shape, F32, None, None)

    def conv_f32(s, x, oc, geom, fused):
        n, h, w, c = x.shape
        kh, kw, sh, sw, dh, dw, pad, oh, ow = geom
        wi = s.float_const("w", s.positive([oc, kh, kw, c]))
        bi = s.float_const("bias", s.positive([oc])) if s.chance(0.8) else -1
        y = s.float_act([n, oh, ow, oc])
        return s.conv_2d_op(x, wi, bi, y, geom, fused)

    def depthwise_f32(s, x, mult, geom, fused):
        n, h, w, c = x.shape
        kh, kw, sh, sw, dh, dw, pad, oh, ow = geom
        wi = s.float_const("w", s.positive([1, kh, kw, c * mult]))
        bi = s.float_const("bias", s.positive([c * mult]))
        y = s.float_act([n, oh, ow, c * mult])
        s.m.op(g.DEPTHWISE_CONV_2D, [x.idx, wi, bi], [y.idx], g.OPT_DW,
               [(0, 'i', pad), (1, 'i', sw), (2, 'i', sh), (3, 'i', mult), (4, 'i', fused), (5, 'i', dw), (6, 'i', dh)])
        return y

    def fc_f32(s, x, units, fused):
        wi = s.float_const("w", s.positive([units, x.shape[-1]]))
        bi = s.float_const("bias", s.positive([units])) if s.chance(0.8) else -1
        y = s.float_act([x.shape[0], units])
        s.m.op(g.FULLY_CONNECTED, [x.idx, wi, bi], [y.idx], g.OPT_FC, [(0, 'i', fused)])
        return y

    def f32_model(s, path):
        """The float32 layers; every sum has at most 64 products (see the module's doc)."""
        size = lambda: (int(s.r.integers(2, 9)), int(s.r.integers(2, 9)))
        fused = lambda: s.pick([g.ACT_NONE, g.ACT_RELU, g.ACT_RELU6])
        plan = []
        for _ in range(5):  # CONV_2D: fpu.blocked_conv_f32 (dilated: the generic kernel)
            h, w = size()
            geom = s.geometry(h, w, dilation=len(plan) == 4)
            c = int(s.r.integers(1, 64 // (geom[0] * geom[1]) + 1))
            x = s.input([1, h, w, c], F32)
            s.output(s.conv_f32(x, int(s.r.integers(1, 21)), geom, fused()))
            plan.append("conv")
        for c in (4, 12, 16, 6):  # depthwise: fpu.depthwise_f32 for 4k channels
            h, w = size()
            x = s.input([1, h, w, c], F32)
            s.output(s.depthwise_f32(x, 1, s.geometry(h, w), fused()))
            plan.append("depthwise %d ch" % c)
        x = s.input([1, 5, 5, 3], F32)  # depth multiplier 2
        s.output(s.depthwise_f32(x, 2, s.geometry(5, 5), fused()))
        plan.append("depthwise x2")
        for _ in range(3):  # FULLY_CONNECTED
            x = s.input([int(s.r.integers(1, 4)), int(s.r.integers(1, 65))], F32)
            s.output(s.fc_f32(x, int(s.r.integers(1, 21)), fused()))
            plan.append("fc")
        s.m.build(path)
        return plan


def tensor_list(model_gen):
    """(dtype, shape) of the model's inputs and outputs, in order."""
    t = model_gen.m.tensors
    return ([(t[i]["type"], t[i]["shape"]) for i in model_gen.m.inputs],
            [(t[i]["type"], t[i]["shape"]) for i in model_gen.m.outputs])


def random_input(rng, typ, shape):
    if typ == F32:
        return rng.uniform(0.1, 1.0, size=shape).astype(np.float32)  # positive: see the doc
    return rng.integers(-128, 128, size=shape).astype(np.int8)


def write_references(tflm_run, model_path, inputs, outputs, ref_dir):
    os.makedirs(ref_dir, exist_ok=True)
    for k in range(CASES):
        rng = np.random.default_rng(k)
        with tempfile.TemporaryDirectory() as tmp:
            ins = [os.path.join(tmp, "in%d.bin" % i) for i in range(len(inputs))]
            outs = [os.path.join(tmp, "out%d.bin" % i) for i in range(len(outputs))]
            for path, (typ, shape) in zip(ins, inputs):
                random_input(rng, typ, shape).tofile(path)
            subprocess.run([tflm_run, model_path, "--inputs"] + ins + ["--outputs"] + outs, check=True,
                           stdout=subprocess.DEVNULL)
            for kind, files in (("input", ins), ("output", outs)):
                with open(os.path.join(ref_dir, "%s_%d.bin" % (kind, k)), "wb") as f:
                    for path in files:
                        f.write(open(path, "rb").read())


def main():
    tflm_run = sys.argv[1]
    for stem, seed, build in (("random_kernels_s8", 27, LayerGen.s8_model), ("random_kernels_f32", 2027, LayerGen.f32_model)):
        model_gen = LayerGen(seed)
        path = os.path.join(here, stem + ".tflite")
        plan = build(model_gen, path)
        inputs, outputs = tensor_list(model_gen)
        write_references(tflm_run, path, inputs, outputs, os.path.join(here, "reference", stem))
        print("%s: %d layers (%s), %d bytes" % (stem, len(plan), ", ".join(plan), os.path.getsize(path)))


if __name__ == "__main__":
    main()
