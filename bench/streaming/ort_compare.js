// Runs an ONNX model once with ONNX Runtime (one thread) on float32 input files and
// compares its first output with a file aotc wrote (rtol 1e-3, atol 1e-5).
//   node ort_compare.js MODEL AOTC_OUTPUT.f32 NAME=FILE.f32:D0,D1,... [...]
// Prints the largest difference; exit status 1 on a mismatch.
const ort = require('onnxruntime-node');
const fs = require('fs');

function floats(path) {
  const b = fs.readFileSync(path);
  return new Float32Array(b.buffer, b.byteOffset, b.length / 4);
}

async function main() {
  const [model, aotcOutput, ...inputs] = process.argv.slice(2);
  const session = await ort.InferenceSession.create(model, { intraOpNumThreads: 1, interOpNumThreads: 1 });
  const feeds = {};
  for (const spec of inputs) {
    const [name, rest] = spec.split('=');
    const [file, dims] = rest.split(':');
    feeds[name] = new ort.Tensor('float32', floats(file), dims.split(',').map(Number));
  }
  const want = (await session.run(feeds))[session.outputNames[0]].data;
  const got = floats(aotcOutput);
  if (got.length !== want.length) throw new Error(`aotc gave ${got.length} values, ONNX Runtime ${want.length}`);
  let worst = 0, bad = 0;
  for (let i = 0; i < got.length; ++i) {
    const d = Math.abs(got[i] - want[i]);
    worst = Math.max(worst, d);
    if (!(d <= 1e-5 + 1e-3 * Math.abs(want[i]))) ++bad;
  }
  console.log(`${want.length} values: ${bad ? bad + ' MISMATCH' : 'all within rtol 1e-3, atol 1e-5 of ONNX Runtime'} (largest difference ${worst.toPrecision(3)})`);
  process.exit(bad ? 1 : 0);
}
main().catch((e) => { console.error(e); process.exit(1); });
