// Deterministic float32 test data: COUNT values in [LOW, HIGH) from a fixed LCG.
//   node make_floats.js COUNT LOW HIGH SEED OUT.f32
const fs = require('fs');
const [count, low, high, seedText, out] = process.argv.slice(2);
let seed = Number(seedText) >>> 0;
const values = new Float32Array(Number(count));
for (let i = 0; i < values.length; ++i) {
  seed = (seed * 1664525 + 1013904223) >>> 0;
  values[i] = Number(low) + (Number(high) - Number(low)) * (seed / 4294967296);
}
fs.writeFileSync(out, Buffer.from(values.buffer));
