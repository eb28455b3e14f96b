// Preloaded (`node -r`) into every process the start-up benchmark measures, `node -e 0`
// included: at exit it writes the process's own CPU time (user + system, microseconds)
// and peak RSS (kB) as one JSON line on file descriptor 3, a pipe the benchmark opens.
// Microseconds, where /usr/bin/time and /proc's child times count 10 ms ticks.
const { writeSync } = require('node:fs');

process.on('exit', () => {
  const u = process.resourceUsage();
  try {
    writeSync(3, `${JSON.stringify({ cpuUs: u.userCPUTime + u.systemCPUTime, maxRssKb: u.maxRSS })}\n`);
  } catch {
    // fd 3 is not open: run outside the benchmark, nothing to report to.
  }
});
