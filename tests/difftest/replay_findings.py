#!/usr/bin/python3
"""Replays the committed findings of the differential test through aotc, without node or onnx.

  replay_findings.py AOTC FINDING_DIR [FINDING_DIR...]

Each FINDING_DIR holds model.onnx, input_<i>.npy (in the model's input order) and
expected_<i>.npy, ONNX Runtime's outputs (tests/difftest/findings/make_findings.py makes them
and says what each found), and optionally aotc_args.txt, options for `aotc run` (e.g.
--io-in-arena). `aotc run` must exit 0 and give every output within the tolerance of compare.py.
"""
import glob
import os
import shlex
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import compare  # noqa: E402


def replay(aotc, d):
    inputs = sorted(glob.glob(os.path.join(d, "input_*.npy")), key=lambda p: int(p.rsplit("_", 1)[1][:-4]))
    expected = sorted(glob.glob(os.path.join(d, "expected_*.npy")), key=lambda p: int(p.rsplit("_", 1)[1][:-4]))
    with tempfile.TemporaryDirectory() as tmp:
        actual = [os.path.join(tmp, f"actual_{i}.npy") for i in range(len(expected))]
        cmd = [aotc, "run", os.path.join(d, "model.onnx"), "--outputs", ",".join(actual)]
        if inputs:
            cmd += ["--inputs", ",".join(inputs)]
        args_file = os.path.join(d, "aotc_args.txt")
        if os.path.exists(args_file):
            with open(args_file) as f:
                cmd += shlex.split(f.read())
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        except subprocess.TimeoutExpired:
            return ["aotc run did not finish in 300 s"]
        if p.returncode != 0:
            return [f"aotc run exited {p.returncode}: {p.stderr.strip()}"]
        return [f"output {i}: {why}" for i, (e, a) in enumerate(zip(expected, actual))
                if (why := compare(np.load(e), np.load(a)))]


def main():
    aotc, dirs = sys.argv[1], sys.argv[2:]
    failed = 0
    for d in dirs:
        problems = replay(aotc, d)
        print(f"{os.path.basename(d.rstrip('/'))}: {'FAIL' if problems else 'ok'}")
        for p in problems:
            print("  " + p)
        failed += bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
