// Load benchmark of the sandbox hot path: GET /b2b/orders/{id} on loopback.
//
//   npm run build && node bench/sandbox-load.mjs [--duration 5000] [--connections 32]
//
// The sandbox runs in a worker thread (its own event loop, so server and load generator
// can use both cores); the main thread drives a bounded keep-alive loop with undici's Pool
// and prints requests per second. Loopback only, bounded in time. Request-rate limiting is
// switched off for the run: the point is the server's own throughput.
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] ? Number(process.argv[i + 1]) : fallback;
};

if (!isMainThread) {
  const { startSandbox } = await import('../dist/sandbox/index.js');
  const sandbox = await startSandbox({ port: 0, seed: 1, faults: { rateLimit: 'off' }, ...workerData });
  parentPort.postMessage({ url: sandbox.url, apiKey: sandbox.apiKey });
  parentPort.on('message', async (m) => {
    if (m === 'close') {
      await sandbox.close();
      process.exit(0);
    }
  });
} else {
  const { Pool } = await import('undici');
  const durationMs = Math.min(arg('duration', 5_000), 60_000);
  const warmupMs = Math.min(arg('warmup', 1_000), 10_000);
  const connections = Math.min(arg('connections', 32), 256);

  const worker = new Worker(new URL(import.meta.url), { workerData: {} });
  const { url, apiKey } = await new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  if (!/^http:\/\/(127\.0\.0\.1|\[::1\]|localhost):/.test(url))
    throw new Error(`refusing to load a non-loopback URL: ${url}`);

  const created = await fetch(`${url}/b2b/orders`, {
    method: 'POST',
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({
      externalRef: 'bench-1',
      items: [{ productId: 'prd_amazon_us', skuId: 'sku_amazon_us_range', amount: 10, quantity: 5 }],
    }),
  });
  if (created.status !== 201)
    throw new Error(`order creation failed: ${created.status} ${await created.text()}`);
  const { checkoutId } = await created.json();
  await new Promise((r) => setTimeout(r, 200)); // let the five units fulfil: the body then carries codes

  const pool = new Pool(url, { connections, pipelining: 1 });
  const path = `/b2b/orders/${checkoutId}`;
  const headers = { 'x-api-key': apiKey };

  async function run(ms) {
    const end = Date.now() + ms;
    let ok = 0;
    let failed = 0;
    const loop = async () => {
      while (Date.now() < end) {
        try {
          const res = await pool.request({ path, method: 'GET', headers });
          await res.body.arrayBuffer();
          if (res.statusCode === 200) ok++;
          else failed++;
        } catch {
          failed++;
        }
      }
    };
    const started = Date.now();
    await Promise.all(Array.from({ length: connections }, loop));
    return { ok, failed, seconds: (Date.now() - started) / 1000 };
  }

  await run(warmupMs);
  const { ok, failed, seconds } = await run(durationMs);
  await pool.close();
  worker.postMessage('close');
  await new Promise((r) => worker.once('exit', r));

  const rps = Math.round(ok / seconds);
  console.log(
    `GET /b2b/orders/{id}: ${rps} req/s (${ok} ok, ${failed} failed, ${seconds.toFixed(1)} s, ${connections} connections)`,
  );
  console.log(
    JSON.stringify({
      benchmark: 'sandbox-get-order',
      requestsPerSecond: rps,
      ok,
      failed,
      seconds,
      connections,
    }),
  );
  process.exitCode = failed > 0 ? 1 : 0;
}
