#!/usr/bin/env node
/**
 * V8's young generation on its own (not giftcodes): a loop that keeps a small, constant
 * set of young objects alive (each new one replaces the oldest) while it allocates, for
 * `--seconds`, then prints the largest new space V8 committed and the peak RSS. It shows
 * what any long-running process gets from the Node line alone: Node 24 grows its new
 * space (two semi-spaces) once enough has survived its scavenges in all, up to a limit set
 * from the machine's memory, so a long `order bulk` run carries it whatever its own heap
 * holds (bench/README.md, "Bulk", the 1,000,000-row bound).
 *
 *   node bench/new-space.mjs --seconds 40 --live 20000
 *   "$(scripts/node-line.sh 24)" bench/new-space.mjs --seconds 40
 */
import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8';

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] !== undefined ? Number(args[i + 1]) : fallback;
};
const seconds = opt('--seconds', 40);
// 20,000 objects of about 100 bytes: about 2 MB alive at any time.
const liveObjects = opt('--live', 20_000);

const mib = (bytes) => (bytes / 1048576).toFixed(0);
const newSpace = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0;

const live = [];
let newSpaceMax = 0;
let rssMax = 0;
const end = Date.now() + seconds * 1000;
let n = 0;
while (Date.now() < end) {
  for (let i = 0; i < 1000; i++, n++) {
    live.push({ text: `item ${n} ${'x'.repeat(16)}`, pair: [n, n + 1] });
    if (live.length > liveObjects) live.shift();
  }
  newSpaceMax = Math.max(newSpaceMax, newSpace());
  rssMax = Math.max(rssMax, process.memoryUsage().rss);
  // Let the event loop turn, as a real run's awaits do.
  await new Promise((resolve) => setImmediate(resolve));
}
process.stdout.write(
  `${process.version}: new space at most ${mib(newSpaceMax)} MiB, peak RSS ${mib(rssMax)} MiB ` +
    `(${seconds} s, ${liveObjects} objects alive; heap limit ${mib(getHeapStatistics().heap_size_limit)} MiB)\n`,
);
