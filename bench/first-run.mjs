#!/usr/bin/env node
/**
 * First-run benchmark (not a test), issue 9 section 1: what a first `order bulk` run
 * of a 10-row file costs before its first purchase, on accounts with 0, 3,000 and
 * 20,000 earlier orders. Counts the requests the sandbox answered before the first
 * `POST /b2b/orders` and the time from start-up to that POST. The target: at most 8
 * requests, whatever the history.
 *
 *   npm run build && node bench/first-run.mjs
 *   node bench/first-run.mjs --history 0,3000,20000,100000 --rate 10 --json
 *
 * `--rate N` puts a limit of N requests per second on the account, as a real service
 * would (default: none).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'giftcodes.js');
const { startSandbox } = await import(join(ROOT, 'dist', 'sandbox', 'index.js'));

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] ? args[i + 1] : fallback;
};
const histories = option('--history', '0,3000,20000').split(',').map(Number);
const rate = Number(option('--rate', '0'));
const asJson = args.includes('--json');

const CSV = [
  'ref,productId,skuId,amount,quantity',
  ...Array.from({ length: 10 }, (_, i) => `R${i + 1},prd_amazon_us,sku_amazon_us_range,${10 + i},1`),
].join('\n');

function runCli(cliArgs, env) {
  return new Promise((done, reject) => {
    const child = spawn(process.execPath, [BIN, ...cliArgs], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (c) => {
      stderr += c;
    });
    child.on('error', reject);
    child.on('close', (code) => done({ code, stderr }));
  });
}

async function firstRun(history) {
  const requests = [];
  let started = 0;
  let firstPostMs;
  const sandbox = await startSandbox({
    port: 0,
    seed: 7,
    log: (line) => {
      // Requests only ("METHOD /path STATUS Nms"), not the sandbox's other lines; not the operator's.
      if (!/^(GET|POST|PUT|PATCH|DELETE) \S+ \d{3} /.test(line) || line.includes(' /_sandbox/')) return;
      if (firstPostMs === undefined && line.startsWith('POST /b2b/orders '))
        firstPostMs = performance.now() - started;
      if (firstPostMs === undefined) requests.push(line.replace(/ \d+ms$/, ''));
    },
  });
  const dir = mkdtempSync(join(tmpdir(), 'giftcodes-bench-'));
  try {
    const account = sandbox.createAccount({ tier: 'enterprise', balanceUsd: 1e6 });
    if (history) {
      const res = await fetch(`${sandbox.url}/_sandbox/accounts/${account.userId}/history`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ orders: history }),
      });
      if (res.status !== 201) throw new Error(`seeding failed: ${res.status} ${await res.text()}`);
    }
    if (rate) sandbox.patchAccount(account.userId, { rateLimit: { perSecond: rate } });
    const input = join(dir, 'in.csv');
    writeFileSync(input, `${CSV}\n`);
    started = performance.now();
    const res = await runCli(['order', 'bulk', input, '--out', join(dir, 'codes.csv'), '--yes'], {
      GIFTCODES_BASE_URL: sandbox.url,
      GIFTCODES_API_KEY: account.apiKey,
      GIFTCODES_CONFIG_DIR: join(dir, 'config'),
      NO_COLOR: '1',
    });
    if (res.code !== 0) throw new Error(`bulk run exited ${res.code}: ${res.stderr}`);
    return {
      history,
      requestsBeforeFirstPurchase: requests.length,
      orderListRequests: requests.filter((r) => r.startsWith('GET /b2b/orders ')).length,
      msToFirstPurchase: Math.round(firstPostMs ?? Number.NaN),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await sandbox.close();
  }
}

const results = [];
for (const history of histories) results.push(await firstRun(history));
if (asJson) console.log(JSON.stringify({ rate: rate || null, results }, null, 2));
else {
  console.log(
    `first run of a 10-row file${rate ? ` at ${rate} req/s` : ''} (target: at most 8 requests before the first purchase)`,
  );
  console.log('earlier orders | requests before first purchase | of them order-list | ms to first purchase');
  for (const r of results)
    console.log(
      `${String(r.history).padStart(14)} | ${String(r.requestsBeforeFirstPurchase).padStart(29)} | ${String(r.orderListRequests).padStart(18)} | ${String(r.msToFirstPurchase).padStart(20)}`,
    );
}
