// Writes the reference outputs of the ONNX int8 twins of the MLPerf Tiny models (made by
// make_onnx_twins.py): runs <model>_<form>/model.onnx in ONNX Runtime (onnxruntime-node
// 1.30, default session options) on input_<k>.bin and writes output_<k>.bin (raw int8).
// Also prints how many output bytes differ from TensorFlow Lite Micro's output for the same
// input (../shared/models/mlperf-tiny/reference/<model>/output_<k>.bin): ONNX requantizes
// in float, TFLite in fixed point, so a few bytes may differ by one step. See README.md.
//
//   node tests/models/onnx_twins/ort_reference.js [path/to/onnxruntime-node]
const path = require('path');
const fs = require('fs');
const ort = require(process.argv[2] || '/work/scratch/npm/node_modules/onnxruntime-node');

const kModels = ['kws_ref_model', 'vww_96_int8', 'pretrainedResnet_quant', 'ad01_int8'];
const kForms = ['qlinear', 'qdq'];
const kCases = 2;
const kTflite = path.join(__dirname, '..', '..', '..', '..', 'shared', 'models', 'mlperf-tiny', 'reference');

async function main() {
  for (const model of kModels) {
    for (const form of kForms) {
      const dir = path.join(__dirname, `${model}_${form}`);
      const session = await ort.InferenceSession.create(path.join(dir, 'model.onnx'));
      const [inputName] = session.inputNames;
      const [outputName] = session.outputNames;
      const shape = session.inputMetadata ? session.inputMetadata[0].shape : null;
      const lines = [];
      for (let k = 0; k < kCases; ++k) {
        const bytes = fs.readFileSync(path.join(dir, `input_${k}.bin`));
        const data = new Int8Array(new Uint8Array(bytes).buffer);
        const feeds = { [inputName]: new ort.Tensor('int8', data, shape) };
        const got = (await session.run(feeds))[outputName];
        if (got.type !== 'int8') throw new Error(`${model}_${form}: output is ${got.type}, not int8`);
        const out = Buffer.from(got.data.buffer, got.data.byteOffset, got.data.byteLength);
        fs.writeFileSync(path.join(dir, `output_${k}.bin`), out);
        const tflite = fs.readFileSync(path.join(kTflite, model, `output_${k}.bin`));
        let differ = 0;
        let largest = 0;
        for (let i = 0; i < out.length; ++i) {
          const d = Math.abs(out.readInt8(i) - tflite.readInt8(i));
          if (d) ++differ;
          largest = Math.max(largest, d);
        }
        lines.push(`case ${k}: ${differ} of ${out.length} bytes differ from TFLite's (largest difference ${largest})`);
      }
      console.log(`${model}_${form}: ${lines.join('; ')}`);
    }
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
