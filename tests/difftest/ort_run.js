// ONNX Runtime (onnxruntime-node) as the reference of the differential test.
//
// Usage: node ort_run.js ORT_MODULE_PATH      (or ORT_MODULE=path node ort_run.js)
// Reads one JSON request a line on stdin,
//   {"model": "m.onnx", "inputs": ["in0.npy", ...], "outputs": ["out0.npy", ...]}
// (inputs and outputs in the model's order), runs the model on the CPU with every graph
// optimization off, so ORT executes the operators as written (no fusions that would change
// rounding, e.g. DequantizeLinear-Conv-QuantizeLinear into an integer convolution), writes
// each output as .npy and answers one JSON line: {"ok": true} or {"error": "..."}.
'use strict';
const fs = require('fs');
const readline = require('readline');

const modulePath = process.argv[2] || process.env.ORT_MODULE;
if (!modulePath) {
  console.error('usage: node ort_run.js ORT_MODULE_PATH (the onnxruntime-node package directory)');
  process.exit(2);
}
const ort = require(modulePath);
ort.env.logLevel = 'fatal';  // errors come back as answers, not as log lines

// .npy version 1.0/2.0, little-endian, C order: the dtypes the generator uses.
const DTYPES = {
  '<f4': ['float32', Float32Array], '<f8': ['float64', Float64Array], '<i8': ['int64', BigInt64Array],
  '<i4': ['int32', Int32Array], '|i1': ['int8', Int8Array], '|u1': ['uint8', Uint8Array],
  '|b1': ['bool', Uint8Array], '<u8': ['uint64', BigUint64Array], '<i2': ['int16', Int16Array],
  '<u2': ['uint16', Uint16Array],
};
const DESCR = Object.fromEntries(Object.entries(DTYPES).map(([d, [t]]) => [t, d]));

function readNpy(path) {
  const buf = fs.readFileSync(path);
  if (buf.toString('latin1', 0, 6) !== '\x93NUMPY') throw new Error(`${path}: not a .npy file`);
  const major = buf[6];
  const headerLen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = buf.toString('latin1', start, start + headerLen);
  const descr = /'descr':\s*'([^']+)'/.exec(header)[1];
  if (/'fortran_order':\s*True/.test(header)) throw new Error(`${path}: Fortran order`);
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header)[1].split(',').map(s => s.trim()).filter(s => s).map(Number);
  if (!DTYPES[descr]) throw new Error(`${path}: dtype ${descr}`);
  const [type, Array_] = DTYPES[descr];
  const count = shape.reduce((a, b) => a * b, 1);
  const bytes = buf.subarray(start + headerLen, start + headerLen + count * Array_.BYTES_PER_ELEMENT);
  const data = new Array_(count);
  new Uint8Array(data.buffer).set(bytes);  // copy: the file's bytes may be unaligned
  return new ort.Tensor(type, type === 'bool' ? Uint8Array.from(data, v => v !== 0) : data, shape);
}

function writeNpy(path, tensor) {
  const descr = DESCR[tensor.type];
  if (!descr) throw new Error(`output type ${tensor.type} has no .npy writer`);
  const dims = tensor.dims.map(Number);
  const shape = dims.length === 1 ? `(${dims[0]},)` : `(${dims.join(', ')})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }`;
  header += ' '.repeat(63 - ((10 + header.length) % 64)) + '\n';  // total a multiple of 64
  const prefix = Buffer.alloc(10);
  prefix.write('\x93NUMPY', 0, 'latin1');
  prefix[6] = 1; prefix[7] = 0;
  prefix.writeUInt16LE(header.length, 8);
  const data = tensor.data;
  const body = tensor.type === 'bool' ? Buffer.from(Uint8Array.from(data, v => (v ? 1 : 0)))
                                      : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  fs.writeFileSync(path, Buffer.concat([prefix, Buffer.from(header, 'latin1'), body]));
}

async function handle(request) {
  const session = await ort.InferenceSession.create(request.model, {
    graphOptimizationLevel: 'disabled', executionProviders: ['cpu'], intraOpNumThreads: 1, logSeverityLevel: 4,
  });
  try {
    if (request.inputs.length !== session.inputNames.length) {
      throw new Error(`the model has ${session.inputNames.length} inputs, ${request.inputs.length} given`);
    }
    const feeds = {};
    session.inputNames.forEach((name, i) => { feeds[name] = readNpy(request.inputs[i]); });
    const results = await session.run(feeds);
    session.outputNames.forEach((name, i) => writeNpy(request.outputs[i], results[name]));
  } finally {
    await session.release();
  }
}

const lines = readline.createInterface({ input: process.stdin });
let queue = Promise.resolve();
lines.on('line', line => {
  queue = queue.then(async () => {
    let answer;
    try {
      await handle(JSON.parse(line));
      answer = { ok: true };
    } catch (e) {
      answer = { error: String(e && e.message ? e.message : e).split('\n')[0] };
    }
    process.stdout.write(JSON.stringify(answer) + '\n');
  });
});
