// Times ONNX Runtime (onnxruntime-node, one thread, all graph optimizations) and aotc's
// harnesses on the same input, alternately, and prints a Markdown table with the ratios.
//   node bench.js ROUNDS MODEL.onnx:SIZE:HARNESS[,HARNESS...] [...]
// For each model: writes a seeded random input [1, 3, SIZE, SIZE], runs each harness once
// and checks its output against ONNX Runtime's (|d| <= 1e-4 |want| + 1e-4 max|want|), then
// ROUNDS rounds of: ONNX Runtime's median over a batch of runs, each harness's median over
// as many runs. Reports the median of the rounds. Exit status 1 on a mismatch.
const ort = require('onnxruntime-node');
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');

function seededInput(count) {  // standard normal by Box-Muller over an LCG
  let s = 12345;
  const next = () => { s = (Math.imul(s, 1103515245) + 12345) >>> 0; return (s + 1) / 4294967297; };
  const x = new Float32Array(count);
  for (let i = 0; i < count; i += 2) {
    const r = Math.sqrt(-2 * Math.log(next())), t = 2 * Math.PI * next();
    x[i] = r * Math.cos(t);
    if (i + 1 < count) x[i + 1] = r * Math.sin(t);
  }
  return x;
}

const median = (v) => { const s = [...v].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };

async function main() {
  const rounds = Number(process.argv[2]);
  let failed = false;
  const rows = [];
  for (const spec of process.argv.slice(3)) {
    const [model, size, harnessList] = spec.split(':');
    const harnesses = harnessList.split(',');
    const n = Number(size);
    const x = seededInput(3 * n * n);
    const inputFile = model + '.input.f32';
    fs.writeFileSync(inputFile, Buffer.from(x.buffer));
    const session = await ort.InferenceSession.create(model, {
      intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: 'all', executionMode: 'sequential' });
    const feeds = { [session.inputNames[0]]: new ort.Tensor('float32', x, [1, 3, n, n]) };
    const want = (await session.run(feeds))[session.outputNames[0]].data;
    const scale = want.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
    for (const h of harnesses) {
      const outFile = h + '.out.f32';
      execFileSync(h, [inputFile, outFile, '1']);
      const b = fs.readFileSync(outFile);
      const got = new Float32Array(b.buffer, b.byteOffset, b.length / 4);
      let worst = 0, bad = 0;
      for (let i = 0; i < want.length; ++i) {
        const d = Math.abs(got[i] - want[i]);
        worst = Math.max(worst, d / scale);
        if (!(d <= 1e-4 * Math.abs(want[i]) + 1e-4 * scale)) ++bad;
      }
      if (got.length !== want.length || bad) failed = true;
      console.error(`${path.basename(h)}: ${bad ? bad + ' MISMATCHES' : 'matches ONNX Runtime'} ` +
                    `(largest difference ${worst.toPrecision(2)} of the largest output)`);
    }
    // Runs per batch: about 0.3 s of ONNX Runtime.
    let t0 = process.hrtime.bigint();
    await session.run(feeds);
    const once = Number(process.hrtime.bigint() - t0) / 1e6;
    const runs = Math.max(3, Math.min(50, Math.round(300 / once)));
    const ortRounds = [], aotcRounds = harnesses.map(() => []);
    for (let r = 0; r < rounds; ++r) {
      const times = [];
      for (let i = 0; i < runs; ++i) {
        t0 = process.hrtime.bigint();
        await session.run(feeds);
        times.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
      ortRounds.push(median(times));
      harnesses.forEach((h, k) => {
        aotcRounds[k].push(Number(execFileSync(h, [inputFile, h + '.out.f32', String(runs)]).toString()));
      });
    }
    const ortMs = median(ortRounds);
    harnesses.forEach((h, k) => {
      const ms = median(aotcRounds[k]);
      rows.push(`| ${path.basename(model, '.onnx')} | ${n}x${n} | ${path.basename(h)} | ${ortMs.toFixed(3)} | ` +
                `${ms.toFixed(3)} | ${(ms / ortMs).toFixed(2)} |`);
    });
  }
  console.log('| model | input | aotc build | ONNX Runtime ms | aotc ms | aotc / ORT |');
  console.log('|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
  process.exit(failed ? 1 : 0);
}
main().catch((e) => { console.error(e); process.exit(1); });
