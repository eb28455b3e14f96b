// Preloaded into the measured CLI: reports its peak resident set size at exit. With
// BENCH_SAMPLE=<ms> it also samples process.memoryUsage() and reports the peaks of the
// V8 heap, external memory and array buffers, and V8's heap statistics at the RSS peak.
// With BENCH_SERIES=<file> as well, every sample is appended to that file (ms since
// start, then rss, heapUsed, heapTotal, external, arrayBuffers, and the committed size
// of V8's new space and old space, in MB), to see which stage of a run the peak falls in.
const fs = require('node:fs');
const sampleMs = Number(process.env.BENCH_SAMPLE || 0);
const seriesFile = process.env.BENCH_SERIES;
const peak = { rss: 0, heapUsed: 0, heapTotal: 0, external: 0, arrayBuffers: 0 };
let atPeak;
if (sampleMs > 0) {
  const v8 = require('node:v8');
  const started = Date.now();
  const series = [];
  const timer = setInterval(() => {
    const m = process.memoryUsage();
    for (const k of Object.keys(peak)) peak[k] = Math.max(peak[k], m[k]);
    if (seriesFile) {
      const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().map((s) => [s.space_name, s.space_size]));
      const sizes = [...Object.keys(peak).map((k) => m[k]), spaces.new_space, spaces.old_space];
      series.push([Date.now() - started, ...sizes.map((b) => (b / 1048576).toFixed(1))].join(' '));
    }
    if (m.rss >= peak.rss) {
      const h = v8.getHeapStatistics();
      atPeak = { ...m, heapLimit: h.heap_size_limit, mallocedMemory: h.malloced_memory, code: 0 };
      for (const s of v8.getHeapSpaceStatistics())
        if (s.space_name === 'code_space') atPeak.code = s.space_used_size;
    }
  }, sampleMs);
  timer.unref();
  if (seriesFile) process.on('exit', () => fs.appendFileSync(seriesFile, `${series.join('\n')}\n`));
}
process.on('exit', () => {
  fs.writeSync(2, `\nBENCH_MAXRSS_KB ${process.resourceUsage().maxRSS}\n`);
  if (sampleMs > 0) fs.writeSync(2, `BENCH_MEMORY ${JSON.stringify({ peak, atPeak })}\n`);
});
