"""The Python API (aot/python/aotc) as a notebook uses it, against independent references:
TensorFlow Lite Micro's output bytes for the int8 keyword spotter (../shared), torch's
outputs for a float CNN (tests/models/small_cnn, within the tolerances of the C++ tests),
the published MAC count; aotc's errors as CompileError naming the node.

    build/venv/bin/python -m unittest discover -s tests/python     (ctest: python_api)
"""
import os
import tempfile
import unittest

import numpy as np

import aotc

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SHARED = os.path.abspath(os.path.join(ROOT, "..", "shared", "models", "mlperf-tiny"))
KWS = os.path.join(SHARED, "kws_ref_model.tflite")


def read(path, dtype, shape):
    return np.fromfile(path, dtype=dtype).reshape(shape)


class PythonApi(unittest.TestCase):
    def test_compile_analyze_and_run_kws_give_tflite_micros_bytes(self):
        m = aotc.compile(KWS, target="cortex-m4", name="kws")
        self.assertIn("kws.c", m.files)
        self.assertIn("metadata.json", m.files)
        self.assertEqual(m.metadata["target"], "cortex-m4")
        analysis = m.analyze()
        self.assertAlmostEqual(analysis["macs"] / 1e6, 2.66, delta=0.005)  # ../shared/README.md
        self.assertGreater(analysis["cycles"], 0)
        self.assertEqual(analysis["ram_bytes"], m.metadata["memory"]["ram_bytes"])
        spec = m.metadata["inputs"][0]
        reference = os.path.join(SHARED, "reference", "kws_ref_model")
        for case in range(2):
            x = read(os.path.join(reference, "input_%d.bin" % case), np.int8, spec["shape"])
            (y,) = m.run([x])
            want = np.fromfile(os.path.join(reference, "output_%d.bin" % case), dtype=np.int8)
            self.assertEqual(y.dtype, np.int8)
            self.assertEqual(y.tobytes(), want.tobytes(), "case %d" % case)

    def test_float_cnn_matches_torch_and_files_stay_where_asked(self):
        folder = os.path.join(ROOT, "tests", "models", "small_cnn")
        with tempfile.TemporaryDirectory() as out:
            m = aotc.compile(os.path.join(folder, "model.onnx"), out_dir=os.path.join(out, "cnn"))
            spec = m.metadata["inputs"][0]
            x = read(os.path.join(folder, "input_0.bin"), np.float32, spec["shape"])
            (y,) = m.run([x])
            want = np.fromfile(os.path.join(folder, "output_0.bin"), dtype=np.float32).reshape(y.shape)
            np.testing.assert_allclose(y, want, rtol=1e-4, atol=1e-5)
            self.assertTrue(os.path.exists(os.path.join(out, "cnn", "model.c")))
            with self.assertRaises(ValueError):
                m.run([x.astype(np.float64)])

    def test_report_is_written_and_errors_name_the_node(self):
        m = aotc.compile(KWS, target="cortex-m4")
        with tempfile.TemporaryDirectory() as out:
            m.analyze(report=os.path.join(out, "kws.html"))
            with open(os.path.join(out, "kws.html")) as f:
                self.assertIn("<!DOCTYPE html>", f.read())
        with self.assertRaises(aotc.CompileError) as refused:
            aotc.compile(os.path.join(ROOT, "tests", "models", "bad", "unsupported_op.onnx"))
        self.assertIn("node frob (FrobnicateTensor): operator 'FrobnicateTensor' is not supported", str(refused.exception))


if __name__ == "__main__":
    unittest.main()
