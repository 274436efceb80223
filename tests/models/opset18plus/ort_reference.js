// Writes the reference outputs of the opset 18-24 test models whose manifest entry says
// "onnxruntime": runs CASE/model.onnx in ONNX Runtime (onnxruntime-node 1.30) on
// CASE/input_<i>.bin and writes CASE/output_<i>.bin (raw little-endian). For the cases whose
// reference is numpy's (written by make_models.py) it runs ONNX Runtime too and prints
// whether the two agree. See README.md.
//
//   node tests/models/opset18plus/ort_reference.js [path/to/onnxruntime-node]
const path = require('path');
const fs = require('fs');
const ort = require(process.argv[2] || '/work/scratch/npm/node_modules/onnxruntime-node');

const kArrays = {
  float32: Float32Array, float64: Float64Array, int8: Int8Array, uint8: Uint8Array, int16: Int16Array,
  uint16: Uint16Array, int32: Int32Array, int64: BigInt64Array, bool: Uint8Array,
};

function readInput(file, type, shape) {
  const bytes = fs.readFileSync(file);
  const copy = new Uint8Array(bytes).buffer;  // aligned
  return new ort.Tensor(type, new kArrays[type](copy), shape);
}

function bytesOf(tensor) {
  const data = tensor.data;
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

async function main() {
  const here = __dirname;
  const manifest = JSON.parse(fs.readFileSync(path.join(here, 'manifest.json'), 'utf8'));
  for (const c of manifest.cases) {
    const dir = path.join(here, c.name);
    const session = await ort.InferenceSession.create(path.join(dir, 'model.onnx'));
    const feeds = {};
    c.inputs.forEach((input, i) => { feeds[input.name] = readInput(path.join(dir, `input_${i}.bin`), input.type, input.shape); });
    const results = await session.run(feeds);
    c.outputs.forEach((output, i) => {
      const got = results[output.name];
      if (got.type !== output.type) throw new Error(`${c.name}: output ${output.name} is ${got.type}, not ${output.type}`);
      const file = path.join(dir, `output_${i}.bin`);
      if (c.reference === 'onnxruntime') {
        fs.writeFileSync(file, bytesOf(got));
        return;
      }
      const expected = new Float32Array(new Uint8Array(fs.readFileSync(file)).buffer);
      let worst = 0;
      const agree = expected.length === got.data.length &&
          expected.every((e, j) => {
            const d = Math.abs(e - got.data[j]);
            worst = Math.max(worst, d);
            return d <= 1e-5 + 1e-3 * Math.abs(e);
          });
      console.log(`${c.name}: numpy reference, onnxruntime ${agree ? 'agrees' : 'DISAGREES'} (dims ${got.dims}, largest difference ${worst})`);
    });
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
