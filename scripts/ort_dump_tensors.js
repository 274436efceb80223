#!/usr/bin/env node
// Runs an ONNX model in ONNX Runtime and writes every intermediate tensor, as
// `aotc run --dump-tensors DIR` does: one .npy per tensor and the index tensors.json
// (aot/driver/tensor_dump.h), so that scripts/compare_tensors can compare the two.
//
//   ONNXRUNTIME_NODE=/path/to/node_modules/onnxruntime-node \
//     node scripts/ort_dump_tensors.js MODEL.onnx DIR [INPUT.npy ...]
//
// (or --ort PATH instead of the variable). The inputs are .npy files in the order of the
// model's inputs. ONNX Runtime keeps only a graph's outputs, so the script adds every
// output of every top-level node to the graph's outputs (a ValueInfoProto with the name
// alone: ONNX Runtime infers the type) and runs the model with graph optimizations off,
// one kernel per node. Nodes inside If/Loop/Scan bodies are not dumped. The protobuf is
// edited at the wire level, so nothing but onnxruntime-node is needed. DIR is written
// whole or not at all: the files go to a staging folder beside it first.
'use strict';

const fs = require('fs');
const path = require('path');

function usage(message) {
  if (message) console.error('ort_dump_tensors: ' + message);
  console.error('usage: ONNXRUNTIME_NODE=PATH node ort_dump_tensors.js [--ort PATH] MODEL.onnx DIR [INPUT.npy ...]');
  process.exit(2);
}

// --- Protobuf wire format: just enough to read a graph's nodes and append outputs. ---

function readVarint(buf, pos) {
  let value = 0n, shift = 0n;
  for (;;) {
    if (pos >= buf.length) throw new Error('truncated varint');
    const b = buf[pos++];
    value |= BigInt(b & 0x7f) << shift;
    if ((b & 0x80) === 0) return [value, pos];
    shift += 7n;
    if (shift > 63n) throw new Error('varint too long');
  }
}

function encodeVarint(n) {
  const out = [];
  let v = BigInt(n);
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) b |= 0x80;
    out.push(b);
  } while (v > 0n);
  return Buffer.from(out);
}

// The fields of a message: {field, wire, start, end, value} where value is the payload of a
// length-delimited field (a Buffer) and start..end the whole field's bytes.
function fields(buf) {
  const out = [];
  let pos = 0;
  while (pos < buf.length) {
    const start = pos;
    let key;
    [key, pos] = readVarint(buf, pos);
    const field = Number(key >> 3n), wire = Number(key & 7n);
    let value = null;
    if (wire === 0) {
      [, pos] = readVarint(buf, pos);
    } else if (wire === 1) {
      pos += 8;
    } else if (wire === 2) {
      let len;
      [len, pos] = readVarint(buf, pos);
      value = buf.subarray(pos, pos + Number(len));
      pos += Number(len);
    } else if (wire === 5) {
      pos += 4;
    } else {
      throw new Error('unsupported protobuf wire type ' + wire);
    }
    if (pos > buf.length) throw new Error('truncated protobuf field');
    out.push({field, wire, start, end: pos, value});
  }
  return out;
}

function lengthDelimited(field, payload) {
  return Buffer.concat([encodeVarint((field << 3) | 2), encodeVarint(payload.length), payload]);
}

const text = (b) => b.toString('utf8');

// The graph's nodes in order, with every output name, and the model with those outputs
// added to the graph's outputs.
function withEveryOutput(model) {
  const top = fields(model);
  const graphField = top.find((f) => f.field === 7 && f.wire === 2);
  if (!graphField) throw new Error('the model has no graph');
  const graph = graphField.value;
  const nodes = [];
  const outputs = new Set();
  for (const f of fields(graph)) {
    if (f.field === 1 && f.wire === 2) {
      const node = {name: '', op: '', outputs: []};
      for (const nf of fields(f.value)) {
        if (nf.wire !== 2) continue;
        if (nf.field === 2) node.outputs.push(text(nf.value));
        if (nf.field === 3) node.name = text(nf.value);
        if (nf.field === 4) node.op = text(nf.value);
      }
      nodes.push(node);
    } else if (f.field === 12 && f.wire === 2) {
      for (const vf of fields(f.value)) if (vf.field === 1 && vf.wire === 2) outputs.add(text(vf.value));
    }
  }
  const added = [];
  for (const node of nodes)
    for (const name of node.outputs)
      if (name !== '' && !outputs.has(name)) {
        outputs.add(name);
        added.push(lengthDelimited(12, lengthDelimited(1, Buffer.from(name, 'utf8'))));
      }
  const newGraph = Buffer.concat([graph, ...added]);
  const newModel = Buffer.concat([
    model.subarray(0, graphField.start), lengthDelimited(7, newGraph), model.subarray(graphField.end)]);
  return {nodes, model: newModel};
}

// --- .npy files ---

const NPY_TYPES = {
  float32: ['<f4', Float32Array], float64: ['<f8', Float64Array], float16: ['<f2', Uint16Array],
  int8: ['|i1', Int8Array], uint8: ['|u1', Uint8Array], int16: ['<i2', Int16Array], uint16: ['<u2', Uint16Array],
  int32: ['<i4', Int32Array], uint32: ['<u4', Uint32Array], int64: ['<i8', BigInt64Array],
  uint64: ['<u8', BigUint64Array], bool: ['|b1', Uint8Array],
};

function readNpy(file) {
  const bytes = fs.readFileSync(file);
  if (bytes.length < 10 || bytes.subarray(0, 6).toString('latin1') !== '\x93NUMPY') throw new Error(file + ': not a .npy file');
  const major = bytes[6];
  const headerLen = major === 1 ? bytes.readUInt16LE(8) : bytes.readUInt32LE(8);
  const headerStart = major === 1 ? 10 : 12;
  const header = bytes.subarray(headerStart, headerStart + headerLen).toString('latin1');
  const descr = /'descr':\s*'([^']+)'/.exec(header);
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header);
  if (!descr || !shape || /'fortran_order':\s*True/.test(header)) throw new Error(file + ': unsupported .npy header ' + header);
  const type = Object.keys(NPY_TYPES).find((t) => NPY_TYPES[t][0] === descr[1]);
  if (!type) throw new Error(file + ': unsupported element type ' + descr[1]);
  const dims = shape[1].split(',').map((s) => s.trim()).filter((s) => s !== '').map(Number);
  const raw = bytes.subarray(headerStart + headerLen);
  const Array_ = NPY_TYPES[type][1];
  const data = new Array_(raw.length / Array_.BYTES_PER_ELEMENT);
  Buffer.from(data.buffer).set(raw);
  return {type, dims, data: type === 'bool' ? Uint8Array.from(data, (v) => v !== 0) : data};
}

function npyBytes(type, dims, data) {
  const shape = '(' + dims.join(', ') + (dims.length === 1 ? ',' : '') + ')';
  let header = "{'descr': '" + NPY_TYPES[type][0] + "', 'fortran_order': False, 'shape': " + shape + ', }';
  header += ' '.repeat((64 - ((10 + header.length + 1) % 64)) % 64) + '\n';
  const prefix = Buffer.alloc(10);
  Buffer.from('\x93NUMPY', 'latin1').copy(prefix);
  prefix[6] = 1;
  prefix[7] = 0;
  prefix.writeUInt16LE(header.length, 8);
  const body = type === 'bool' ? Buffer.from(Uint8Array.from(data, (v) => (v ? 1 : 0)))
                               : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return Buffer.concat([prefix, Buffer.from(header, 'latin1'), body]);
}

// As aot/driver/tensor_dump.cc names files: the entry's number and the name's safe characters.
function fileName(number, name) {
  return String(number).padStart(4, '0') + '_' + name.slice(0, 64).replace(/[^A-Za-z0-9._-]/g, '_') + '.npy';
}

// Writes `files` (name -> Buffer) into dir, or nothing: staging folder first.
function writeFilesAtomically(dir, files) {
  const target = path.resolve(dir);
  const staging = path.join(path.dirname(target), '.' + path.basename(target) + '.ort-staging-' + process.pid);
  fs.rmSync(staging, {recursive: true, force: true});
  fs.mkdirSync(staging, {recursive: true});
  try {
    for (const [name, bytes] of Object.entries(files)) fs.writeFileSync(path.join(staging, name), bytes);
    if (!fs.existsSync(target)) {
      fs.renameSync(staging, target);
      return;
    }
    for (const name of Object.keys(files)) fs.renameSync(path.join(staging, name), path.join(target, name));
    fs.rmSync(staging, {recursive: true, force: true});
  } catch (e) {
    fs.rmSync(staging, {recursive: true, force: true});
    throw e;
  }
}

async function main() {
  const args = process.argv.slice(2);
  let ortPath = process.env.ONNXRUNTIME_NODE;
  const ortFlag = args.indexOf('--ort');
  if (ortFlag >= 0) {
    ortPath = args[ortFlag + 1];
    args.splice(ortFlag, 2);
  }
  if (!ortPath) usage('say where onnxruntime-node is: ONNXRUNTIME_NODE=PATH or --ort PATH');
  if (args.length < 2) usage();
  const [modelFile, outDir, ...inputFiles] = args;
  const ort = require(path.resolve(ortPath));

  const {nodes, model} = withEveryOutput(fs.readFileSync(modelFile));
  const session = await ort.InferenceSession.create(model, {graphOptimizationLevel: 'disabled'});
  if (inputFiles.length !== session.inputNames.length)
    usage('the model has ' + session.inputNames.length + ' inputs (' + session.inputNames.join(', ') + ') but ' +
          inputFiles.length + ' input files were given');
  const feeds = {};
  session.inputNames.forEach((name, i) => {
    const t = readNpy(inputFiles[i]);
    feeds[name] = new ort.Tensor(t.type, t.data, t.dims);
  });
  const results = await session.run(feeds);

  const files = {};
  const tensors = [];
  nodes.forEach((node, order) => {
    node.outputs.forEach((name, outputIndex) => {
      if (name === '') return;
      const entry = {name, node: node.name, op: node.op, order, output_index: outputIndex};
      const value = results[name];
      if (value && NPY_TYPES[value.type]) {
        entry.dtype = value.type;
        entry.shape = Array.from(value.dims, Number);
        entry.file = fileName(tensors.length, name);
        entry.source = 'run';
        files[entry.file] = npyBytes(value.type, entry.shape, value.data);
      } else {
        entry.file = null;
        entry.absent = value ? 'element type ' + value.type + ' is not written' : 'ONNX Runtime did not return it';
      }
      tensors.push(entry);
    });
  });
  const index = {format: 'aotc-tensor-dump', version: 1, producer: 'onnxruntime-node ' + (ort.env.versions?.common || ''),
                 model: path.basename(modelFile), tensors};
  files['tensors.json'] = Buffer.from(JSON.stringify(index, null, 1) + '\n');
  writeFilesAtomically(outDir, files);
}

main().catch((e) => {
  console.error('ort_dump_tensors: ' + (e && e.message ? e.message : e));
  process.exit(1);
});
