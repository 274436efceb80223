"""The differential test's comparison, shared by the driver and the replay of committed findings
(numpy only: the replay runs without onnx or node).

An output matches when it has the reference's shape and type and every element is within
|actual - expected| <= atol + RTOL * |expected| (NaN matches NaN, an infinity itself), atol
being ATOL, or the output's own tolerance when the model gives one (integer outputs: equal, or
within that tolerance). The one operator pattern with its own tolerance is a quantized layer in
QDQ form with arbitrary scales (gen_onnx.py, op_qdq_layer): aotc computes it as an integer
kernel that rounds the real result once, where the float graph ORT runs rounds in float32
first, so the two may differ by one quantization step near a rounding tie (documented in
aot/passes/fold_qdq.cc). The model says so in its metadata_props, key
"difftest.atol.<output name>": 1 for the 8-bit output, its scale after a DequantizeLinear.
Everywhere else the generator keeps what a rounding operator (QuantizeLinear, Cast to an
integer, a comparison) reads exact in float32, so no other tolerance is needed.
"""
import numpy as np

RTOL, ATOL = 1e-3, 1e-5


TOLERANCE_KEY = "difftest.atol."


def tolerances(metadata_props):
    """{output name: absolute tolerance} from a model's metadata_props (key, value pairs)."""
    return {k[len(TOLERANCE_KEY):]: float(v) for k, v in metadata_props if k.startswith(TOLERANCE_KEY)}


def compare(expected, actual, atol=ATOL):
    """None when actual matches expected, else a one-line description of the difference."""
    if actual.shape != expected.shape:
        return f"shape {list(actual.shape)}, ORT {list(expected.shape)}"
    if actual.dtype != expected.dtype:
        return f"type {actual.dtype}, ORT {expected.dtype}"
    if expected.size == 0:
        return None
    if expected.dtype.kind in "iub":
        diff = np.abs(actual.astype(np.int64) - expected.astype(np.int64))
        bad = diff > atol if atol > ATOL else diff != 0
    else:
        e, a = expected.astype(np.float64), actual.astype(np.float64)
        both_nan = np.isnan(e) & np.isnan(a)
        same_inf = np.isinf(e) & (e == a)
        alike = both_nan | same_inf
        with np.errstate(invalid="ignore"):  # inf - inf, NaN - x: NaN, a difference
            diff = np.where(alike, 0.0, np.abs(a - e))
            bad = ~alike & ~(diff <= max(atol, ATOL) + RTOL * np.abs(e))
        diff = np.where(np.isnan(diff), np.inf, diff)
    if not bad.any():
        return None
    worst = np.unravel_index(int(np.argmax(np.where(bad, diff, -1))), expected.shape)
    return (f"{int(bad.sum())} of {expected.size} elements differ, max |diff| {float(diff[worst]):.6g} "
            f"at {list(map(int, worst))}: aotc {actual[worst]!r}, ORT {expected[worst]!r}")
