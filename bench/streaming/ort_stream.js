// Runs an ONNX streaming model with ONNX Runtime (npm's onnxruntime-node, one thread),
// chunk by chunk, carrying its recurrent state: the reference for try_published_models.sh.
//   node ort_stream.js MODEL AUDIO.f32 CHUNK STATES SAMPLE_RATE OUT.f32
// AUDIO.f32: float32 samples; CHUNK: samples per run; STATES: the state inputs, the
// outputs that are their next values and their shapes, e.g. state=stateN:2,1,128 or
// h=hn:2,1,64;c=cn:2,1,64 (zero at first). OUT.f32: each run's output `output`.
const ort = require('onnxruntime-node');
const fs = require('fs');

async function main() {
  const [model, audioFile, chunkText, statesText, rateText, outFile] = process.argv.slice(2);
  const session = await ort.InferenceSession.create(model, { intraOpNumThreads: 1, interOpNumThreads: 1 });
  const bytes = fs.readFileSync(audioFile);
  const audio = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4);
  const chunk = Number(chunkText);
  const states = statesText.split(';').map((spec) => {
    const [pair, dimsText] = spec.split(':');
    const [input, output] = pair.split('=');
    const dims = dimsText.split(',').map(Number);
    return { input, output, value: new ort.Tensor('float32', new Float32Array(dims.reduce((a, b) => a * b, 1)), dims) };
  });
  const sr = new ort.Tensor('int64', BigInt64Array.from([BigInt(rateText)]), []);
  const outputs = [];
  for (let start = 0; start + chunk <= audio.length; start += chunk) {
    const input = new ort.Tensor('float32', audio.slice(start, start + chunk), [1, chunk]);
    const feeds = { input, sr };
    for (const s of states) feeds[s.input] = s.value;
    const result = await session.run(feeds);
    outputs.push(...result.output.data);
    for (const s of states) s.value = result[s.output];
  }
  fs.writeFileSync(outFile, Buffer.from(new Float32Array(outputs).buffer));
}
main().catch((e) => { console.error(e); process.exit(1); });
