#!/usr/bin/env node
/**
 * Start-up benchmark (`npm run bench:startup`): median wall time of `giftcodes --version` and
 * `giftcodes --help` against bare `node -e 0` on the same machine. The target is a
 * ratio of at most 2x. Uses hyperfine when it is installed, else times spawnSync
 * runs itself, interleaving the commands so a busy machine skews them all alike.
 *
 *   npm run bench:startup                  15 runs each
 *   npm run bench:startup -- --runs 30     more runs
 *   npm run bench:startup -- --check       exit 1 when a ratio is above 2x (for CI, if wanted)
 *   npm run bench:startup -- --json        machine-readable result
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'giftcodes.js');
const TARGET = 2;

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] ? Number(args[i + 1]) : fallback;
};
const runs = option('--runs', 15);
const warmup = option('--warmup', 3);
const check = args.includes('--check');
const asJson = args.includes('--json');

if (!existsSync(join(ROOT, 'dist', 'main.js'))) {
  console.error('dist/ is missing: run `npm run build` first');
  process.exit(2);
}

const CASES = [
  { name: 'node -e 0', argv: ['-e', '0'] },
  { name: 'giftcodes --version', argv: [BIN, '--version'] },
  { name: 'giftcodes --help', argv: [BIN, '--help'] },
];

// A private config directory and no GIFTCODES_* settings: measure the tool, not the user's setup.
const configDir = mkdtempSync(join(tmpdir(), 'giftcodes-bench-'));
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('GIFTCODES_')));
env.GIFTCODES_CONFIG_DIR = configDir;
env.NO_COLOR = '1';

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function hasHyperfine() {
  return spawnSync('hyperfine', ['--version'], { stdio: 'ignore' }).status === 0;
}

function withHyperfine() {
  const out = join(configDir, 'hyperfine.json');
  const quote = (s) => `'${s.replace(/'/g, `'\\''`)}'`;
  const commands = CASES.map((c) => [process.execPath, ...c.argv].map(quote).join(' '));
  const result = spawnSync(
    'hyperfine',
    ['--warmup', String(warmup), '--runs', String(runs), '-N', '--export-json', out, ...commands],
    { env, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  if (result.status !== 0) throw new Error('hyperfine failed');
  const data = JSON.parse(readFileSync(out, 'utf8'));
  return CASES.map((c, i) => ({
    ...c,
    medianMs: data.results[i].median * 1000,
    samples: data.results[i].times.length,
  }));
}

function timeOnce(argv) {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, argv, { env, stdio: ['ignore', 'ignore', 'ignore'] });
  const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) throw new Error(`${argv.join(' ')} exited ${result.status}`);
  return elapsed;
}

function withSpawnSync() {
  const samples = CASES.map(() => []);
  for (let i = 0; i < warmup; i++) for (const c of CASES) timeOnce(c.argv);
  for (let i = 0; i < runs; i++) {
    CASES.forEach((c, j) => {
      samples[j].push(timeOnce(c.argv));
    });
  }
  return CASES.map((c, j) => ({ ...c, medianMs: median(samples[j]), samples: samples[j].length }));
}

const tool = hasHyperfine() ? 'hyperfine' : 'spawnSync';
let results;
try {
  results = tool === 'hyperfine' ? withHyperfine() : withSpawnSync();
} finally {
  rmSync(configDir, { recursive: true, force: true });
}

const baseline = results[0].medianMs;
const rows = results.map((r) => ({
  name: r.name,
  medianMs: Number(r.medianMs.toFixed(1)),
  ratio: Number((r.medianMs / baseline).toFixed(2)),
}));
const over = rows.slice(1).filter((r) => r.ratio > TARGET);

if (asJson) {
  console.log(JSON.stringify({ tool, runs, node: process.version, target: TARGET, results: rows }, null, 2));
} else {
  console.log(`start-up benchmark: median of ${runs} runs each (${tool}, node ${process.version})\n`);
  for (const r of rows) {
    console.log(`  ${r.name.padEnd(22)} ${r.medianMs.toFixed(1).padStart(7)} ms   ${r.ratio.toFixed(2)}x`);
  }
  console.log(
    over.length
      ? `\nabove the ${TARGET}x target: ${over.map((r) => r.name).join(', ')}`
      : `\nwithin the ${TARGET}x target`,
  );
}
if (check && over.length) process.exitCode = 1;
