#!/usr/bin/python3
"""Differential sweep of aotc against TensorFlow Lite Micro (the tflm_run oracle, README.md).

For each model and seed: tflm_run generates random inputs (--random SEED) and runs the model
through TFLM's reference kernels; `aotc run` compiles the same model to C, builds and runs it
on the same input bytes; the outputs are compared, integer tensors byte for byte, float32
within a relative tolerance (1e-5 of the larger magnitude; NaN matches only NaN).

  sweep.py --tflm-run OUT/build/tflm_run --aotc build/aotc --snapshot <tflite-micro-git-dir> \
           --work /tmp/sweep --table sweep.txt [--seeds 1 2] [--jobs 2] [--filter REGEX] [MODEL.tflite ...]

Models: every *.tflite at the snapshot's HEAD (read with git, not from a work tree) plus any
given on the command line. A model of TFLM's integration tests (seanet/*) is also run on the
test's own inputs (seed "csv": <stem>_input<K>_<type>.csv), and there TFLM's output is checked
against the test's golden output, which checks the oracle itself. The table (one row per
model and seed) goes to --table and a summary to stdout. Needs /usr/bin/python3 with numpy
only. Exit status 0 whatever the results: it reports, it does not judge.
"""
import argparse
import concurrent.futures
import os
import re
import subprocess
import sys

import numpy as np

# tflm_run names types as TFLM's TfLiteTypeGetName does.
DTYPES = {
    "FLOAT32": np.float32, "INT8": np.int8, "UINT8": np.uint8, "INT16": np.int16,
    "INT32": np.int32, "INT64": np.int64, "BOOL": np.bool_, "UINT16": np.uint16,
    "UINT32": np.uint32, "FLOAT64": np.float64, "FLOAT16": np.float16,
}
FLOAT_RTOL = 1e-5
AOTC_TIMEOUT_S = 900
TFLM_TIMEOUT_S = 600


def first_line(text, head=80, tail=120):
    """The first line that says something (an 'error:' line when there is one), its middle cut
    when long: aotc's messages start with the node and end with what is wrong."""
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    errors = [l for l in lines if "error" in l.lower()]
    line = (errors or lines or [""])[0]
    return line if len(line) <= head + tail + 5 else line[:head] + " ... " + line[-tail:]


def parse_tensors(stdout):
    """tflm_run's 'input|output INDEX TYPE DIMS BYTES NAME' lines
    -> {kind: [(dtype name, dims, tensor name)]}."""
    tensors = {"input": [], "output": []}
    for line in stdout.splitlines():
        parts = line.split(" ", 5)
        if len(parts) >= 5 and parts[0] in tensors:
            tensors[parts[0]].append((parts[2], parts[3], parts[5] if len(parts) == 6 else ""))
    return tensors


def compare(type_name, dims, tflm_path, aotc_path):
    """(matches, max abs diff, count of differing elements, element count, note)."""
    dtype = DTYPES.get(type_name)
    a = open(tflm_path, "rb").read()
    b = open(aotc_path, "rb").read()
    if dtype is None:
        same = a == b
        return same, None, 0 if same else None, None, f"type {type_name}: bytes only"
    if len(a) != len(b):
        return False, None, None, len(a) // np.dtype(dtype).itemsize, \
            f"size {len(b)} bytes from aotc, {len(a)} from TFLM"
    x = np.frombuffer(a, dtype=dtype)
    y = np.frombuffer(b, dtype=dtype)
    if np.issubdtype(dtype, np.floating):
        x64, y64 = x.astype(np.float64), y.astype(np.float64)
        both_nan = np.isnan(x64) & np.isnan(y64)
        diff = np.abs(x64 - y64)
        scale = np.maximum(np.abs(x64), np.abs(y64))
        bad = ~both_nan & ~(diff <= FLOAT_RTOL * scale)
        finite = ~np.isnan(diff)
        max_diff = float(diff[finite].max()) if finite.any() else 0.0
    else:
        diff = np.abs(x.astype(np.int64) - y.astype(np.int64))
        bad = diff != 0
        max_diff = int(diff.max()) if diff.size else 0
    n_bad = int(bad.sum())
    note = ""
    if n_bad:
        i = int(np.argmax(bad))
        note = f"first at flat index {i}: tflm {x[i]!r} aotc {y[i]!r}"
    return n_bad == 0, max_diff, n_bad, x.size, note


def csv_to_bin(csv_path, bin_path):
    """A TFLM integration test's CSV tensor (its type in its name: *_int16.csv) as raw bytes."""
    type_name = csv_path.rsplit("_", 1)[1][: -len(".csv")].upper()
    values = open(csv_path).read().replace("\n", ",").split(",")
    data = np.array([int(v) for v in values if v.strip()], dtype=DTYPES[type_name])
    with open(bin_path, "wb") as f:
        f.write(data.tobytes())


def run_one(args, name, model_path, seed, csv_inputs, csv_golden):
    """One model on one input set: seed N (random inputs) or "csv" (the integration test's)."""
    work = os.path.join(args.work, re.sub(r"[^A-Za-z0-9_.-]", "_", name), f"seed{seed}")
    os.makedirs(work, exist_ok=True)
    row = {"model": name, "seed": seed, "tflm": "", "aotc": "", "result": "", "detail": ""}

    # TFLM first; it names the inputs and outputs, one file each.
    probe = subprocess.run([args.tflm_run, model_path, "--describe"],
                           capture_output=True, text=True, timeout=TFLM_TIMEOUT_S)
    if probe.returncode != 0:
        row["tflm"] = f"fails (exit {probe.returncode}): {first_line(probe.stderr)}"
        row["result"] = "no oracle"
        return row
    described = parse_tensors(probe.stdout)
    n_in, n_out = len(described["input"]), len(described["output"])
    inputs = [os.path.join(work, f"in{i}.bin") for i in range(n_in)]
    tflm_outputs = [os.path.join(work, f"tflm_out{i}.bin") for i in range(n_out)]
    aotc_outputs = [os.path.join(work, f"aotc_out{i}.bin") for i in range(n_out)]
    for stale in tflm_outputs + aotc_outputs:
        if os.path.exists(stale):
            os.remove(stale)
    if seed == "csv":
        for csv_path, bin_path in zip(csv_inputs, inputs):
            csv_to_bin(csv_path, bin_path)
        tflm_cmd = [args.tflm_run, model_path, "--inputs", *inputs, "--outputs", *tflm_outputs]
    else:
        tflm_cmd = [args.tflm_run, model_path, "--random", str(seed), "--inputs", *inputs,
                    "--outputs", *tflm_outputs]
    tflm = subprocess.run(tflm_cmd, capture_output=True, text=True, timeout=TFLM_TIMEOUT_S)
    tensors = parse_tensors(tflm.stdout)
    if tflm.returncode != 0:
        row["tflm"] = f"fails (exit {tflm.returncode}): {first_line(tflm.stderr)}"
        row["result"] = "no oracle"
        return row
    row["tflm"] = "ok"
    if seed == "csv" and csv_golden:
        # The integration test's expected output: checks the oracle itself.
        golden_bin = os.path.join(work, "golden_out0.bin")
        csv_to_bin(csv_golden, golden_bin)
        # Its goldens come from TFLite, and its integration_tests.cc allows each element to be
        # off by 1 (EXPECT_NEAR(golden, output, 1), b/205046520).
        match, max_diff, n_bad, n, _ = compare(tensors["output"][0][0], "", golden_bin, tflm_outputs[0])
        if match:
            row["tflm"] = "ok, = golden"
        elif max_diff is not None and max_diff <= 1:
            row["tflm"] = f"ok, = golden within the test's +-1 ({n_bad}/{n} off by 1)"
        else:
            row["tflm"] = f"ok, but {n_bad}/{n} differ from golden, by up to {max_diff}"

    cmd = [args.aotc, "run", model_path, "--outputs", ",".join(aotc_outputs)]
    if inputs:
        cmd[3:3] = ["--inputs", ",".join(inputs)]
    try:
        aotc = subprocess.run(cmd, capture_output=True, text=True, timeout=AOTC_TIMEOUT_S,
                              cwd=work)
    except subprocess.TimeoutExpired:
        row["aotc"] = f"timeout after {AOTC_TIMEOUT_S} s"
        row["result"] = "aotc fails"
        return row
    shape_inputs = [i for i, t in enumerate(described["input"]) if t[0] == "INT32"]
    if aotc.returncode != 0 and seed == "csv" and shape_inputs and "must be a constant" in aotc.stderr:
        # The integration test feeds an operand aotc needs at compile time (TRANSPOSE_CONV's
        # output shape) as a model input: bind it to the test's value, as a user would.
        cmd = [args.aotc, "run", model_path, "--outputs", ",".join(aotc_outputs)]
        for i in shape_inputs:
            cmd += ["--bind", f"{described['input'][i][2]}={inputs[i]}"]
        rest = [inputs[i] for i in range(n_in) if i not in shape_inputs]
        if rest:
            cmd += ["--inputs", ",".join(rest)]
        aotc = subprocess.run(cmd, capture_output=True, text=True, timeout=AOTC_TIMEOUT_S, cwd=work)
        row["detail"] = "aotc given --bind for the INT32 input(s) " + ", ".join(map(str, shape_inputs))
    if aotc.returncode != 0:
        row["aotc"] = f"fails (exit {aotc.returncode}): {first_line(aotc.stderr + aotc.stdout)}"
        row["result"] = "aotc fails"
        return row
    row["aotc"] = "ok"

    details, all_match = [], True
    for i, (type_name, dims, _) in enumerate(tensors["output"]):
        match, max_diff, n_bad, n, note = compare(type_name, dims, tflm_outputs[i], aotc_outputs[i])
        all_match &= match
        if not match:
            short = type_name.lower()
            details.append(f"out{i} {short} {dims}: {n_bad if n_bad is not None else '?'}/{n} differ, "
                           f"max diff {max_diff}; {note}")
    row["result"] = "match" if all_match else "MISMATCH"
    row["detail"] = " | ".join(([row["detail"]] if row["detail"] else []) + details)
    return row


def snapshot_files(snapshot):
    return subprocess.run(["git", "-C", snapshot, "ls-tree", "-r", "HEAD", "--name-only"],
                          capture_output=True, text=True, check=True).stdout.split()


def integration_csvs(model_name, names):
    """TFLM integration tests keep each model's inputs and expected output beside it as
    <stem>_input<K>_<type>.csv and <stem>_golden_<type>.csv: ([inputs in order], golden)."""
    stem = model_name[: -len(".tflite")]
    inputs, golden = {}, None
    for n in names:
        m = re.fullmatch(re.escape(stem) + r"_input(\d+)_[a-z0-9]+\.csv", n)
        if m:
            inputs[int(m.group(1))] = n
        elif re.fullmatch(re.escape(stem) + r"_golden_[a-z0-9]+\.csv", n):
            golden = n
    return [inputs[k] for k in sorted(inputs)], golden


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tflm-run", required=True)
    p.add_argument("--aotc", required=True)
    p.add_argument("--snapshot", help="tflite-micro git dir whose HEAD's .tflite files to sweep")
    p.add_argument("--work", required=True, help="folder for models, inputs and outputs")
    p.add_argument("--table", required=True)
    p.add_argument("--seeds", type=int, nargs="+", default=[1, 2])
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--filter", default="", help="only models whose name matches this regex")
    p.add_argument("models", nargs="*", help="more .tflite files")
    args = p.parse_args()
    args.tflm_run = os.path.abspath(args.tflm_run)
    args.aotc = os.path.abspath(args.aotc)
    os.makedirs(args.work, exist_ok=True)

    models = []  # (name, path, [csv input paths], csv golden path or None)
    if args.snapshot:
        model_dir = os.path.join(args.work, "models")

        def extract(name):
            path = os.path.join(model_dir, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(subprocess.run(["git", "-C", args.snapshot, "show", f"HEAD:{name}"],
                                       capture_output=True, check=True).stdout)
            return path

        names = snapshot_files(args.snapshot)
        for name in (n for n in names if n.endswith(".tflite")):
            if not re.search(args.filter, name):
                continue
            csv_inputs, golden = integration_csvs(name, names)
            models.append((name, extract(name), [extract(c) for c in csv_inputs],
                           extract(golden) if golden else None))
    models += [(m, os.path.abspath(m), [], None) for m in args.models if re.search(args.filter, m)]

    jobs = [(name, path, seed, csv_inputs, golden)
            for name, path, csv_inputs, golden in models
            for seed in args.seeds + (["csv"] if csv_inputs else [])]
    rows = []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {pool.submit(run_one, args, *job): job for job in jobs}
        for future in concurrent.futures.as_completed(futures):
            name, _, seed, _, _ = futures[future]
            try:
                row = future.result()
            except Exception as e:  # a sweep reports every model, whatever one of them does
                row = {"model": name, "seed": seed, "tflm": "", "aotc": "",
                       "result": "sweep error", "detail": repr(e)}
            rows.append(row)
            print(f"[{len(rows)}/{len(jobs)}] {row['result']:10} {name} seed {seed} "
                  f"{row['detail'] or row['aotc'] or row['tflm']}"[:240], flush=True)
    rows.sort(key=lambda r: (r["model"], str(r["seed"])))

    with open(args.table, "w") as f:
        f.write("model\tseed\tresult\taotc\ttflm\tdetail (per differing output: count/elements, max abs diff, first difference)\n")
        for r in rows:
            f.write(f"{r['model']}\t{r['seed']}\t{r['result']}\t{r['aotc']}\t{r['tflm']}\t{r['detail']}\n")
    counts = {}
    for r in rows:
        counts[r["result"]] = counts.get(r["result"], 0) + 1
    print(f"{len(models)} models, {len(rows)} runs: " +
          ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))


if __name__ == "__main__":
    sys.exit(main())
