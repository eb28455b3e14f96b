#!/usr/bin/env node
/**
 * Bulk benchmark (not a test): the built CLI buys N rows from an in-process sandbox
 * with a request-rate limit and added latency.
 *
 * - Throughput: wall time of `giftcodes order bulk` divided by the lower bound the
 *   rate limit sets: requests needed / allowed rate, where "needed" is the least any
 *   client must send: 4 preflight reads (catalog, account, rates, balance), two exact
 *   look-ups (the batch's anchor, and its first order as plans before the anchor named
 *   it), and per order (the anchor is one of them) one POST and one GET. Target <= 1.25.
 * - Memory: peak RSS of the CLI process (the sandbox runs in this process, not in it)
 *   at 10,000 and 100,000 rows. Target <= 150 MB. `scale`: dry run and real run from
 *   10,000 to 1,000,000 rows, no V8 flags (target: peak RSS <= 256 MiB at 1,000,000 rows
 *   of small orders, and within 1.25x of the peak at 100,000); `resume`: a run stopped
 *   half-way by the daily cap, then resumed from its journal (the resumed run reads the
 *   whole plan back).
 * - Pace through faults (`pace`, paceRun below): answered requests a second before,
 *   during and after a window of seeded faults in the middle of a run.
 * - Requests per order: with fulfilment that takes seconds per order (`--fulfillment-ms`
 *   per unit, default 500; orders of at most `--items-per-order` lines, default 5, so
 *   about 3 s an order), the requests the sandbox answered, by kind (preflight reads,
 *   POST /b2b/orders, GET /b2b/orders/{id} polls, 429s), per order, and the wall time
 *   against the same rate-limit bound, at each `--settings` entry rate:latency:rows
 *   (default 50:20:10000,10:200:2000, about 80 s of bound each). Target <= 1.10.
 *
 *   npm run build && node bench/bulk.mjs                 all three
 *   node bench/bulk.mjs --rows 10000 --rate 50 --latency 20 --concurrency 8
 * - Re-run cost (`rerun`): a run stopped half-way by the daily cap, its resume, and the
 *   same command once more on the finished batch, with the requests each made by kind:
 *   the resume reads back only the orders whose codes the stopped run did not collect,
 *   the re-run of a finished batch with its codes file intact reads no order.
 *
 *   node bench/bulk.mjs --only throughput|memory|scale|resume|rerun|requests|pace  --json
 *   node bench/bulk.mjs --only pace --rate 20 --pace-rows 3000 --fault-from 20 --fault-to 40
 *   node bench/bulk.mjs --only requests --settings 10:200:2000 --fulfillment-ms 500
 *   node bench/bulk.mjs --only scale --scale-sizes 1000000 --items-per-order 5   small orders
 *   NODEFLAGS=--trace-gc BENCH_SERIES=/tmp/series node bench/bulk.mjs --only scale --scale-sizes 1000000 --real-only
 *     BENCH_CLI_STDOUT=/tmp/gc.txt   the real run alone, its memory sampled every 50 ms into /tmp/series
 *     (ms, then rss, heapUsed, heapTotal, external, arrayBuffers in MB) and its GC trace into /tmp/gc.txt
 */
import { spawn } from 'node:child_process';
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'giftcodes.js');
const PROBE = process.env.PROBE ?? join(ROOT, 'bench', 'rss-probe.cjs');
const { startSandbox } = await import(join(ROOT, 'dist', 'sandbox', 'index.js'));
const { parse: csvParse } = await import('csv-parse');

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : fallback;
};
const rows = Number(opt('--rows', 10_000));
const rate = Number(opt('--rate', 50));
const latency = Number(opt('--latency', 20));
const concurrency = Number(opt('--concurrency', 8));
const only = opt('--only', 'all');
/** Lines an order may hold (the tier's maxItemsPerOrder) in the memory, scale and resume runs: small orders mean many orders. */
const smallOrders = args.includes('--items-per-order') ? Number(opt('--items-per-order', 5)) : undefined;
const asJson = args.includes('--json');

/** Limits that never stop a bench run (caps far above any plan), `itemsPerOrder` lines an order when given. */
const openLimits = (itemsPerOrder) => ({
  dailySpendCapUSD: 1e12,
  monthlySpendCapUSD: 1e12,
  maxOrderAmountUSD: 1e9,
  ...(itemsPerOrder ? { maxItemsPerOrder: itemsPerOrder } : {}),
});

/** Realistic rows: fixed and ranged denominations, a required field, quantities 1-3. */
function csv(n) {
  const out = ['ref,productId,skuId,amount,quantity,field.playerId'];
  const kinds = [
    (i) => `E${i},prd_amazon_us,sku_amazon_us_range,${5 + (i % 50)},1,`,
    (i) => `E${i},prd_steam_eu,sku_steam_eu_range,${5 * (1 + (i % 10))},1,`,
    (i) => `E${i},prd_netflix_global,sku_netflix_15,15,${1 + (i % 3)},`,
    (i) => `E${i},prd_freefire_diamonds,sku_freefire_range,${1 + (i % 20)},1,${100000000 + i}`,
    (i) => `E${i},prd_playstation_uk,sku_psn_uk_25,25,1,`,
  ];
  for (let i = 1; i <= n; i++) out.push(kinds[i % kinds.length](i));
  return `${out.join('\n')}\n`;
}

function writeInput(path, n) {
  writeFileSync(path, csv(n));
}

/** csv-parse alone reading the file, with the options parse.ts uses: the floor of any preflight. */
async function csvParseAlone(path) {
  const started = performance.now();
  const parser = createReadStream(path).pipe(
    csvParse({ bom: true, skip_empty_lines: true, relax_column_count: true, trim: false }),
  );
  for await (const _ of parser);
  return performance.now() - started;
}

async function countLines(path) {
  let lines = 0;
  for await (const chunk of createReadStream(path)) {
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines += 1;
  }
  return lines;
}

/** Every unit of every row of `csv(n)` once in the output, delivered with a code. */
async function checkOutput(path, n) {
  const seen = new Uint8Array(n + 1);
  let header = true;
  for await (const record of createReadStream(path).pipe(csvParse())) {
    if (header) {
      header = false;
      continue;
    }
    const row = Number(record[0]);
    if (record[8] !== 'completed' || !record[9])
      throw new Error(`row ${row} unit ${record[7]}: ${record[8]}`);
    seen[row] += 1;
  }
  for (let i = 1; i <= n; i++) {
    const quantity = i % 5 === 2 ? 1 + (i % 3) : 1;
    if (seen[i] !== quantity) throw new Error(`row ${i}: ${seen[i]} units written, ${quantity} planned`);
  }
}

function runCli(cliArgs, env) {
  return new Promise((resolvePromise, reject) => {
    const started = performance.now();
    const child = spawn(
      process.execPath,
      [
        ...(process.env.NODEFLAGS ? process.env.NODEFLAGS.split(' ') : []),
        '--require',
        PROBE,
        BIN,
        ...cliArgs,
      ],
      {
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (c) => {
      stdout += c;
    });
    child.stderr.setEncoding('utf8').on('data', (c) => {
      stderr += c;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const wallMs = performance.now() - started;
      const rss = /BENCH_MAXRSS_KB (\d+)/.exec(stderr);
      // PROBE: a preload of your own prints lines starting with PEAK; BENCH_STDERR=1
      // passes the CLI's whole stderr through (e.g. NODEFLAGS=--trace-gc).
      if (process.env.BENCH_STDERR) console.error(stderr);
      else if (process.env.PROBE)
        console.error(
          stderr
            .split('\n')
            .filter((l) => l.startsWith('PEAK'))
            .join('\n'),
        );
      resolvePromise({ code, wallMs, maxRssMb: rss ? Number(rss[1]) / 1024 : Number.NaN, stderr, stdout });
    });
  });
}

const trace = [];

/** Requests the sandbox answered, by kind, from its request log lines ("METHOD /path STATUS Nms"). */
function requestCounter() {
  const counts = { preflight: 0, post: 0, poll: 0, refCheck: 0, throttled: 0, other: 0 };
  const log = (line) => {
    const m = /^(GET|POST|PUT|PATCH|DELETE) (\S+) (\d{3}) \d+ms$/.exec(line);
    if (!m) return;
    const [, method, path, status] = m;
    if (status === '429') counts.throttled += 1;
    else if (method === 'POST' && path === '/b2b/orders') counts.post += 1;
    else if (method === 'GET' && path.startsWith('/b2b/orders/')) counts.poll += 1;
    else if (method === 'GET' && path === '/b2b/orders') counts.refCheck += 1;
    else if (method === 'GET') counts.preflight += 1;
    else counts.other += 1;
  };
  return { counts, log };
}

async function bulkRun(
  n,
  { rateLimit, latencyMs, fulfillmentUnitMs = 1, itemsPerOrder, counter, dryRun = false, sample = false },
) {
  let spawnedAt = 0;
  let firstPostAt;
  const firstPost = (line) => {
    if (firstPostAt === undefined && /^POST \/b2b\/orders 2\d\d /.test(line)) firstPostAt = performance.now();
    counter?.log(line);
  };
  const sandbox = await startSandbox({
    port: 0,
    seed: 42,
    // Fast fulfilment by default so one poll per order can suffice: the bound counts one GET per order.
    tuning: { fulfillmentUnitMs },
    faults: { latencyMs, ...(rateLimit ? { rateLimit } : {}) },
    ...(args.includes('--trace')
      ? {
          log: (line) => {
            trace.push([performance.now(), line]);
            firstPost(line);
          },
        }
      : { log: firstPost }),
  });
  const dir = mkdtempSync(join(tmpdir(), 'giftcodes-bench-'));
  try {
    const account = sandbox.createAccount({ tier: 'enterprise', balanceUsd: 1e9 });
    sandbox.patchAccount(account.userId, {
      limits: openLimits(itemsPerOrder),
      ...(rateLimit ? { rateLimit } : {}),
    });
    const input = join(dir, 'in.csv');
    writeInput(input, n);
    const csvParseMs = sample ? await csvParseAlone(input) : undefined;
    const out = join(dir, 'codes.csv');
    spawnedAt = performance.now();
    const result = await runCli(
      [
        'order',
        'bulk',
        input,
        '--out',
        out,
        '--yes',
        '--concurrency',
        String(concurrency),
        ...(dryRun ? ['--dry-run', '--json'] : []),
        ...(args.includes('--debug') ? ['--debug'] : []),
      ],
      {
        GIFTCODES_BASE_URL: sandbox.url,
        GIFTCODES_API_KEY: account.apiKey,
        GIFTCODES_TIMEOUT: '30000',
        GIFTCODES_CONFIG_DIR: dir,
        ...(sample ? { BENCH_SAMPLE: '50' } : {}),
      },
    );
    if (result.code !== 0) throw new Error(`bulk run exited ${result.code}:\n${result.stderr.slice(-2000)}`);
    // The CLI's own output (with NODEFLAGS=--trace-gc, its collections), kept when asked for.
    if (process.env.BENCH_CLI_STDOUT) writeFileSync(process.env.BENCH_CLI_STDOUT, result.stdout);
    const memory = /BENCH_MEMORY (.*)/.exec(result.stderr);
    const extra = {
      csvParseMs,
      memory: memory ? JSON.parse(memory[1]) : undefined,
      toFirstPurchaseMs: firstPostAt === undefined ? undefined : firstPostAt - spawnedAt,
    };
    if (dryRun) return { ...result, ...extra, orders: JSON.parse(result.stdout).total.orders, units: 0 };
    // The sandbox is the oracle: the orders it holds for the account.
    const orders = sandbox.orders(account.userId).orders.length;
    const units = (await countLines(out)) - 1;
    await checkOutput(out, n);
    if (args.includes('--debug')) {
      const lines = result.stderr.split('\n');
      const count = (re) => lines.filter((l) => re.test(l)).length;
      console.error(
        `requests: POST ${count(/> POST .*\/b2b\/orders/)}, GET order ${count(/> GET .*\/b2b\/orders\/chk/)}, ` +
          `429 ${count(/< 429/)}, other GET ${count(/> GET/) - count(/> GET .*\/b2b\/orders\/chk/)}`,
      );
      const times = lines.filter((l) => l.startsWith('debug: >')).length;
      console.error(`total requests ${times}`);
    }
    return { ...result, ...extra, orders, units };
  } finally {
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `n` rows bought in two runs: the first stops at a daily spend cap of about half the
 * plan (exit 4), the cap is lifted, and the second resumes from the journal. Peak RSS
 * of each run, and the output checked once complete.
 */
async function resumedRun(n, { counter, rerun = false } = {}) {
  const sandbox = await startSandbox({
    port: 0,
    seed: 42,
    tuning: { fulfillmentUnitMs: 1 },
    faults: { latencyMs: 0 },
    ...(counter ? { log: counter.log } : {}),
  });
  const dir = mkdtempSync(join(tmpdir(), 'giftcodes-bench-'));
  try {
    const account = sandbox.createAccount({ tier: 'enterprise', balanceUsd: 1e9 });
    const limits = openLimits(smallOrders);
    sandbox.patchAccount(account.userId, { limits });
    const input = join(dir, 'in.csv');
    writeInput(input, n);
    const out = join(dir, 'codes.csv');
    const env = {
      GIFTCODES_BASE_URL: sandbox.url,
      GIFTCODES_API_KEY: account.apiKey,
      GIFTCODES_TIMEOUT: '30000',
      GIFTCODES_CONFIG_DIR: dir,
    };
    const cli = (extra = []) =>
      runCli(
        ['order', 'bulk', input, '--out', out, '--yes', '--concurrency', String(concurrency), ...extra],
        env,
      );
    const dry = await cli(['--dry-run', '--json']);
    if (dry.code !== 0) throw new Error(`dry run exited ${dry.code}:\n${dry.stderr.slice(-2000)}`);
    const planUsd = JSON.parse(dry.stdout).total.estimatedUsd;
    sandbox.patchAccount(account.userId, {
      limits: { ...limits, dailySpendCapUSD: Math.round(planUsd / 2) },
    });
    const snapshot = () => ({ ...counter?.counts });
    const first = await cli();
    if (first.code !== 4)
      throw new Error(`the capped run exited ${first.code}, not 4:\n${first.stderr.slice(-2000)}`);
    const afterFirst = snapshot();
    sandbox.patchAccount(account.userId, { limits });
    const second = await cli();
    if (second.code !== 0)
      throw new Error(`the resumed run exited ${second.code}:\n${second.stderr.slice(-2000)}`);
    await checkOutput(out, n);
    const afterSecond = snapshot();
    if (rerun) {
      // The same command once more: the batch is finished and its codes file intact.
      const third = await cli();
      if (third.code !== 0) throw new Error(`the re-run exited ${third.code}:\n${third.stderr.slice(-2000)}`);
      await checkOutput(out, n);
      const orders = sandbox.orders(account.userId).orders;
      const created = orders.length;
      const delta = (to, from) => Object.fromEntries(Object.keys(to).map((k) => [k, to[k] - (from[k] ?? 0)]));
      return {
        orders: orders.length,
        createdByFirstRun: afterFirst.post,
        created,
        firstRun: { wallS: +(first.wallMs / 1000).toFixed(1), requests: afterFirst },
        resumedRun: { wallS: +(second.wallMs / 1000).toFixed(1), requests: delta(afterSecond, afterFirst) },
        rerun: { wallS: +(third.wallMs / 1000).toFixed(1), requests: delta(snapshot(), afterSecond) },
      };
    }
    return {
      firstRun: { wallS: +(first.wallMs / 1000).toFixed(1), peakRssMb: +first.maxRssMb.toFixed(1) },
      resumedRun: { wallS: +(second.wallMs / 1000).toFixed(1), peakRssMb: +second.maxRssMb.toFixed(1) },
    };
  } finally {
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Requests before the first order: 4 preflight reads and 2 exact look-ups (anchor, legacy first ref). */
const FIXED_REQUESTS = 6;

const results = {};
if (only === 'all' || only === 'throughput') {
  const r = await bulkRun(rows, { rateLimit: { perSecond: rate, burst: 5 }, latencyMs: latency });
  const needed = FIXED_REQUESTS + 2 * r.orders;
  const boundMs = (needed / rate) * 1000;
  results.throughput = {
    rows,
    units: r.units,
    orders: r.orders,
    ratePerSecond: rate,
    latencyMs: latency,
    concurrency,
    requestsNeeded: needed,
    lowerBoundS: +(boundMs / 1000).toFixed(2),
    wallS: +(r.wallMs / 1000).toFixed(2),
    ratio: +(r.wallMs / boundMs).toFixed(3),
    target: 1.25,
    // The CLI's start-up and preflight (spawn to the first order bought) are in the wall
    // time; on a loaded machine they swell and dominate a bound of a few seconds.
    toFirstPurchaseS:
      r.toFirstPurchaseMs === undefined ? undefined : +(r.toFirstPurchaseMs / 1000).toFixed(2),
    loadAverage: (await import('node:os')).loadavg().map((x) => +x.toFixed(2)),
  };
}
if (only === 'all' || only === 'memory') {
  results.memory = [];
  for (const n of opt('--sizes', '10000,100000').split(',').map(Number)) {
    const r = await bulkRun(n, { rateLimit: 'off', latencyMs: 0, itemsPerOrder: smallOrders });
    results.memory.push({
      rows: n,
      units: r.units,
      orders: r.orders,
      wallS: +(r.wallMs / 1000).toFixed(1),
      peakRssMb: +r.maxRssMb.toFixed(1),
      targetMb: 150,
    });
  }
}
if (only === 'all' || only === 'scale') {
  // Preflight, plan and peak memory from 10,000 to 1,000,000 rows, no V8 flags: a dry
  // run (parse, validate, plan; nothing written) and a real run against the sandbox.
  results.scale = [];
  const mb = (bytes) => (bytes === undefined ? undefined : +(bytes / 1048576).toFixed(1));
  for (const n of opt('--scale-sizes', '10000,100000,1000000').split(',').map(Number)) {
    const sized = { rateLimit: 'off', latencyMs: 0, sample: true, itemsPerOrder: smallOrders };
    // --real-only: no dry run (its --json output cannot share stdout with NODEFLAGS=--trace-gc).
    const dry = args.includes('--real-only') ? undefined : await bulkRun(n, { ...sized, dryRun: true });
    const real = args.includes('--dry-only') ? undefined : await bulkRun(n, sized);
    const heap = (r) =>
      r?.memory && {
        heapUsedMb: mb(r.memory.peak.heapUsed),
        heapTotalMb: mb(r.memory.peak.heapTotal),
        externalMb: mb(r.memory.peak.external),
        arrayBuffersMb: mb(r.memory.peak.arrayBuffers),
        codeSpaceAtPeakMb: mb(r.memory.atPeak?.code),
      };
    results.scale.push({
      rows: n,
      orders: (dry ?? real).orders,
      csvParseAloneS: +((dry ?? real).csvParseMs / 1000).toFixed(2),
      ...(dry
        ? {
            dryRun: {
              wallS: +(dry.wallMs / 1000).toFixed(2),
              ratioToCsvParse: +(dry.wallMs / dry.csvParseMs).toFixed(2),
              peakRssMb: +dry.maxRssMb.toFixed(1),
              ...heap(dry),
            },
          }
        : {}),
      ...(real
        ? {
            run: {
              units: real.units,
              orders: real.orders,
              toFirstPurchaseS: +(real.toFirstPurchaseMs / 1000).toFixed(2),
              wallS: +(real.wallMs / 1000).toFixed(1),
              peakRssMb: +real.maxRssMb.toFixed(1),
              ...heap(real),
            },
          }
        : {}),
      targetMb: 256,
    });
  }
  // Issue 30: the peak at 1,000,000 rows within 1.25x of the peak at 100,000.
  const peakAt = (rows) => results.scale.find((m) => m.rows === rows)?.run?.peakRssMb;
  if (peakAt(100_000) && peakAt(1_000_000))
    results.scaleRatio = {
      of: '1,000,000 / 100,000 rows, real runs',
      ratio: +(peakAt(1_000_000) / peakAt(100_000)).toFixed(3),
      target: 1.25,
    };
}
if (only === 'all' || only === 'resume') {
  // A run stopped half-way (the daily spend cap), then resumed from its journal: the
  // resumed run's preflight reads the whole plan back (its report), the rest buys.
  results.resume = [];
  for (const n of opt('--resume-sizes', '100000,1000000').split(',').map(Number)) {
    const r = await resumedRun(n);
    results.resume.push({ rows: n, ...r, targetMb: 150 });
  }
}
if (only === 'all' || only === 'rerun') {
  // What a re-run costs: a run stopped half-way by the daily cap, its resume (reads only
  // the orders whose codes the first run did not collect), then the same command on the
  // finished batch (no order read at all). Requests the sandbox answered, by kind.
  results.rerun = [];
  for (const n of opt('--rerun-sizes', '2000').split(',').map(Number)) {
    results.rerun.push({ rows: n, ...(await resumedRun(n, { counter: requestCounter(), rerun: true })) });
  }
}
if (only === 'all' || only === 'requests') {
  results.requests = [];
  const fulfillmentUnitMs = Number(opt('--fulfillment-ms', 500));
  const itemsPerOrder = Number(opt('--items-per-order', 5));
  for (const setting of opt('--settings', '50:20:10000,10:200:2000').split(',')) {
    const [perSecond, latencyMs, n] = setting.split(':').map(Number);
    const counter = requestCounter();
    const r = await bulkRun(n, {
      rateLimit: { perSecond, burst: 5 },
      latencyMs,
      fulfillmentUnitMs,
      itemsPerOrder,
      counter,
    });
    const c = counter.counts;
    const needed = FIXED_REQUESTS + 2 * r.orders;
    const boundMs = (needed / perSecond) * 1000;
    const sent = c.preflight + c.refCheck + c.post + c.poll + c.throttled + c.other;
    results.requests.push({
      rows: n,
      units: r.units,
      orders: r.orders,
      ratePerSecond: perSecond,
      latencyMs,
      fulfillmentUnitMs,
      fulfillmentPerOrderS: +(((r.units / r.orders) * fulfillmentUnitMs) / 1000).toFixed(2),
      concurrency,
      requests: { ...c, total: sent },
      postsPerOrder: +(c.post / r.orders).toFixed(3),
      pollsPerOrder: +(c.poll / r.orders).toFixed(3),
      requestsPerOrder: +(sent / r.orders).toFixed(3),
      requestsNeeded: needed,
      lowerBoundS: +(boundMs / 1000).toFixed(2),
      wallS: +(r.wallMs / 1000).toFixed(2),
      ratio: +(r.wallMs / boundMs).toFixed(3),
      target: 1.1,
    });
  }
}
/**
 * Pace through a fault window: `--pace-rows` rows (default 3,000) in orders of at most 5
 * lines at `--rate` requests a second; from `--fault-from` to `--fault-to` seconds after
 * the start (default 20-40 s) a share of every route's requests fails (a 5xx before the
 * service acts, an answer held past the client's 5 s timeout, a body cut after the
 * service acted), then the faults clear. What the sandbox answered per 10 s window, and
 * the run's answered requests a second before, during and after the window. Target: the
 * pace after the window back to the pace before it within 10 s of the faults clearing.
 */
async function paceRun(n, { perSecond, fromS, toS }) {
  const answered = [];
  const sandbox = await startSandbox({
    port: 0,
    seed: 42,
    tuning: { fulfillmentUnitMs: 1 },
    faults: { latencyMs: latency, rateLimit: { perSecond, burst: 5 } },
    log: (line) => {
      const m = /^(GET|POST) \S+ (\d{3}) /.exec(line);
      if (m) answered.push([performance.now(), Number(m[2])]);
    },
  });
  const dir = mkdtempSync(join(tmpdir(), 'giftcodes-bench-'));
  const timers = [];
  try {
    const account = sandbox.createAccount({ tier: 'enterprise', balanceUsd: 1e9 });
    sandbox.patchAccount(account.userId, {
      limits: openLimits(5),
    });
    const input = join(dir, 'in.csv');
    writeInput(input, n);
    const calm = { latencyMs: latency, rateLimit: { perSecond, burst: 5 } };
    const stormy = {
      ...calm,
      routes: {
        '*': {
          probabilities: { error_before: 0.1, delay_after: 0.1, reset_after: 0.1 },
          delayMs: 8_000,
          status: 503,
        },
      },
    };
    const started = performance.now();
    timers.push(setTimeout(() => sandbox.setFaults(stormy), fromS * 1000));
    timers.push(setTimeout(() => sandbox.setFaults(calm), toS * 1000));
    const out = join(dir, 'codes.csv');
    const result = await runCli(
      ['order', 'bulk', input, '--out', out, '--yes', '--concurrency', String(concurrency), '--json'],
      {
        GIFTCODES_BASE_URL: sandbox.url,
        GIFTCODES_API_KEY: account.apiKey,
        GIFTCODES_TIMEOUT: '5000',
        GIFTCODES_CONFIG_DIR: dir,
      },
    );
    if (result.code !== 0) throw new Error(`bulk run exited ${result.code}:\n${result.stderr.slice(-2000)}`);
    await checkOutput(out, n);
    const wallS = result.wallMs / 1000;
    const windows = [];
    for (let from = 0; from < wallS; from += 10) {
      const inWindow = answered.filter(
        ([t]) => t - started >= from * 1000 && t - started < (from + 10) * 1000,
      );
      const ok = inWindow.filter(([, status]) => status < 300).length;
      windows.push({
        fromS: from,
        requestsPerS: +(inWindow.length / 10).toFixed(1),
        answered2xxPerS: +(ok / 10).toFixed(1),
      });
    }
    const rateOf = (a, b) => {
      const inSpan = answered.filter(
        ([t, st]) => st < 300 && t - started >= a * 1000 && t - started < b * 1000,
      );
      return +(inSpan.length / (b - a)).toFixed(1);
    };
    return {
      rows: n,
      orders: sandbox.orders(account.userId).orders.length,
      ratePerSecond: perSecond,
      fault: { fromS, toS },
      wallS: +wallS.toFixed(1),
      before: rateOf(0, fromS),
      during: rateOf(fromS, toS),
      // From 10 s after the faults cleared to the end of the run (its last orders' tail aside).
      after: rateOf(toS + 10, Math.max(toS + 20, wallS - 5)),
      windows,
    };
  } finally {
    for (const timer of timers) clearTimeout(timer);
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
if (only === 'pace') {
  results.pace = await paceRun(Number(opt('--pace-rows', 3_000)), {
    perSecond: rate,
    fromS: Number(opt('--fault-from', 20)),
    toS: Number(opt('--fault-to', 40)),
  });
}
if (args.includes('--trace')) {
  const t0 = trace[0]?.[0] ?? 0;
  for (const [t, line] of trace) console.error(`${(t - t0).toFixed(0).padStart(6)} ${line}`);
}
if (asJson) console.log(JSON.stringify(results, null, 2));
else {
  if (results.throughput) {
    const t = results.throughput;
    console.log(
      `throughput: ${t.rows} rows (${t.units} units, ${t.orders} orders) at ${t.ratePerSecond} req/s + ${t.latencyMs} ms latency, concurrency ${t.concurrency}: ` +
        `${t.wallS} s against a bound of ${t.lowerBoundS} s (${t.requestsNeeded} requests) -> ratio ${t.ratio} (target <= ${t.target}); ` +
        `first purchase after ${t.toFirstPurchaseS} s; load average ${t.loadAverage.join(' ')}`,
    );
  }
  for (const q of results.requests ?? []) {
    const c = q.requests;
    console.log(
      `requests: ${q.rows} rows (${q.units} units, ${q.orders} orders, ~${q.fulfillmentPerOrderS} s fulfilment an order) at ${q.ratePerSecond} req/s + ${q.latencyMs} ms latency: ` +
        `${c.total} requests (preflight ${c.preflight}, ref check ${c.refCheck}, POST ${c.post}, poll ${c.poll}, 429 ${c.throttled}) = ` +
        `${q.postsPerOrder} POST + ${q.pollsPerOrder} polls an order (${q.requestsPerOrder} in all); ` +
        `${q.wallS} s against a bound of ${q.lowerBoundS} s (${q.requestsNeeded} requests) -> ratio ${q.ratio} (target <= ${q.target})`,
    );
  }
  for (const m of results.scale ?? []) {
    const d = m.dryRun;
    console.log(
      `scale: ${m.rows} rows (${m.orders} orders): csv-parse alone ${m.csvParseAloneS} s` +
        (d
          ? `; dry run ${d.wallS} s (${d.ratioToCsvParse}x csv-parse), peak RSS ${d.peakRssMb} MB (heap ${d.heapUsedMb}, external ${d.externalMb})`
          : '') +
        (m.run
          ? `; real run ${m.run.wallS} s (${m.run.units} units), first purchase after ${m.run.toFirstPurchaseS} s, ` +
            `peak RSS ${m.run.peakRssMb} MB (heap ${m.run.heapUsedMb}, external ${m.run.externalMb})`
          : '') +
        ` (target <= ${m.targetMb} MB)`,
    );
  }
  if (results.scaleRatio)
    console.log(`scale: peak RSS at ${results.scaleRatio.of}: ${results.scaleRatio.ratio}x (target <= 1.25)`);
  for (const m of results.resume ?? []) {
    console.log(
      `resume: ${m.rows} rows stopped half-way by the daily cap (${m.firstRun.wallS} s, peak RSS ${m.firstRun.peakRssMb} MB), ` +
        `then resumed from the journal (${m.resumedRun.wallS} s, peak RSS ${m.resumedRun.peakRssMb} MB) (target <= ${m.targetMb} MB)`,
    );
  }
  for (const m of results.rerun ?? []) {
    const kinds = (r) =>
      `${r.preflight} preflight, ${r.refCheck} ref look-ups, ${r.post} POST, ${r.poll} order reads, ${r.throttled} 429`;
    console.log(
      `rerun: ${m.rows} rows, ${m.orders} orders. Stopped half-way by the daily cap: ${kinds(m.firstRun.requests)}. ` +
        `Resumed: ${kinds(m.resumedRun.requests)}. Re-run of the finished batch: ${kinds(m.rerun.requests)} (${m.rerun.wallS} s)`,
    );
  }
  if (results.pace) {
    const p = results.pace;
    console.log(
      `pace: ${p.rows} rows (${p.orders} orders) at ${p.ratePerSecond} req/s, faults from ${p.fault.fromS} s to ${p.fault.toS} s, ${p.wallS} s: ` +
        `answered 2xx a second before ${p.before}, during ${p.during}, from 10 s after ${p.after}; per 10 s: ` +
        p.windows.map((w) => `${w.fromS}s ${w.answered2xxPerS}/${w.requestsPerS}`).join(', '),
    );
  }
  for (const m of results.memory ?? []) {
    console.log(
      `memory: ${m.rows} rows (${m.units} units, ${m.orders} orders) in ${m.wallS} s, peak RSS ${m.peakRssMb} MB (target <= ${m.targetMb})`,
    );
  }
}
