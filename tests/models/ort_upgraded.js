// Checks the opset 18+ rewrites of the torch test networks (upgrade_opset.py) in ONNX Runtime:
// runs each NETWORK/model_opset<N>.onnx on NETWORK/input_0.bin and compares the output with
// NETWORK/output_0.bin (torch's output for the opset 13/17 export). Prints the largest absolute
// and relative difference per model and fails if any exceeds the tests' tolerance
// (|got - torch| <= 1e-5 + 1e-4 |torch|, as tests/e2e/test_models.cc). Writes nothing.
//
//   node tests/models/ort_upgraded.js [path/to/onnxruntime-node]
const path = require('path');
const fs = require('fs');
const ort = require(process.argv[2] || '/work/scratch/npm/node_modules/onnxruntime-node');

const kNetworks = ['small_cnn', 'shufflenet', 'kws_rnn', 'mobilenet_v3', 'transformer'];
const kOpsets = [18, 21, 23];
const kAbsTolerance = 1e-5;
const kRelTolerance = 1e-4;

function readFloats(file) {
  return new Float32Array(new Uint8Array(fs.readFileSync(file)).buffer);  // copied: aligned
}

async function main() {
  let failed = false;
  for (const network of kNetworks) {
    const dir = path.join(__dirname, network);
    const expected = readFloats(path.join(dir, 'output_0.bin'));
    for (const opset of kOpsets) {
      const file = path.join(dir, `model_opset${opset}.onnx`);
      const session = await ort.InferenceSession.create(file);
      const input = session.inputMetadata[0];
      const feeds = {[input.name]: new ort.Tensor('float32', readFloats(path.join(dir, 'input_0.bin')), input.shape)};
      const got = (await session.run(feeds))[session.outputNames[0]].data;
      let maxAbs = 0, maxRel = 0, ok = got.length === expected.length;
      expected.forEach((e, i) => {
        const d = Math.abs(got[i] - e);
        maxAbs = Math.max(maxAbs, d);
        maxRel = Math.max(maxRel, d / Math.abs(e));
        if (!(d <= kAbsTolerance + kRelTolerance * Math.abs(e))) ok = false;
      });
      failed = failed || !ok;
      console.log(`${network}/model_opset${opset}.onnx: ${ok ? 'matches' : 'DIFFERS FROM'} torch, ` +
                  `max abs diff ${maxAbs.toExponential(2)}, max rel diff ${maxRel.toExponential(2)}`);
    }
  }
  if (failed) process.exit(1);
}

main().catch((e) => { console.error(e); process.exit(1); });
