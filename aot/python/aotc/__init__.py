"""aotc from Python: compile a model for a target, see what it costs, run it on numpy arrays.

    import aotc
    m = aotc.compile("kws.tflite", target="cortex-m4")
    m.analyze()["cycles"]          # estimated cycles, MACs, RAM, flash, layer by layer
    m.metadata["memory"]           # what metadata.json says (inputs, outputs, memory, kernels)
    outputs = m.run([x])           # numpy arrays in, numpy arrays out (the target's kernels,
                                   # built for and run on this machine)

Each call drives the `aotc` executable (the one `scripts/setup.sh` builds into build/, or
$AOTC, or `aotc` on PATH), so the Python side holds no compiler logic of its own: the
generated C, the numbers and the errors are the command line's. A model that aotc refuses
raises CompileError with aotc's message, which names the model node.
"""
import json
import os
import shutil
import subprocess
import tempfile

import numpy as np

__all__ = ["compile", "CompiledModel", "CompileError", "aotc_executable"]


class CompileError(Exception):
    """aotc refused the model or the options; the message names the node and the problem."""


def aotc_executable():
    """$AOTC, else the build/aotc of the source tree this package sits in, else `aotc` on PATH."""
    if os.environ.get("AOTC"):
        return os.environ["AOTC"]
    tree = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "build", "aotc")
    if os.path.exists(tree):
        return os.path.abspath(tree)
    found = shutil.which("aotc")
    if found is None:
        raise FileNotFoundError("no aotc executable: build it with scripts/setup.sh or set $AOTC")
    return found


def _call(args):
    result = subprocess.run([aotc_executable()] + args, capture_output=True, text=True)
    if result.returncode == 1:
        message = result.stderr.strip()
        raise CompileError(message[len("error: "):] if message.startswith("error: ") else message)
    if result.returncode != 0:
        raise RuntimeError("aotc failed (status %d):\n%s%s" % (result.returncode, result.stdout, result.stderr))
    return result.stdout


class CompiledModel:
    """A model compiled for a target: its generated files (`directory`), metadata.json
    (`metadata`), and the options it was compiled with, which analyze() and run() reuse."""

    def __init__(self, model, options, directory, keep):
        self.model = os.path.abspath(model)
        self.options = list(options)
        self.directory = directory
        self._keep = keep
        with open(os.path.join(directory, "metadata.json")) as f:
            self.metadata = json.load(f)

    @property
    def files(self):
        """The generated files' names: <name>.c, <name>.h, <name>_constants.c, the runtime..."""
        return sorted(os.listdir(self.directory))

    def analyze(self, report=None):
        """`aotc analyze` as a dict: per layer the kernel, MACs, constants, live bytes and
        estimated cycles; totals of RAM, flash and cycles. With report, also writes the HTML
        page there."""
        with tempfile.TemporaryDirectory(prefix="aotc-analyze-") as scratch:
            path = os.path.join(scratch, "analysis.json")
            args = ["analyze", self.model, "--json", path] + self.options
            if report is not None:
                args += ["--report", os.path.abspath(report)]
            _call(args)
            with open(path) as f:
                return json.load(f)

    def run(self, inputs):
        """Runs the model once with the target's kernels, built for and run on this machine
        by `aotc run` ($CC, default cc). inputs: numpy arrays in the model's input order,
        of the types and shapes metadata["inputs"] gives. Returns the outputs as numpy arrays."""
        declared = self.metadata["inputs"]
        if len(inputs) != len(declared):
            raise ValueError("the model has %d inputs, %d given" % (len(declared), len(inputs)))
        with tempfile.TemporaryDirectory(prefix="aotc-run-") as scratch:
            in_files, out_files = [], []
            for k, (array, spec) in enumerate(zip(inputs, declared)):
                array = np.ascontiguousarray(array)
                if list(array.shape) != list(spec["shape"]) or array.dtype != np.dtype(_numpy_type(spec["dtype"])):
                    raise ValueError("input %d ('%s') must be %s%s, got %s%s" % (
                        k, spec["name"], spec["dtype"], spec["shape"], array.dtype, list(array.shape)))
                path = os.path.join(scratch, "input_%d.npy" % k)
                np.save(path, array)
                in_files.append(path)
            for k in range(len(self.metadata["outputs"])):
                out_files.append(os.path.join(scratch, "output_%d.npy" % k))
            args = ["run", self.model, "--outputs", ",".join(out_files)] + self.options
            if in_files:
                args += ["--inputs", ",".join(in_files)]
            _call(args)
            return [np.load(path) for path in out_files]

    def __del__(self):
        if not self._keep and self.directory and os.path.isdir(self.directory):
            shutil.rmtree(self.directory, ignore_errors=True)


def _numpy_type(dtype):
    return {"float32": np.float32, "float64": np.float64, "float16": np.float16, "int8": np.int8, "uint8": np.uint8,
            "int16": np.int16, "uint16": np.uint16, "int32": np.int32, "uint32": np.uint32, "int64": np.int64,
            "uint64": np.uint64, "bool": np.bool_}[dtype]


def compile(model, target="host", name=None, out_dir=None, pools=None, io_in_arena=False, options=()):
    """Compiles `model` (.onnx or .tflite) for `target` (a built-in target's name: see
    `aotc targets`). The files go to out_dir (kept), or to a temporary folder removed with
    the CompiledModel. pools: aotc --pool specs ("sram:256K"); options: further aotc
    arguments (["--dim", "N=1"]). Raises CompileError with aotc's message."""
    common = ["--target", target]
    if name:
        common += ["--name", name]
    for pool in pools or ():
        common += ["--pool", pool]
    if io_in_arena:
        common.append("--io-in-arena")
    common += list(options)
    keep = out_dir is not None
    directory = os.path.abspath(out_dir) if keep else tempfile.mkdtemp(prefix="aotc-model-")
    try:
        _call(["compile", model, "-o", directory] + common)
    except BaseException:
        if not keep:
            shutil.rmtree(directory, ignore_errors=True)
        raise
    return CompiledModel(model, common, directory, keep)
