#!/usr/bin/python3
"""aotc's activation RAM on Keras-architecture MobileNets against ST X-CUBE-AI's published
figures (issue #29). Generates the models (make_zoo_models.py) into WORK, compiles each
with `--io-in-arena` (inputs and outputs planned in the arena, as X-CUBE-AI's figures count
them) and again with `--no-in-place` (no output over its input, nothing in place), and prints
a Markdown table of the workspace (metadata.json memory.workspace_bytes), then, per model,
the step where the most bytes are live and the tensors live there (what would have to
share bytes, or go, to lower it). The *_nopad models are the same networks with each explicit
PAD folded into its depthwise convolution (make_zoo_models.FOLDED_PAD): what the PADs cost,
compared with the same X-CUBE-AI figure.

    /usr/bin/python3 bench/memory/zoo_bench.py --aotc build/aotc --work /tmp/zoo \\
        [--tflm-run <tflm-out-dir>/build/tflm_run] [--target cortex-m4]

With --tflm-run each model also runs one random input (seed 7) through TensorFlow Lite
Micro's reference kernels (tests/oracle/tflm) and through `aotc run` (host build, same flags),
and the outputs are compared byte for byte.
"""
import argparse, json, os, subprocess, sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import make_zoo_models  # noqa: E402

TARGET = ["--pool", "sram:4M", "--io-in-arena"]  # and --target (cortex-m4 unless told)
# X-CUBE-AI's published activation RAM (bytes), where ST gives one for the same network.
XCUBE = {"mobilenet_v1_025_224_u8": 207186, "mobilenet_v2_035_224": 702976}


def compile_model(aotc, model, out, extra):
    """metadata.json of `aotc compile`, or None and the error's last line when it fails."""
    cmd = [aotc, "compile", model, "-o", out] + TARGET + extra + ["--memory-report"]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        return None, (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]
    with open(os.path.join(out, "metadata.json")) as f:
        return json.load(f), None


def peak(meta):
    """The step where the most bytes are live at once: its tensors (less the bytes an output
    shares with the input it is written over) and its kernel's scratch. That sum is the plan's
    lower bound, and the step a smaller plan must change."""
    acts = meta["activations"]
    steps = {s["step"]: s for s in meta["steps"]}
    kernels = {k["node"]: k for k in meta["kernels"]}
    top = lambda a: a["offset"] + a["bytes"]
    live = lambda k: [a for a in acts if a["first_step"] <= k <= a["last_step"]]
    scratch = lambda k: kernels.get(steps[k]["node"], {}).get("scratch_bytes", 0)

    def live_bytes(k):
        names = {a["tensor"] for a in live(k)}
        return scratch(k) + sum(a["bytes"] - (a.get("overlap_bytes", 0) if a.get("overlaps") in names else 0)
                                for a in live(k))
    best = max(steps, key=lambda k: (live_bytes(k), -k))
    producer = {}
    for s in meta["steps"]:
        producer.setdefault(s["node"].split(" (")[0], s["node"])
    rows = []
    for a in sorted(live(best), key=lambda a: a["offset"]):
        made_by = producer.get(a["tensor"], "graph input")
        shared = " (over %s: %d B shared)" % (a["overlaps"], a["overlap_bytes"]) if "overlaps" in a else ""
        rows.append("    %-34s %9d B  [%d, %d)  steps %d-%d, made by %s%s" % (
            a["tensor"], a["bytes"], a["offset"], top(a), a["first_step"], a["last_step"], made_by, shared))
    rows.append("    kernel %s, scratch %d B" % (kernels.get(steps[best]["node"], {}).get("kernel", steps[best]["function"]),
                                                 scratch(best)))
    return best, steps[best]["node"], live_bytes(best), rows


def check_bit_exact(aotc, tflm_run, model, work):
    stem = os.path.join(work, os.path.splitext(os.path.basename(model))[0])
    inp, ref, out = stem + ".in.bin", stem + ".tflm.bin", stem + ".aotc.bin"
    subprocess.run([tflm_run, model, "--random", "7", "--inputs", inp, "--outputs", ref], check=True,
                   stdout=subprocess.DEVNULL)
    p = subprocess.run([aotc, "run", model] + TARGET + ["--inputs", inp, "--outputs", out],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        return "aotc run failed: " + (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]
    a, b = open(ref, "rb").read(), open(out, "rb").read()
    if a == b:
        return "identical (%d B)" % len(a)
    diff = sum(x != y for x, y in zip(a, b)) + abs(len(a) - len(b))
    return "DIFFERENT: %d of %d bytes" % (diff, len(a))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--aotc", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--tflm-run")
    ap.add_argument("--target", default="cortex-m4")
    args = ap.parse_args()
    TARGET[:0] = ["--target", args.target]
    models_dir = os.path.join(args.work, "models")
    os.makedirs(models_dir, exist_ok=True)
    table, details = [], []
    for name, make in list(make_zoo_models.MODELS.items()) + list(make_zoo_models.FOLDED_PAD.items()):
        model = os.path.join(models_dir, name + ".tflite")
        make(model)
        meta, err = compile_model(args.aotc, model, os.path.join(args.work, name), [])
        plain, plain_err = compile_model(args.aotc, model, os.path.join(args.work, name + "_no_in_place"),
                                         ["--no-in-place"])
        ws = meta["memory"]["workspace_bytes"] if meta else None
        ws_plain = plain["memory"]["workspace_bytes"] if plain else None
        xc = XCUBE.get(name.replace("_nopad", ""))
        table.append("| %s | %s | %s | %s | %s |" % (
            name, "{:,}".format(ws) if meta else "fails: " + err,
            "{:,}".format(ws_plain) if plain else "fails: " + plain_err,
            "{:,}".format(xc) if xc else "", "%.3f" % (ws / xc) if xc and meta else ""))
        if meta:
            step, node, live_sum, rows = peak(meta)
            details.append("%s: workspace %s B (lower bound %s B); most bytes live (%s B) at step %d, %s:" % (
                name, "{:,}".format(ws), "{:,}".format(meta["memory"]["lower_bound_bytes"]), "{:,}".format(live_sum),
                step, node))
            details += rows
        if args.tflm_run:
            details.append("  bit-exact vs TFLM: " + check_bit_exact(args.aotc, args.tflm_run, model, args.work))
    print("| model | aotc --io-in-arena (B) | aotc --no-in-place --io-in-arena (B) | X-CUBE-AI (B) | ratio |")
    print("|---|---:|---:|---:|---:|")
    print("\n".join(table))
    print()
    print("\n".join(details))


if __name__ == "__main__":
    main()
