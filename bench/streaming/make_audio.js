// A deterministic test signal at 16 kHz: quiet noise, then a voiced sound (a 140 Hz
// harmonic series under a slow envelope, like a sustained vowel), then quiet noise again.
//   node make_audio.js SAMPLES OUT.f32
const fs = require('fs');
const [countText, outFile] = process.argv.slice(2);
const n = Number(countText);
const audio = new Float32Array(n);
let seed = 12345;
const noise = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 4294967296 - 0.5) * 0.01;
for (let i = 0; i < n; ++i) {
  const t = i / 16000;
  const voiced = i > n / 3 && i < (2 * n) / 3;
  let s = noise();
  if (voiced) {
    const envelope = Math.sin((Math.PI * (i - n / 3)) / (n / 3));
    for (let h = 1; h <= 12; ++h) s += (0.25 / h) * envelope * Math.sin(2 * Math.PI * 140 * h * t + h);
  }
  audio[i] = s;
}
fs.writeFileSync(outFile, Buffer.from(audio.buffer));
