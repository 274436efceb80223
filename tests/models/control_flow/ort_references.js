// The references of the models make_runtime_branch_models.py writes: ONNX Runtime
// (onnxruntime-node, one thread) runs every case of runtime_branches/cases.json and writes
// its outputs, runtime_branches/<model>_<case>_out<k>.bin (raw little-endian float32).
// Run by hand after the Python script (tests never need node):
//   NODE_PATH=/path/to/node_modules node tests/models/control_flow/ort_references.js
const ort = require('onnxruntime-node');
const fs = require('fs');
const path = require('path');

const dir = path.join(__dirname, 'runtime_branches');
const arrays = { float32: Float32Array, int64: BigInt64Array, bool: Uint8Array };

async function main() {
  const models = JSON.parse(fs.readFileSync(path.join(dir, 'cases.json'), 'utf8'));
  for (const m of models) {
    const session = await ort.InferenceSession.create(path.join(dir, m.model), { intraOpNumThreads: 1, interOpNumThreads: 1 });
    for (const c of m.cases) {
      const feeds = {};
      m.inputs.forEach((input, k) => {
        const bytes = fs.readFileSync(path.join(dir, c.inputs[k]));
        const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length);
        feeds[input.name] = new ort.Tensor(input.dtype, new arrays[input.dtype](buffer), input.shape);
      });
      const result = await session.run(feeds);
      m.outputs.forEach((name, k) => {
        if (result[name].type !== 'float32') throw new Error(`${m.model}: output ${name} is ${result[name].type}`);
        fs.writeFileSync(path.join(dir, c.outputs[k]), Buffer.from(result[name].data.buffer, result[name].data.byteOffset,
                                                                     result[name].data.byteLength));
      });
      console.log(`${m.model} case ${c.case} (${c.path}):`, m.outputs.map((name) => `${name} ${Array.from(result[name].data.slice(0, 3)).map((v) => v.toFixed(4)).join(' ')}`).join('; '));
    }
  }
}
main().catch((e) => { console.error(e); process.exit(1); });
