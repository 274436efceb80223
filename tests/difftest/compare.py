"""The differential test's comparison, shared by the driver and the replay of committed findings
(numpy only: the replay runs without onnx or node).

An output matches when it has the reference's shape and type and every element is within
|actual - expected| <= ATOL + RTOL * |expected| (NaN matches NaN, an infinity itself); integer
outputs must be equal. No operator needs a looser tolerance: the generator keeps values that a
rounding operator (QuantizeLinear, Cast to an integer, a comparison) reads exact in float32
(gen_onnx.py), so its outputs are the same bits in every correct implementation.
"""
import numpy as np

RTOL, ATOL = 1e-3, 1e-5


def compare(expected, actual):
    """None when actual matches expected, else a one-line description of the difference."""
    if actual.shape != expected.shape:
        return f"shape {list(actual.shape)}, ORT {list(expected.shape)}"
    if actual.dtype != expected.dtype:
        return f"type {actual.dtype}, ORT {expected.dtype}"
    if expected.size == 0:
        return None
    if expected.dtype.kind in "iub":
        bad = actual != expected
        diff = np.abs(actual.astype(np.int64) - expected.astype(np.int64))
    else:
        e, a = expected.astype(np.float64), actual.astype(np.float64)
        both_nan = np.isnan(e) & np.isnan(a)
        same_inf = np.isinf(e) & (e == a)
        diff = np.where(both_nan | same_inf, 0.0, np.abs(a - e))
        bad = ~(diff <= ATOL + RTOL * np.abs(e))
        diff = np.where(np.isnan(diff), np.inf, diff)
    if not bad.any():
        return None
    worst = np.unravel_index(int(np.argmax(np.where(bad, diff, -1))), expected.shape)
    return (f"{int(bad.sum())} of {expected.size} elements differ, max |diff| {float(diff[worst]):.6g} "
            f"at {list(map(int, worst))}: aotc {actual[worst]!r}, ORT {expected[worst]!r}")
