// Preloaded into the measured CLI: reports its peak resident set size at exit.
process.on('exit', () => {
  require('node:fs').writeSync(2, `\nBENCH_MAXRSS_KB ${process.resourceUsage().maxRSS}\n`);
});
