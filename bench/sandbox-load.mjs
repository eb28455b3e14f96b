// Load benchmark of the sandbox (`npm run bench:sandbox`), paired in one run:
//
//   bare      a node:http server doing the least a GET by id can: the record from a Map by
//             the id in the path, JSON.stringify, the same headers and bytes
//   GET       GET /b2b/orders/{id}                 the CLI's polls: an order with its codes, the
//                                                  --orders finished orders read in turn
//   ref       GET /b2b/orders?externalRef=<ref>    order bulk's look-ups
//   list      GET /b2b/orders?limit=10             a list page (sorted and sliced per request)
//
// each of the last three on a fresh account and on one with --history earlier orders.
// Targets: the GET and the ref look-up cost the same with and without the history (the
// id and externalRef maps), the GET near the bare server. The list page filters and sorts
// the account's orders on every request: its cost grows with the history, by design.
//
//   npm run build && node bench/sandbox-load.mjs [--duration 3000] [--connections 32] [--rounds 3]
//     [--history 20000]   earlier orders on the second account (0: the fresh account only)
//     [--orders 5]        finished orders (5 units each) the GET phases read in turn; order bulk
//                         reads each finished order once, so `--orders 5000` is its pattern
//
// Each server runs in its own worker thread (its own event loop); the main thread drives a
// bounded keep-alive loop with undici's Pool. The phases alternate for --rounds rounds, so
// a busy machine skews them alike; the figures are medians over the rounds. Besides
// requests per second, each phase reports the server thread's busy time per request
// (event-loop utilization x time / requests) and, on Linux, its CPU time per request (the
// thread's own utime + stime, /proc/thread-self/stat): the server's own cost, whatever the
// load generator gets of the two cores. Busy time also counts the time a busy thread waits
// for a core, so on a loaded machine it swells with the load; CPU time does not, and the
// ratios are taken from it when it is there. Loopback only, bounded in time; request-rate
// limiting is off (the point is the server's own throughput).
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

/** This thread's CPU time in ms (Linux: utime + stime in clock ticks of 10 ms); undefined elsewhere. */
function threadCpuMs() {
  try {
    const stat = readFileSync('/proc/thread-self/stat', 'utf8');
    // Fields after the command name in parentheses (which may hold spaces): utime is the 14th field.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] ? Number(process.argv[i + 1]) : fallback;
};

if (!isMainThread) {
  let close;
  let url;
  let extra = {};
  if (workerData.kind === 'sandbox') {
    const { startSandbox } = await import('../dist/sandbox/index.js');
    const sandbox = await startSandbox({
      port: 0,
      seed: 1,
      tier: 'enterprise',
      balanceUsd: 10_000_000,
      faults: { rateLimit: 'off' },
    });
    url = sandbox.url;
    extra = { apiKey: sandbox.apiKey, userId: sandbox.userId };
    close = () => sandbox.close();
  } else {
    // The bare server: the least a GET by id can do. The id from the path, the record from
    // a Map, JSON out with the sandbox's headers; no routing, authentication or view.
    const { bodies, headers } = workerData;
    const records = new Map(bodies.map(([id, body]) => [id, JSON.parse(body)]));
    const server = createServer((req, res) => {
      req.resume();
      const json = JSON.stringify(records.get(req.url.slice(req.url.lastIndexOf('/') + 1)));
      res.writeHead(200, { ...headers, 'content-length': Buffer.byteLength(json) });
      res.end(json);
    });
    server.keepAliveTimeout = 5_000;
    await new Promise((done) => server.listen(0, '127.0.0.1', done));
    url = `http://127.0.0.1:${server.address().port}`;
    close = () => new Promise((done) => server.close(done));
  }
  let mark;
  parentPort.postMessage({ url, ...extra });
  parentPort.on('message', async (m) => {
    if (m === 'mark') {
      mark = { elu: performance.eventLoopUtilization(), at: performance.now(), cpu: threadCpuMs() };
      parentPort.postMessage('marked');
    } else if (m === 'busy') {
      const elu = performance.eventLoopUtilization(mark.elu);
      const cpu = threadCpuMs();
      parentPort.postMessage({ busyMs: elu.active, cpuMs: cpu === undefined ? undefined : cpu - mark.cpu });
    } else if (m === 'close') {
      await close();
      parentPort.close();
    }
  });
} else {
  const { Pool, request } = await import('undici');
  const durationMs = Math.min(arg('duration', 3_000), 60_000);
  const warmupMs = Math.min(arg('warmup', 1_000), 10_000);
  const connections = Math.min(arg('connections', 32), 256);
  const rounds = Math.min(arg('rounds', 3), 20);
  const history = Math.min(arg('history', 20_000), 1_000_000);
  const orders = Math.min(Math.max(arg('orders', 5), 3), 100_000);

  const start = (data) => {
    const worker = new Worker(new URL(import.meta.url), { workerData: data });
    const ready = new Promise((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    return { worker, ready };
  };
  const ask = (worker, message) =>
    new Promise((resolve) => {
      worker.once('message', resolve);
      worker.postMessage(message);
    });

  /** A sandbox in its worker, `earlier` orders on its account, then `orders` orders of 5 fulfilled units. */
  async function sandboxWith(earlier) {
    const { worker, ready } = start({ kind: 'sandbox' });
    const { url, apiKey, userId } = await ready;
    if (!/^http:\/\/(127\.0\.0\.1|\[::1\]|localhost):/.test(url))
      throw new Error(`refusing to load a non-loopback URL: ${url}`);
    if (earlier > 0) {
      const added = await request(`${url}/_sandbox/accounts/${userId}/history`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ orders: earlier }),
      });
      if (added.statusCode !== 201)
        throw new Error(`history failed: ${added.statusCode} ${await added.body.text()}`);
      await added.body.dump();
    }
    const getPaths = [];
    for (let i = 1; i <= orders; i++) {
      const created = await request(`${url}/b2b/orders`, {
        method: 'POST',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({
          externalRef: `bench-${i}`,
          items: [{ productId: 'prd_amazon_us', skuId: 'sku_amazon_us_range', amount: 10, quantity: 5 }],
        }),
      });
      if (created.statusCode !== 201)
        throw new Error(`order creation failed: ${created.statusCode} ${await created.body.text()}`);
      const { checkoutId } = await created.body.json();
      getPaths.push(`/b2b/orders/${checkoutId}`);
    }
    await new Promise((r) => setTimeout(r, 200)); // let the units fulfil: the body then carries codes
    return { worker, url, apiKey, getPaths };
  }

  const accounts = [{ earlier: 0, ...(await sandboxWith(0)) }];
  if (history > 0) accounts.push({ earlier: history, ...(await sandboxWith(history)) });
  const [fresh] = accounts;
  // The bare server holds the same bytes as the fresh sandbox's answers, parsed.
  const bodies = [];
  let sample;
  for (const path of fresh.getPaths) {
    sample = await request(`${fresh.url}${path}`, { headers: { 'x-api-key': fresh.apiKey } });
    bodies.push([path.slice(path.lastIndexOf('/') + 1), await sample.body.text()]);
  }
  const bare = start({
    kind: 'bare',
    bodies,
    headers: {
      'content-type': sample.headers['content-type'],
      'x-request-id': sample.headers['x-request-id'],
    },
  });
  const { url: bareUrl } = await bare.ready;

  async function load({ worker, base, paths, apiKey }, ms) {
    const pool = new Pool(base, { connections, pipelining: 1 });
    const headers = { 'x-api-key': apiKey };
    await ask(worker, 'mark');
    const end = Date.now() + ms;
    let ok = 0;
    let failed = 0;
    let next = 0;
    const loop = async () => {
      while (Date.now() < end) {
        try {
          const res = await pool.request({ path: paths[next++ % paths.length], method: 'GET', headers });
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
    const seconds = (Date.now() - started) / 1000;
    const { busyMs, cpuMs } = await ask(worker, 'busy');
    await pool.close();
    const perRequest = (ms) => (ms === undefined ? undefined : (ms * 1000) / Math.max(ok, 1));
    return {
      ok,
      failed,
      rps: ok / seconds,
      busyUsPerRequest: perRequest(busyMs),
      cpuUsPerRequest: perRequest(cpuMs),
    };
  }

  const ROUTES = [
    { route: 'GET', paths: (a) => a.getPaths },
    { route: 'ref', paths: () => ['/b2b/orders?externalRef=bench-3'] },
    { route: 'list', paths: () => ['/b2b/orders?limit=10'] },
  ];
  const PHASES = [
    {
      name: 'bare node:http GET by id',
      route: 'bare',
      earlier: 0,
      worker: bare.worker,
      base: bareUrl,
      paths: fresh.getPaths,
    },
    ...accounts.flatMap((a) =>
      ROUTES.map((r) => ({
        name: `sandbox ${r.route === 'GET' ? 'GET /b2b/orders/{id}' : r.paths(a)[0]} (${a.earlier} earlier)`,
        route: r.route,
        earlier: a.earlier,
        worker: a.worker,
        base: a.url,
        paths: r.paths(a),
        apiKey: a.apiKey,
      })),
    ),
  ];
  for (const p of PHASES) await load(p, warmupMs);
  const results = PHASES.map(() => []);
  for (let r = 0; r < rounds; r++) {
    for (const [i, p] of PHASES.entries()) results[i].push(await load(p, durationMs));
  }
  await Promise.all(
    [bare.worker, ...accounts.map((a) => a.worker)].map((w) => {
      const exited = new Promise((r) => w.once('exit', r));
      w.postMessage('close');
      return exited;
    }),
  );

  const median = (values) => {
    const sorted = [...values].sort((a, b) => a - b);
    const mid = Math.floor(sorted.length / 2);
    return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  };
  const rows = PHASES.map((p, i) => ({
    name: p.name,
    route: p.route,
    earlier: p.earlier,
    requestsPerSecond: Math.round(median(results[i].map((x) => x.rps))),
    busyUsPerRequest: Number(median(results[i].map((x) => x.busyUsPerRequest)).toFixed(1)),
    cpuUsPerRequest: results[i].some((x) => x.cpuUsPerRequest === undefined)
      ? undefined
      : Number(median(results[i].map((x) => x.cpuUsPerRequest)).toFixed(1)),
    failed: results[i].reduce((n, x) => n + x.failed, 0),
  }));
  const cost = (r) => r.cpuUsPerRequest ?? r.busyUsPerRequest;
  const row = (route, earlier) => rows.find((r) => r.route === route && r.earlier === earlier);
  const ratio = (a, b) => Number((a / b).toFixed(2));
  const [base, get] = [row('bare', 0), row('GET', 0)];
  const summary = {
    benchmark: 'sandbox-load',
    connections,
    rounds,
    secondsPerPhase: durationMs / 1000,
    history,
    orders,
    results: rows,
    loadAverage: (await import('node:os')).loadavg().map((x) => Number(x.toFixed(2))),
    costMeasure: get.cpuUsPerRequest === undefined ? 'busy time' : 'CPU time',
    getVsBare: ratio(get.requestsPerSecond, base.requestsPerSecond),
    getCostVsBare: ratio(cost(get), cost(base)),
    /** Each route's server time per request with the history against without (1: it does not grow). */
    withHistory:
      history > 0
        ? Object.fromEntries(
            ROUTES.map(({ route }) => [route, ratio(cost(row(route, history)), cost(row(route, 0)))]),
          )
        : undefined,
  };
  for (const r of rows) {
    console.log(
      `${r.name.padEnd(58)} ${String(r.requestsPerSecond).padStart(7)} req/s  ${r.busyUsPerRequest.toFixed(1).padStart(8)} µs busy${r.cpuUsPerRequest === undefined ? '' : `  ${r.cpuUsPerRequest.toFixed(1).padStart(8)} µs CPU`} per request${r.failed ? `  ${r.failed} failed` : ''}`,
    );
  }
  const growth = summary.withHistory
    ? `; with ${history} earlier orders: ${ROUTES.map(({ route }) => `${route} ${summary.withHistory[route]}x`).join(', ')} the ${summary.costMeasure}`
    : '';
  console.log(
    `sandbox GET vs bare: ${summary.getVsBare}x the requests per second, ${summary.getCostVsBare}x the ${summary.costMeasure}${growth}; load average ${summary.loadAverage.join(' ')}`,
  );
  console.log(JSON.stringify(summary));
  process.exitCode = rows.some((r) => r.failed > 0) ? 1 : 0;
}
