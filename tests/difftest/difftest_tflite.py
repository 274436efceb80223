#!/usr/bin/python3
"""Differential test of aotc's TFLite path against TensorFlow Lite Micro (issue #26).

    /usr/bin/python3 tests/difftest/difftest_tflite.py --seeds 1-1000 --aotc build/aotc \\
        --tflm-run <out-dir of scripts/build_tflm_oracle.sh>/build/tflm_run --findings DIR

For each seed: generate_tflite.py writes a random quantized model; `tflm_run --random SEED`
writes random inputs and what TFLM's reference kernels compute from them; `aotc run` is given
the same input files; every output must be identical byte for byte. A model TFLM refuses
(exit 2) is skipped and counted by TFLM's reason: that is the generator's fault. An aotc exit
1 is a refusal, counted by its message; any other failure of aotc (a crash, an internal error,
C that does not compile) and any differing output is a finding, saved as
DIR/seed<N>/{model.tflite, input_K.bin, tflm_output_K.bin, aotc_output_K.bin, report.txt}.
Runs --jobs seeds at once (default 2); prints a summary."""
import argparse, collections, os, re, shutil, subprocess, sys, tempfile, time
from concurrent.futures import ThreadPoolExecutor
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
from generate_tflite import Gen  # noqa: E402

NUMPY_TYPE = {"INT8": np.int8, "INT16": np.int16, "INT32": np.int32, "FLOAT32": np.float32,
              "UINT8": np.uint8}


def first_error(text):
    lines = [l for l in text.splitlines() if l.strip()]
    errs = [l for l in lines if "error" in l.lower()]
    return (errs or lines or ["(no message)"])[0].strip()


def reason(text):
    """A message with its numbers and tensor names taken out, to count messages by kind."""
    text = re.sub(r"'[^']*'", "'_'", text)
    text = re.sub(r"\b(t|in|k|w|bias|c|gamma|beta|pads|pad_value)_\d+\b", "T", text)
    return re.sub(r"-?\d+(\.\d+)?(e-?\d+)?", "N", text)[:160]


def tflm_reason(stderr):
    """TFLM's log ends with the failed check, the node, then tflm_run's own line."""
    lines = [l.strip() for l in stderr.splitlines() if l.strip()]
    return reason(" | ".join(lines[-3:-1]) or " | ".join(lines) or "(no message)")


def run_seed(seed, args):
    work = tempfile.mkdtemp(prefix="seed%d_" % seed, dir=args.work)
    try:
        model = os.path.join(work, "model.tflite")
        ops = Gen(seed).model(model)
        desc = subprocess.run([args.tflm_run, model, "--describe"], capture_output=True, text=True)
        if desc.returncode != 0:
            return seed, ops, "tflm_refused", tflm_reason(desc.stderr), None
        io = [l.split() for l in desc.stdout.splitlines() if l.startswith(("input ", "output "))]
        ins = [os.path.join(work, "input_%s.bin" % l[1]) for l in io if l[0] == "input"]
        outs = [(os.path.join(work, "tflm_output_%s.bin" % l[1]), l[2]) for l in io if l[0] == "output"]
        t = subprocess.run([args.tflm_run, model, "--random", str(seed), "--inputs", *ins,
                            "--outputs", *[o for o, _ in outs]], capture_output=True, text=True)
        if t.returncode != 0:
            return seed, ops, "tflm_refused", tflm_reason(t.stderr), None
        aouts = [o.replace("tflm_output", "aotc_output") for o, _ in outs]
        try:
            a = subprocess.run([args.aotc, "run", model, "--inputs", ",".join(ins),
                                "--outputs", ",".join(aouts)] + args.aotc_args.split(), capture_output=True, text=True,
                               timeout=120)
        except subprocess.TimeoutExpired:
            return seed, ops, "finding", "aotc timed out", save(seed, work, args, "aotc timed out")
        if a.returncode == 1:
            return seed, ops, "aotc_refused", reason(first_error(a.stderr)), None
        if a.returncode != 0:
            msg = "aotc exit %d: %s" % (a.returncode, first_error(a.stderr + a.stdout))
            return seed, ops, "finding", reason(msg), save(seed, work, args, msg)
        diffs = []
        for k, ((tp, typ), ap) in enumerate(zip(outs, aouts)):
            tb, ab = open(tp, "rb").read(), open(ap, "rb").read()
            if tb == ab:
                continue
            if len(tb) != len(ab):
                diffs.append("output %d: %d bytes from TFLM, %d from aotc" % (k, len(tb), len(ab)))
                continue
            tv = np.frombuffer(tb, NUMPY_TYPE[typ]).astype(np.int64)
            av = np.frombuffer(ab, NUMPY_TYPE[typ]).astype(np.int64)
            d = np.abs(tv - av)
            i = int(np.argmax(d != 0))
            diffs.append("output %d (%s): %d of %d differ, max %d; first [%d] TFLM %d aotc %d"
                         % (k, typ, int((d != 0).sum()), d.size, int(d.max()), i, tv[i], av[i]))
        if not diffs:
            return seed, ops, "match", "", None
        msg = "; ".join(diffs)
        return seed, ops, "finding", "mismatch", save(seed, work, args, msg)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def save(seed, work, args, msg):
    dest = os.path.join(args.findings, "seed%d" % seed)
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(work, dest)
    with open(os.path.join(dest, "report.txt"), "w") as f:
        f.write("seed %d\n%s\n" % (seed, msg))
    return msg


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", required=True, help="A-B (inclusive)")
    p.add_argument("--aotc", required=True)
    p.add_argument("--tflm-run", required=True)
    p.add_argument("--findings", required=True)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--work", default=None, help="scratch folder (default: the system's)")
    p.add_argument("--aotc-args", default="", help="more options for `aotc run`, e.g. --aotc-args='--target cortex-m4 --io-in-arena'")
    args = p.parse_args()
    lo, hi = (int(v) for v in args.seeds.split("-"))
    os.makedirs(args.findings, exist_ok=True)
    counts, reasons, ops_run = collections.Counter(), collections.Counter(), collections.Counter()
    first_seed = {}
    start = time.time()
    with ThreadPoolExecutor(args.jobs) as pool:
        for seed, ops, result, why, msg in pool.map(lambda s: run_seed(s, args), range(lo, hi + 1)):
            counts[result] += 1
            if result != "match":
                reasons[(result, why)] += 1
                first_seed.setdefault((result, why), seed)
            if result in ("match", "finding"):
                ops_run.update(ops)
            if result == "finding":
                print("seed %d FINDING [%s]: %s" % (seed, " ".join(ops), msg), flush=True)
    elapsed = time.time() - start
    n = hi - lo + 1
    print("\n%d seeds in %.0f s (%.2f seeds/s): %s" % (
        n, elapsed, n / elapsed, ", ".join("%s %d" % kv for kv in sorted(counts.items()))))
    for (result, why), k in sorted(reasons.items(), key=lambda kv: -kv[1]):
        print("  %5d %s (first: seed %d): %s" % (k, result, first_seed[(result, why)], why))
    print("operators compared (generator steps):", ", ".join("%s %d" % kv for kv in ops_run.most_common()))
    return 1 if counts["finding"] else 0


if __name__ == "__main__":
    sys.exit(main())
