#!/usr/bin/python3
"""Differential test of aotc against ONNX Runtime on random valid ONNX models.

  difftest_onnx.py --seeds 0-999 --aotc build/aotc --ort /path/to/node_modules/onnxruntime-node \
                   --findings DIR [--jobs 2] [--time-limit SECONDS]

For each seed, gen_onnx.py makes a model and its inputs; ort_run.js (node, onnxruntime-node)
computes the reference outputs; `aotc run` compiles the model to C, builds and runs it. Then:
  - matched: every output has ORT's shape and type and is within rtol 1e-3, atol 1e-5
    (|aotc - ort| <= atol + rtol * |ort|; NaN matches NaN; compare.py, which also says
    why one pattern, a QDQ layer with arbitrary scales, has a tolerance of its own);
  - refused: aotc exited 1 with `error: ...` (counted by message, names and numbers masked);
  - mismatched: some output differs, or aotc wrote fewer outputs;
  - crashed: aotc exited with another status, was killed, or timed out (an internal error);
  - ort-refused: ONNX Runtime rejected the model, a bug of the generator.
Every mismatch, crash and ORT refusal is saved as DIR/<kind>-<seed>/ (model.onnx, input_<i>.npy,
expected_<i>.npy from ORT, actual_<i>.npy from aotc, report.txt). The exit status is 1 when
anything was saved, else 0. --recent-opsets 18-24 makes every model of an opset drawn from
that range (gen_onnx_recent.py; by default a third of the seeds are). --ort defaults to
$ORT_MODULE. --aotc-args='...' adds options to every `aotc run` (a target, --io-in-arena).
SIGINT or SIGTERM stops starting new seeds and prints the summary of those run.
"""
import argparse
import collections
import json
import os
import re
import shlex
import signal
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
SKIP = 77  # ctest's SKIP_RETURN_CODE for this test
try:
    import numpy as np
    import onnx
    import gen_onnx
    from compare import ATOL, compare, tolerances
except ImportError:
    pass  # missing_prerequisites names the module


def missing_prerequisites(args):
    """What this run needs and the machine lacks, each with the Debian package or command that
    provides it (scripts/setup.sh installs them all)."""
    missing = []
    for module, package in (("numpy", "python3-numpy"), ("onnx", "python3-onnx")):
        try:
            __import__(module)
        except ImportError:
            missing.append(f"the Python module {module} for {sys.executable} (Debian package {package})")
    if not shutil.which(args.node):
        missing.append(f"{args.node} (Debian packages nodejs npm)")
    if not args.ort or not os.path.isfile(os.path.join(args.ort, "package.json")):
        missing.append(f"onnxruntime-node at {args.ort!r} (npm install --ignore-scripts --prefix build/npm "
                       "onnxruntime-node@1.30.0)")
    return missing


def refusal_reason(stderr):
    """aotc's error message with model names and numbers masked, to count refusals by kind."""
    lines = [l for l in stderr.splitlines() if l.startswith("error:")]
    text = lines[0] if lines else (stderr.strip().splitlines() or ["(no message)"])[-1]
    text = re.sub(r"'[^']*'", "'_'", text)
    text = re.sub(r"\[[-0-9, ]*\]", "[_]", text)
    return re.sub(r"-?\d+(\.\d+)?", "N", text)[:160]


class OrtServer:
    """One node process running ort_run.js, answering one request at a time."""

    def __init__(self, node, ort_module):
        # node resolves a relative module path from ort_run.js's folder, not from ours.
        self.proc = subprocess.Popen([node, os.path.join(HERE, "ort_run.js"), os.path.abspath(ort_module)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def run(self, model, inputs, outputs):
        self.proc.stdin.write(json.dumps({"model": model, "inputs": inputs, "outputs": outputs}) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("ort_run.js exited")
        answer = json.loads(line)
        return answer.get("error")

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def run_seed(seed, work, args, ort):
    d = os.path.join(work, f"seed{seed}")
    os.makedirs(d, exist_ok=True)
    model, feeds = gen_onnx.generate(seed, args.recent_opsets)
    model_path = os.path.join(d, "model.onnx")
    onnx.save(model, model_path)
    inputs = []
    for i, (_, data) in enumerate(feeds):
        inputs.append(os.path.join(d, f"input_{i}.npy"))
        np.save(inputs[-1], data)
    n_out = len(model.graph.output)
    expected = [os.path.join(d, f"expected_{i}.npy") for i in range(n_out)]
    actual = [os.path.join(d, f"actual_{i}.npy") for i in range(n_out)]
    ops = sorted({n.op_type for n in model.graph.node})
    result = {"seed": seed, "dir": d, "ops": ops}
    error = ort.run(model_path, inputs, expected)
    if error:
        return dict(result, kind="ort-refused", detail=error)
    model_args = {p.key: p.value for p in model.metadata_props}.get(gen_onnx.AOTC_ARGS_KEY, "")
    cmd = [args.aotc, "run", model_path, "--outputs", ",".join(actual)] + shlex.split(args.aotc_args) + \
        shlex.split(model_args)
    if inputs:
        cmd += ["--inputs", ",".join(inputs)]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return dict(result, kind="crashed", detail=f"timeout after {args.timeout} s")
    if p.returncode == 1 and "error:" in p.stderr:
        return dict(result, kind="refused", detail=refusal_reason(p.stderr), stderr=p.stderr)
    if p.returncode != 0:
        return dict(result, kind="crashed", detail=f"exit status {p.returncode}: {p.stderr.strip()[-400:]}")
    problems = []
    atol = tolerances((p.key, p.value) for p in model.metadata_props)
    for i, (e, a) in enumerate(zip(expected, actual)):
        if not os.path.exists(a):
            problems.append(f"output {i} ({model.graph.output[i].name}): not written")
            continue
        why = compare(np.load(e), np.load(a), atol.get(model.graph.output[i].name, ATOL))
        if why:
            problems.append(f"output {i} ({model.graph.output[i].name}): {why}")
    if problems:
        return dict(result, kind="mismatched", detail="; ".join(problems))
    return dict(result, kind="matched")


def save_finding(result, findings):
    dest = os.path.join(findings, f"{result['kind']}-{result['seed']}")
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(result["dir"], dest)
    with open(os.path.join(dest, "report.txt"), "w") as f:
        f.write(f"seed {result['seed']}: {result['kind']}\noperators: {' '.join(result['ops'])}\n"
                f"{result['detail']}\n{result.get('stderr', '')}")
    return dest


def parse_seeds(text):
    a, _, b = text.partition("-")
    return range(int(a), int(b or a) + 1)


def parse_opsets(text):
    opsets = parse_seeds(text)
    if not opsets or opsets[0] < 18 or opsets[-1] > 24:
        raise argparse.ArgumentTypeError(f"{text}: not a range within 18-24")
    return opsets[0], opsets[-1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", required=True, help="A-B, inclusive")
    ap.add_argument("--aotc", required=True)
    ap.add_argument("--ort", default=os.environ.get("ORT_MODULE"),
                    help="the onnxruntime-node package directory (default: $ORT_MODULE)")
    ap.add_argument("--aotc-args", default="", help="more options for `aotc run`, e.g. --aotc-args='--target cortex-m4' (with '=')")
    ap.add_argument("--recent-opsets", type=parse_opsets, default=None, help="LO-HI within 18-24: every model of an opset drawn from there (by default "
                                       "a third of the seeds draw one of 18-24)")
    ap.add_argument("--node", default="node")
    ap.add_argument("--findings", required=True)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=120, help="seconds for one `aotc run`")
    ap.add_argument("--time-limit", type=float, default=0, help="stop starting seeds after this many seconds")
    ap.add_argument("--verbose", action="store_true", help="print every seed's result")
    ap.add_argument("--skip-if-missing", action="store_true",
                    help=f"exit {SKIP} (ctest: skipped) naming what is missing when node, onnxruntime-node or "
                         "python3-onnx is absent")
    args = ap.parse_args()
    missing = missing_prerequisites(args)
    if missing:
        print("difftest_onnx: SKIPPED, this machine lacks:\n  " + "\n  ".join(missing), flush=True)
        return SKIP if args.skip_if_missing else 2
    os.makedirs(args.findings, exist_ok=True)
    work = tempfile.mkdtemp(prefix="difftest_onnx_")
    start = time.monotonic()
    local = threading.local()
    servers, lock = [], threading.Lock()
    counts = collections.Counter()
    refusals = collections.Counter()
    ops_run = collections.Counter()
    saved = []

    stop = threading.Event()  # SIGINT or SIGTERM: finish the models under way, then summarize
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())

    def job(seed):
        if stop.is_set() or (args.time_limit and time.monotonic() - start > args.time_limit):
            return None
        if not hasattr(local, "ort"):
            local.ort = OrtServer(args.node, args.ort)
            with lock:
                servers.append(local.ort)
        try:
            r = run_seed(seed, work, args, local.ort)
        except Exception as e:  # a generator or harness failure is reported, not hidden
            r = {"seed": seed, "kind": "harness-error", "detail": repr(e), "ops": [], "dir": None}
        with lock:
            counts[r["kind"]] += 1
            if r["kind"] in ("matched", "mismatched", "crashed"):
                ops_run.update(r["ops"])
            if r["kind"] == "refused":
                refusals[r["detail"]] += 1
            elif r["kind"] != "matched":
                dest = save_finding(r, args.findings) if r["dir"] else "-"
                saved.append(dest)
                print(f"seed {seed}: {r['kind']}: {r['detail'][:600]}\n  -> {dest}", flush=True)
            if args.verbose:
                print(f"seed {seed}: {r['kind']} {r.get('detail', '')[:200]}", flush=True)
        if r.get("dir"):
            shutil.rmtree(r["dir"], ignore_errors=True)
        return r

    seeds = parse_seeds(args.seeds)
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        list(pool.map(job, seeds))
    for s in servers:
        s.close()
    shutil.rmtree(work, ignore_errors=True)
    elapsed = time.monotonic() - start
    ran = sum(counts.values())
    recent = f"--recent-opsets {args.recent_opsets[0]}-{args.recent_opsets[1]} " if args.recent_opsets else ""
    print(f"\ndifftest_onnx: seeds {args.seeds} {recent}{args.aotc_args}, {ran} models in {elapsed:.0f} s ({ran / max(elapsed, 1e-9):.2f}/s)")
    print(f"  matched     {counts['matched']}")
    print(f"  refused     {counts['refused']}")
    for reason, n in refusals.most_common():
        print(f"    {n:5d}  {reason}")
    print(f"  mismatched  {counts['mismatched']}")
    print(f"  crashed     {counts['crashed']}")
    print(f"  ort-refused {counts['ort-refused']} (generator bugs)")
    if counts["harness-error"]:
        print(f"  harness-error {counts['harness-error']}")
    print("  operators in models aotc compiled: " + ", ".join(f"{k} {v}" for k, v in sorted(ops_run.items())))
    return 1 if saved else 0


if __name__ == "__main__":
    sys.exit(main())
