#!/usr/bin/env node
/**
 * Start-up benchmark (`npm run bench:startup`, issue 25): wall time, CPU time (user +
 * system) and peak RSS of `giftcodes --version`, `--help`, `order bulk --help`, the read
 * commands `catalog`, `balance` and `order get <id>` against a loopback sandbox the
 * benchmark starts itself, and a usage error (no base URL), each against bare
 * `node -e 0` on the same machine. Runs are interleaved (one of each case per round), so
 * a busy machine skews every case alike; medians over the rounds.
 *
 * Targets: `--help` at most 1.5x `node -e 0`, each read command at most 2.5x (wall and
 * CPU), peak RSS at most 70 MB.
 *
 *   npm run bench:startup                  15 rounds
 *   npm run bench:startup -- --runs 30     more rounds
 *   npm run bench:startup -- --check       exit 1 when a target is missed
 *   npm run bench:startup -- --json        machine-readable result
 *
 * CPU and RSS come from the measured process itself (`process.resourceUsage()` at exit,
 * bench/usage-probe.cjs preloaded into every case, `node -e 0` too), in microseconds:
 * `/usr/bin/time` and /proc count 10 ms ticks, a fifth of `node -e 0`. The sandbox runs
 * in a worker thread, so it answers while the main thread waits in spawnSync.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { isMainThread, parentPort, Worker } from 'node:worker_threads';

const ROOT = resolve(import.meta.dirname, '..');

if (!isMainThread) {
  // The sandbox's thread: one ready account with one fulfilled order to read back.
  const { startSandbox } = await import(join(ROOT, 'dist', 'sandbox', 'index.js'));
  const sandbox = await startSandbox({ port: 0, seed: 1, faults: { rateLimit: 'off' } });
  const { request } = await import('undici');
  const res = await request(`${sandbox.url}/b2b/orders`, {
    method: 'POST',
    headers: { 'x-api-key': sandbox.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({
      externalRef: 'bench-startup-1',
      items: [{ productId: 'prd_amazon_us', skuId: 'sku_amazon_us_range', amount: 10, quantity: 2 }],
    }),
  });
  const created = await res.body.json();
  if (res.statusCode !== 201) throw new Error(`order creation failed: ${res.statusCode}`);
  parentPort.postMessage({ url: sandbox.url, apiKey: sandbox.apiKey, checkoutId: created.checkoutId });
  parentPort.on('message', async (m) => {
    if (m === 'close') {
      await sandbox.close();
      parentPort.close();
    }
  });
} else {
  await main();
}

async function main() {
  const BIN = join(ROOT, 'bin', 'giftcodes.js');
  const PROBE = join(ROOT, 'bench', 'usage-probe.cjs');
  const HELP_TARGET = 1.5;
  const READ_TARGET = 2.5;
  const RSS_TARGET_MB = 70;

  const args = process.argv.slice(2);
  const option = (name, fallback) => {
    const i = args.indexOf(name);
    return i >= 0 && args[i + 1] ? Number(args[i + 1]) : fallback;
  };
  const runs = option('--runs', 15);
  const warmup = option('--warmup', 2);
  const check = args.includes('--check');
  const asJson = args.includes('--json');

  if (!existsSync(join(ROOT, 'dist', 'main.js'))) {
    console.error('dist/ is missing: run `npm run build` first');
    process.exit(2);
  }

  const worker = new Worker(new URL(import.meta.url));
  const sandbox = await new Promise((done, reject) => {
    worker.once('message', done);
    worker.once('error', reject);
  });
  if (!/^http:\/\/(127\.0\.0\.1|\[::1\]|localhost):/.test(sandbox.url))
    throw new Error(`refusing a non-loopback sandbox URL: ${sandbox.url}`);

  // A private config directory and no GIFTCODES_* settings from the caller: measure the
  // tool, not the user's setup. The read commands get URL and key from the environment.
  const configDir = mkdtempSync(join(tmpdir(), 'giftcodes-bench-'));
  const bare = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('GIFTCODES_')));
  bare.GIFTCODES_CONFIG_DIR = configDir;
  bare.NO_COLOR = '1';
  const configured = { ...bare, GIFTCODES_BASE_URL: sandbox.url, GIFTCODES_API_KEY: sandbox.apiKey };

  const CASES = [
    { name: 'node -e 0', argv: ['-e', '0'], env: bare },
    { name: '--version', argv: [BIN, '--version'], env: bare, target: HELP_TARGET },
    { name: '--help', argv: [BIN, '--help'], env: bare, target: HELP_TARGET },
    { name: 'order bulk --help', argv: [BIN, 'order', 'bulk', '--help'], env: bare, target: HELP_TARGET },
    { name: 'catalog', argv: [BIN, 'catalog'], env: configured, target: READ_TARGET },
    { name: 'balance', argv: [BIN, 'balance'], env: configured, target: READ_TARGET },
    {
      name: 'order get <id>',
      argv: [BIN, 'order', 'get', sandbox.checkoutId],
      env: configured,
      target: READ_TARGET,
    },
    { name: 'catalog, no base URL', argv: [BIN, 'catalog'], env: bare, status: 2, target: READ_TARGET },
  ];

  function timeOnce(c) {
    const started = process.hrtime.bigint();
    const result = spawnSync(process.execPath, ['-r', PROBE, ...c.argv], {
      env: c.env,
      stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
      encoding: 'utf8',
    });
    const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
    if (result.status !== (c.status ?? 0))
      throw new Error(`${c.name} exited ${result.status}: ${result.stderr.slice(0, 500)}`);
    const usage = JSON.parse(result.output[3]);
    return { wallMs, cpuMs: usage.cpuUs / 1000, rssMb: usage.maxRssKb / 1024 };
  }

  const median = (values) => {
    const sorted = [...values].sort((a, b) => a - b);
    const mid = Math.floor(sorted.length / 2);
    return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  };

  const loadBefore = loadavg()[0];
  const samples = CASES.map(() => []);
  try {
    for (let i = 0; i < warmup; i++) for (const c of CASES) timeOnce(c);
    for (let i = 0; i < runs; i++) {
      CASES.forEach((c, j) => {
        samples[j].push(timeOnce(c));
      });
    }
  } finally {
    rmSync(configDir, { recursive: true, force: true });
    worker.postMessage('close');
    await new Promise((done) => worker.once('exit', done));
  }
  const loadAfter = loadavg()[0];

  const results = CASES.map((c, j) => ({
    name: c.name,
    wallMs: median(samples[j].map((s) => s.wallMs)),
    cpuMs: median(samples[j].map((s) => s.cpuMs)),
    rssMb: median(samples[j].map((s) => s.rssMb)),
    maxRssMb: Math.max(...samples[j].map((s) => s.rssMb)),
    target: c.target,
  }));
  const [base] = results;
  const round = (n, d = 1) => Number(n.toFixed(d));
  const rows = results.map((r) => {
    const wallRatio = r.wallMs / base.wallMs;
    const cpuRatio = r.cpuMs / base.cpuMs;
    const missed = [];
    if (r.target && wallRatio > r.target) missed.push('wall');
    if (r.target && cpuRatio > r.target) missed.push('cpu');
    if (r.maxRssMb > RSS_TARGET_MB) missed.push('rss');
    return {
      name: r.name,
      wallMs: round(r.wallMs),
      wallRatio: round(wallRatio, 2),
      cpuMs: round(r.cpuMs),
      cpuRatio: round(cpuRatio, 2),
      rssMb: round(r.rssMb),
      maxRssMb: round(r.maxRssMb),
      target: r.target,
      missed,
    };
  });
  const over = rows.filter((r) => r.missed.length);
  const load = [round(loadBefore, 2), round(loadAfter, 2)];

  if (asJson) {
    console.log(
      JSON.stringify(
        { runs, node: process.version, load, rssTargetMb: RSS_TARGET_MB, results: rows },
        null,
        2,
      ),
    );
  } else {
    console.log(
      `start-up benchmark: medians of ${runs} interleaved rounds (node ${process.version}, load ${load[0]} → ${load[1]})\n`,
    );
    console.log(
      `  ${'case'.padEnd(22)} ${'wall ms'.padStart(8)} ${'ratio'.padStart(6)} ${'cpu ms'.padStart(8)} ${'ratio'.padStart(6)} ${'rss MB'.padStart(7)} ${'max'.padStart(6)}  target`,
    );
    for (const r of rows) {
      console.log(
        `  ${r.name.padEnd(22)} ${r.wallMs.toFixed(1).padStart(8)} ${r.wallRatio.toFixed(2).padStart(6)} ${r.cpuMs.toFixed(1).padStart(8)} ${r.cpuRatio.toFixed(2).padStart(6)} ${r.rssMb.toFixed(1).padStart(7)} ${r.maxRssMb.toFixed(1).padStart(6)}  ${r.target ? `≤${r.target}x` : ''}${r.missed.length ? `  MISSED: ${r.missed.join(', ')}` : ''}`,
      );
    }
    console.log(
      over.length
        ? `\ntargets missed: ${over.map((r) => `${r.name} (${r.missed.join(', ')})`).join('; ')}`
        : `\nevery target met (ratios to node -e 0; peak RSS ≤ ${RSS_TARGET_MB} MB)`,
    );
  }
  if (check && over.length) process.exitCode = 1;
}
