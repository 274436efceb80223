#!/usr/bin/python3
"""Writes npu_even_cases.h: layers of the reference NPU's _EVEN opcodes (stream format 1.1,
runtime-c/npu/aotc_npu_ref.h) with their expected outputs, for test_npu_ref.c.

The expected outputs are computed here from the header's definition alone, in exact
integer and Fraction arithmetic, not from the driver or aotc_quant_onnx.h:
  acc = bias[oc] + sum of (in + input_offset) * w over the taps inside the input
  out = clamp(round_half_even(acc * multiplier / 2^shift) saturated to int32
              + output_offset, act_min, act_max)
The script checks that the cases hold exact ties of both signs with odd and even
quotients (0.5, 1.5, 2.5 and their negatives among them), a clamp that bites at both
ends, shifts 0 and 62, and then prints how many of each it found.

Usage: /usr/bin/python3 make_npu_even_cases.py > npu_even_cases.h
"""
import random
from fractions import Fraction

INT32_MIN, INT32_MAX = -2**31, 2**31 - 1
OPS = {"CONV2D_EVEN": 8, "DEPTHWISE_CONV2D_EVEN": 9, "FULLY_CONNECTED_EVEN": 10}

stats = {"ties": set(), "clamped_low": 0, "clamped_high": 0, "shifts": set()}


def round_half_even(q):
    """The integer nearest to Fraction q, ties to the even one."""
    floor = q.numerator // q.denominator
    rest = q - floor
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and floor % 2 == 1):
        return floor + 1
    return floor


def requantize_even(acc, multiplier, shift):
    q = Fraction(acc * multiplier, 2**shift)
    if q.denominator == 2:  # an exact tie: remember which
        stats["ties"].add(q)
    return max(INT32_MIN, min(INT32_MAX, round_half_even(q)))


def output(acc, ch, case):
    assert INT32_MIN <= acc <= INT32_MAX, "the cases stay clear of int32 wrapping"
    m, s = ch["multiplier"], ch["shift"]
    stats["shifts"].add(s)
    v = requantize_even(acc, m, s) + case["output_offset"]
    if v < case["act_min"]:
        stats["clamped_low"] += 1
    if v > case["act_max"]:
        stats["clamped_high"] += 1
    return max(case["act_min"], min(case["act_max"], v))


def out_size(size, pad_before, pad_after, kernel, stride, dilation):
    return (size + pad_before + pad_after - ((kernel - 1) * dilation + 1)) // stride + 1


def conv_like(case, rng):
    """CONV2D_EVEN and DEPTHWISE_CONV2D_EVEN, from the header's formulas."""
    n, h, w, c, oc = case["n"], case["h"], case["w"], case["c"], case["oc"]
    kh, kw, sh, sw, dh, dw = case["kh"], case["kw"], case["sh"], case["sw"], case["dh"], case["dw"]
    pt, pl, pb, pr = case["pads"]
    depthwise = case["opcode"] == "DEPTHWISE_CONV2D_EVEN"
    case["oh"], case["ow"] = out_size(h, pt, pb, kh, sh, dh), out_size(w, pl, pr, kw, sw, dw)
    taps = kh * kw * (1 if depthwise else c)
    x = [rng.randint(-6, 6) for _ in range(n * h * w * c)]
    weights = [[rng.randint(-3, 3) for _ in range(taps)] for _ in range(oc)]  # record order
    out = []
    for b in range(n):
        for oy in range(case["oh"]):
            for ox in range(case["ow"]):
                for o in range(oc):
                    acc = case["channels"][o]["bias"]
                    channels = [o // (oc // c)] if depthwise else list(range(c))
                    for ky in range(kh):
                        for kx in range(kw):
                            iy, ix = oy * sh - pt + ky * dh, ox * sw - pl + kx * dw
                            if not (0 <= iy < h and 0 <= ix < w):
                                continue
                            for k, ic in enumerate(channels):
                                wt = weights[o][(ky * kw + kx) * len(channels) + k]
                                acc += (x[((b * h + iy) * w + ix) * c + ic] + case["input_offset"]) * wt
                    out.append(output(acc, case["channels"][o], case))
    return x, weights, out


def fully_connected(case, rng):
    n, c, oc = case["n"], case["c"], case["oc"]
    case.update(h=1, w=1, oh=1, ow=1, kh=1, kw=1, sh=1, sw=1, dh=1, dw=1, pads=(0, 0, 0, 0))
    x = [rng.randint(-6, 6) for _ in range(n * c)]
    weights = [[rng.randint(-3, 3) for _ in range(c)] for _ in range(oc)]
    out = []
    for b in range(n):
        for u in range(oc):
            acc = case["channels"][u]["bias"]
            acc += sum((x[b * c + i] + case["input_offset"]) * weights[u][i] for i in range(c))
            out.append(output(acc, case["channels"][u], case))
    return x, weights, out


def ch(multiplier, shift, bias):
    return {"multiplier": multiplier, "shift": shift, "bias": bias}


CASES = [
    # 3x3 "same" conv: factors 1/2 and 3/4 (ties), 1 (shift 0: the clamp bites).
    dict(name="conv_same", opcode="CONV2D_EVEN", n=1, h=3, w=4, c=2, oc=3, kh=3, kw=3, sh=1, sw=1,
         dh=1, dw=1, pads=(1, 1, 1, 1), input_offset=1, output_offset=-3, act_min=-100, act_max=100,
         channels=[ch(1, 1, 3), ch(3, 2, -2), ch(1, 0, 0)]),
    # Batches, stride 2x1, dilation 1x2, asymmetric padding; factors 5/8, 1/4, 2^30/2^33 and
    # (2^31 - 1)/2^62 with a bias near 2^30, where the product is within 2^-32 of a half.
    dict(name="conv_strided", opcode="CONV2D_EVEN", n=2, h=5, w=5, c=3, oc=4, kh=2, kw=3, sh=2, sw=1,
         dh=1, dw=2, pads=(1, 2, 0, 2), input_offset=-4, output_offset=7, act_min=-128, act_max=127,
         channels=[ch(5, 3, 1), ch(1, 2, -1), ch(1 << 30, 33, 0), ch(INT32_MAX, 62, 1 << 30)]),
    # Depth multiplier 2, stride 2, padding, a clamp of [-20, 30].
    dict(name="depthwise_m2", opcode="DEPTHWISE_CONV2D_EVEN", n=1, h=4, w=3, c=2, oc=4, kh=3, kw=3,
         sh=2, sw=2, dh=1, dw=1, pads=(1, 1, 0, 1), input_offset=-2, output_offset=5, act_min=-20,
         act_max=30, channels=[ch(1, 1, 0), ch(1, 2, 1), ch(3, 3, -1), ch(7, 5, 2)]),
    # Batches 2, one input channel, depth multiplier 2, dilation 2, padding all round.
    dict(name="depthwise_dilated", opcode="DEPTHWISE_CONV2D_EVEN", n=2, h=5, w=4, c=1, oc=2, kh=2,
         kw=2, sh=1, sw=1, dh=2, dw=2, pads=(1, 1, 1, 1), input_offset=0, output_offset=0,
         act_min=-128, act_max=127, channels=[ch(1, 1, 0), ch(5, 2, 0)]),
    # Batches 3; factors 1/2, 3/4, 1 (clamped), (2^31 - 1)/2^62.
    dict(name="fully_connected", opcode="FULLY_CONNECTED_EVEN", n=3, c=5, oc=4, input_offset=3,
         output_offset=-1, act_min=-128, act_max=127,
         channels=[ch(1, 1, 1), ch(3, 2, 0), ch(40, 0, 0), ch(INT32_MAX, 62, (1 << 30) - 7)]),
]


def c_array(ctype, name, values, per_line=16):
    rows = [", ".join(str(v) for v in values[i:i + per_line]) for i in range(0, len(values), per_line)]
    if len(rows) == 1:
        return f"static const {ctype} {name}[{len(values)}] = {{{rows[0]}}};"
    body = ",\n    ".join(rows)
    return f"static const {ctype} {name}[{len(values)}] = {{\n    {body}}};"


def main():
    rng = random.Random(20261128)
    lines = []
    for case in CASES:
        compute = fully_connected if case["opcode"] == "FULLY_CONNECTED_EVEN" else conv_like
        x, weights, out = compute(case, rng)
        name = case["name"]
        lines.append(f"/* {name} */")
        lines.append(c_array("int8_t", f"k_{name}_input", x))
        lines.append(c_array("int8_t", f"k_{name}_weights", [v for row in weights for v in row]))
        for field in ("bias", "multiplier", "shift"):
            values = [chan[field] for chan in case["channels"]]
            lines.append(c_array("int32_t", f"k_{name}_{field}", values))
        lines.append(c_array("int8_t", f"k_{name}_expected", out))
    ties = sorted(stats["ties"])
    wanted = [Fraction(k, 2) for k in (1, 3, 5, -1, -3, -5)]
    assert all(t in stats["ties"] for t in wanted), ties
    assert stats["clamped_low"] > 0 and stats["clamped_high"] > 0
    assert {0, 62} <= stats["shifts"]
    print("/* Generated by make_npu_even_cases.py; do not edit. Expected outputs of the")
    print(" * reference NPU's _EVEN opcodes, from the header's definition in exact arithmetic.")
    print(" * Exact ties among the cases' products:")
    tie_text = ", ".join(str(t) for t in ties)
    while tie_text:
        cut = tie_text.rfind(", ", 0, 80) + 1 if len(tie_text) > 80 else len(tie_text)
        print(f" *   {tie_text[:cut].strip()}")
        tie_text = tie_text[cut:].strip()
    print(f" * Outputs clamped: {stats['clamped_low']} at act_min, {stats['clamped_high']} at act_max. */")
    print("#ifndef AOTC_TESTS_RUNTIME_NPU_EVEN_CASES_H_")
    print("#define AOTC_TESTS_RUNTIME_NPU_EVEN_CASES_H_")
    print()
    print("#include <stdint.h>")
    print()
    print("#include \"npu_stream_builder.h\"")
    print()
    print("\n".join(lines))
    print()
    print("typedef struct npu_even_case {")
    print("  const char* name;")
    print("  npu_layer layer; /* shapes, window, offsets and clamp; operands set by the test */")
    print("  const int8_t* input;")
    print("  const int8_t* weights; /* each channel's taps in record order, back to back */")
    print("  const int32_t* bias;")
    print("  const int32_t* multiplier;")
    print("  const int32_t* shift;")
    print("  const int8_t* expected;")
    print("} npu_even_case;")
    print()
    print("static const npu_even_case kNpuEvenCases[] = {")
    for case in CASES:
        n = case["name"]
        pt, pl = case["pads"][0], case["pads"][1]
        layer = (f"{{AOTC_NPU_REF_OP_{case['opcode']}, {{0, 0}}, {{0, 0}}, {{0, 0}},\n"
                 f"      {case['n']}, {case['h']}, {case['w']}, {case['c']}, {case['oh']}, {case['ow']}, "
                 f"{case['oc']}, {case['kh']}, {case['kw']}, {case['sh']}, {case['sw']}, {case['dh']}, "
                 f"{case['dw']}, {pt}, {pl},\n      {case['input_offset']}, {case['output_offset']}, "
                 f"{case['act_min']}, {case['act_max']}}}")
        print(f"    {{\"{n}\", {layer},\n     k_{n}_input, k_{n}_weights, k_{n}_bias,\n"
              f"     k_{n}_multiplier, k_{n}_shift, k_{n}_expected}},")
    print("};")
    print()
    print("#endif /* AOTC_TESTS_RUNTIME_NPU_EVEN_CASES_H_ */")


if __name__ == "__main__":
    main()
