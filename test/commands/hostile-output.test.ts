/**
 * Issue 10: nothing from the service or a file reaches the terminal as control
 * sequences. Every command runs against a hostile proxy in front of the sandbox whose
 * every string carries escape sequences (test/helpers/hostile-proxy.ts); each output
 * path must show them visibly (`^[`, `\u009b`) and never emit them, while --json keeps
 * the exact data.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IO } from '../../src/io/streams.js';
import { run } from '../../src/main.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { type CliResult, runInProcess, tempConfigDir } from '../helpers/cli.js';
import {
  DEFAULT_KEEP,
  HOSTILE,
  type HostileProxy,
  INVISIBLE,
  RAW_CONTROL,
  RAW_INVISIBLE,
  startHostileProxy,
} from '../helpers/hostile-proxy.js';
import { fakeLookupHost } from '../helpers/sandbox.js';
import { KEYS, startTerminal, type Terminal } from '../helpers/terminal.js';

let sandbox: Sandbox;
let proxy: HostileProxy;
/** Ids kept verbatim, for the commands that look a product up by the id the user typed. */
let idProxy: HostileProxy;
let hostileEnv: Record<string, string>;
let idEnv: Record<string, string>;
/** The same service with invisible format characters appended to every string (issue 22). */
let invisibleProxy: HostileProxy;
let invisibleIdProxy: HostileProxy;
let invisibleEnv: Record<string, string>;
let invisibleIdEnv: Record<string, string>;
const KEEP_IDS = new Set([...DEFAULT_KEEP, 'id', 'productId', 'skuId', 'externalRef', 'checkoutId']);
const ids = { order: '', failedOrder: '', checkout: '', deposit: '' };
const dirs: string[] = [];

async function setupJson(args: string[], env: Record<string, string>) {
  const res = await runInProcess([...args, '--json'], { env });
  if (res.code !== 0) throw new Error(`setup: giftcodes ${args.join(' ')} exited ${res.code}: ${res.stderr}`);
  return JSON.parse(res.stdout);
}

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: 7, lookupHost: fakeLookupHost });
  const { apiKey } = sandbox.createAccount({ balanceUsd: 1_000, capabilities: ['b2b', 'retailer'] });
  const clean = { GIFTCODES_BASE_URL: sandbox.url, GIFTCODES_API_KEY: apiKey };
  const order = (productId: string, skuId: string, amount: number, externalRef: string) =>
    fetch(`${sandbox.url}/b2b/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify({ externalRef, items: [{ productId, skuId, amount, quantity: 1 }] }),
    }).then((r) => r.json() as Promise<{ checkoutId: string }>);
  ids.order = (await order('prd_amazon_us', 'sku_amazon_us_25', 25, 'hostile-ok')).checkoutId;
  ids.failedOrder = (await order('prd_legacy_voucher', 'sku_legacy_10', 10, 'hostile-failed')).checkoutId;
  ids.checkout = (
    await setupJson(
      [
        'checkout',
        'create',
        '--email',
        'buyer@example.com',
        '--item',
        'prd_amazon_us:sku_amazon_us_25:25:1',
        '--method',
        'balance',
        '--yes',
      ],
      clean,
    )
  ).checkoutId;
  const deposit = await setupJson(
    ['deposit', 'create', '--amount', '20', '--currency', 'BTC', '--method', 'btc'],
    clean,
  );
  ids.deposit = deposit.depositId ?? deposit.deposit?.depositId;
  await setupJson(['webhook', 'set', '--url', 'https://example.com/hook', '--yes'], clean);
  await runInProcess(['webhook', 'test'], { env: clean });
  sandbox.advanceClock(60_000);
  proxy = await startHostileProxy(sandbox.url);
  idProxy = await startHostileProxy(sandbox.url, KEEP_IDS);
  hostileEnv = { GIFTCODES_BASE_URL: proxy.url, GIFTCODES_API_KEY: apiKey };
  idEnv = { GIFTCODES_BASE_URL: idProxy.url, GIFTCODES_API_KEY: apiKey };
  invisibleProxy = await startHostileProxy(sandbox.url, DEFAULT_KEEP, INVISIBLE);
  invisibleIdProxy = await startHostileProxy(sandbox.url, KEEP_IDS, INVISIBLE);
  invisibleEnv = { GIFTCODES_BASE_URL: invisibleProxy.url, GIFTCODES_API_KEY: apiKey };
  invisibleIdEnv = { GIFTCODES_BASE_URL: invisibleIdProxy.url, GIFTCODES_API_KEY: apiKey };
}, 60_000);

afterAll(async () => {
  for (const t of terminals.splice(0)) t.kill();
  await proxy?.close();
  await idProxy?.close();
  await invisibleProxy?.close();
  await invisibleIdProxy?.close();
  await sandbox?.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The human output paths both hostile payloads are sent through (each describe adds its own). */
const HUMAN_PATHS: Array<[string, () => string[]]> = [
  ['catalog', () => ['catalog']],
  ['account', () => ['account']],
  ['balance', () => ['balance']],
  ['rates', () => ['rates']],
  ['order get (masked codes)', () => ['order', 'get', ids.order]],
  ['order get --reveal', () => ['order', 'get', ids.order, '--reveal']],
  ['order list', () => ['order', 'list']],
  ['checkout get', () => ['checkout', 'get', ids.checkout]],
  ['checkout list', () => ['checkout', 'list']],
  ['deposit get', () => ['deposit', 'get', ids.deposit]],
  ['deposit list', () => ['deposit', 'list']],
  ['webhook get', () => ['webhook', 'get']],
  ['webhook deliveries', () => ['webhook', 'deliveries']],
];

/** The first raw character of `pattern` in `text`, with where it stands, for an assertion message. */
function rawAt(text: string, pattern: RegExp): { raw: RegExpExecArray | null; near: string } {
  const raw = pattern.exec(text);
  const at = raw?.index ?? 0;
  return {
    raw,
    near: `raw U+${raw?.[0].charCodeAt(0).toString(16)} near ${JSON.stringify(text.slice(Math.max(0, at - 40), at + 10))}`,
  };
}

/** No raw control byte on either stream, and the hostile text did arrive (shown escaped). */
function expectSafe(res: CliResult) {
  const both = res.stdout + res.stderr;
  const { raw, near } = rawAt(both, RAW_CONTROL);
  expect(raw, near).toBeNull();
  expect(both).toContain('^[]0;pwned^G');
  expect(both).toContain('\\u009b31m^MOVERWRITTEN');
}

describe('every human output path, fed hostile strings', () => {
  it.each<[string, () => string[]]>([...HUMAN_PATHS, ['--debug lines', () => ['catalog', '--debug']]])(
    '%s',
    async (_name, args) => {
      const res = await runInProcess(args(), { env: hostileEnv });
      expect(res.code, res.stderr).toBe(0);
      expectSafe(res);
    },
  );

  it('catalog show', async () => {
    const res = await runInProcess(['catalog', 'show', 'prd_amazon_us'], { env: idEnv });
    expect(res.code, res.stderr).toBe(0);
    expectSafe(res);
  });

  it('refund create', async () => {
    const res = await runInProcess(['refund', 'create', ids.failedOrder, '--yes'], { env: hostileEnv });
    expect(res.code, res.stderr).toBe(0);
    expectSafe(res);
  });

  it('the error line of a failed call (message and request id)', async () => {
    const res = await runInProcess(['order', 'get', 'chk_missing'], { env: hostileEnv });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/^error NOT_FOUND\S*: .*\(request req_/m);
    expectSafe(res);
    // One line: a newline from outside cannot forge a second one either.
    expect(res.stderr.trimEnd().split('\n')).toHaveLength(1);
  });

  it('masks keep no trailing control bytes', async () => {
    const res = await runInProcess(['order', 'get', ids.order], { env: hostileEnv });
    expect(res.stdout).toMatch(/\*\*\*\*\S{4}/);
    expect(res.stdout).not.toMatch(/\*\*\*\*\S{0,3}\\u00/);
  });

  it('--json keeps the exact data (control characters only JSON-escaped)', async () => {
    const res = await runInProcess(['catalog', '--json'], { env: hostileEnv });
    expect(res.code).toBe(0);
    expect(RAW_CONTROL.test(res.stdout)).toBe(false);
    const data = JSON.parse(res.stdout);
    expect(data.products[0].name.endsWith(HOSTILE)).toBe(true);
  });
});

/** In-process run with a chosen colour setting and stream shape. */
async function runWith(
  args: string[],
  opts: {
    color: boolean;
    tty?: boolean;
    env?: Record<string, string>;
    signal?: AbortSignal;
    /** Called with the stderr so far on every write (to act once a line shows). */
    onStderr?: (text: string) => void;
  },
): Promise<CliResult> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c) => {
    out += c;
  });
  stderr.on('data', (c) => {
    err += c;
    opts.onStderr?.(err);
  });
  const io: IO = {
    stdin: Readable.from(['']),
    stdout,
    stderr,
    stdinIsTTY: false,
    stdoutIsTTY: Boolean(opts.tty),
    stderrIsTTY: Boolean(opts.tty),
    color: opts.color,
    columns: 100,
  };
  const code = await run(args, {
    io,
    env: { ...(opts.env ?? hostileEnv), GIFTCODES_CONFIG_DIR: tempConfigDir() },
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  return { code, stdout: out, stderr: err };
}

const ESC = '\u001b';

describe('with colour on', () => {
  it("only the CLI's own SGR colour sequences reach the terminal", async () => {
    for (const args of [
      ['catalog'],
      ['webhook', 'deliveries'],
      ['account'],
      ['catalog', 'show', 'prd_amazon_us'],
    ]) {
      const res = await runWith(args, { color: true, env: idEnv });
      expect(res.code, res.stderr).toBe(0);
      const both = res.stdout + res.stderr;
      const sequences = both.match(new RegExp(`${ESC}\\[[0-9;]*m`, 'g')) ?? [];
      expect(sequences.length, args.join(' ')).toBeGreaterThan(0);
      for (const seq of new Set(sequences))
        expect(['1', '22', '2', '31', '32', '33', '36', '39']).toContain(seq.slice(2, -1));
      const rest = both.replace(new RegExp(`${ESC}\\[(1|22|2|31|32|33|36|39)m`, 'g'), '');
      expect(RAW_CONTROL.test(rest), args.join(' ')).toBe(false);
      expect(rest).toContain('^[[2J');
    }
  });

  it('an outside string cannot fake a colour: its SGR is shown, not applied', async () => {
    const res = await runWith(['catalog'], { color: true });
    // The hostile C1 CSI `\u009b31m` is red in a terminal that honours C1: shown as text.
    expect(res.stdout).toContain('\\u009b31m');
  });
});

describe('progress and spinner text', () => {
  it('the checkout --wait status lines are sanitized', async () => {
    const res = await runInProcess(['checkout', 'get', ids.checkout, '--wait', '--poll-interval', '50ms'], {
      env: hostileEnv,
    });
    expect(res.code, res.stderr).toBe(0);
    expectSafe(res);
  });
});

describe('order bulk with hostile CSV cells and hostile product names', () => {
  it('the row errors quote hostile cells visibly', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'giftcodes-hostile-'));
    dirs.push(dir);
    const input = join(dir, 'in.csv');
    writeFileSync(
      input,
      `ref,productId,skuId,amount,quantity\r\n"a${HOSTILE}",prd_nope${HOSTILE},sku_x,10,1\r\nb,prd_amazon_us,sku_amazon_us_25,abc${HOSTILE},1\r\n`,
    );
    const res = await runInProcess(['order', 'bulk', input, '--out', join(dir, 'o.csv'), '--yes'], {
      env: hostileEnv,
    });
    expect(res.code).toBe(2);
    expectSafe(res);
  });

  it('the plan, progress and summary of a run against hostile names', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'giftcodes-hostile-'));
    dirs.push(dir);
    const input = join(dir, 'in.csv');
    writeFileSync(
      input,
      'ref,productId,skuId,amount,quantity\r\nr1,prd_amazon_us,sku_amazon_us_range,25,2\r\n',
    );
    const res = await runInProcess(['order', 'bulk', input, '--out', join(dir, 'o.csv'), '--yes'], {
      env: idEnv,
    });
    expect(res.code, res.stderr).toBe(0);
    expectSafe(res);
  });
});

/** One POST on its own connection, closed after: the listener's shutdown waits on none. */
function post(url: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: 'POST', agent: false, headers: { 'content-type': 'application/json' } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('webhook listen', () => {
  it("the listener's event, duplicate and notice lines are sanitized", async () => {
    const controller = new AbortController();
    let url = '';
    let listening: () => void = () => {};
    const ready = new Promise<void>((resolve) => {
      listening = resolve;
    });
    const running = runWith(['webhook', 'listen', '--port', '0'], {
      color: false,
      signal: controller.signal,
      onStderr: (text) => {
        const found = /listening on (\S+)/.exec(text);
        if (found && !url) {
          url = found[1] as string;
          listening();
        }
      },
    });
    await ready;
    const payload = JSON.stringify({
      id: `evt_1${HOSTILE}\nforged line`,
      type: `order.completed${HOSTILE}`,
      data: { checkoutId: `chk_1${HOSTILE}` },
    });
    for (let i = 0; i < 2; i++) {
      expect(await post(url, payload)).toBe(200);
    }
    controller.abort();
    const res = await running;
    expect(res.code).toBe(0);
    expectSafe(res);
    // One line per delivery: the newline inside the id is shown, not obeyed.
    expect(res.stdout.trimEnd().split('\n')).toHaveLength(1);
    expect(res.stdout).toContain('^Jforged line');
    expect(res.stderr).toContain('duplicate delivery evt_1');
  });
});

describe('order bulk on a terminal (the spinner)', () => {
  it('the live progress line and the summary show hostile names escaped', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'giftcodes-hostile-'));
    dirs.push(dir);
    const input = join(dir, 'in.csv');
    writeFileSync(
      input,
      'ref,productId,skuId,amount,quantity\r\nr1,prd_amazon_us,sku_amazon_us_range,30,1\r\n',
    );
    const res = await runInProcess(['order', 'bulk', input, '--out', join(dir, 'o.csv'), '--yes'], {
      env: idEnv,
      tty: true,
    });
    expect(res.code, res.stderr).toBe(0);
    // ora's own cursor and erase sequences (CSI ... letter) are the CLI's; nothing else may appear.
    const own = new RegExp(`${ESC}\\[\\??[0-9;]*[A-Za-z]`, 'g');
    const rest = (res.stdout + res.stderr).replace(own, '');
    const raw = RAW_CONTROL.exec(rest);
    expect(
      raw,
      JSON.stringify(rest.slice(Math.max(0, (raw?.index ?? 0) - 40), (raw?.index ?? 0) + 10)),
    ).toBeNull();
    expect(res.stdout + res.stderr).toContain('^[]0;pwned^G');
  });
});

const terminals: Terminal[] = [];

/** No raw format character on either stream, and the invisible text did arrive (shown as `\u202e`). */
function expectVisible(text: string) {
  const { raw, near } = rawAt(text, RAW_INVISIBLE);
  expect(raw, near).toBeNull();
  expect(text).toContain('\\u202eevil\\u202c');
  expect(text).toContain('\\u2028forged\\u2029\\ufeff\\u061c\\u180e');
}

describe('invisible format characters (bidi overrides, zero-width, separators) are shown, not obeyed', () => {
  it.each<[string, () => string[]]>([
    ...HUMAN_PATHS,
    ['payment-methods', () => ['payment-methods']],
    ['--debug lines', () => ['catalog', '--debug']],
    ['the error line', () => ['order', 'get', 'chk_missing']],
  ])('%s', async (_name, args) => {
    const res = await runInProcess(args(), { env: invisibleEnv });
    expectVisible(res.stdout + res.stderr);
  });

  it('catalog show (an id kept verbatim)', async () => {
    const res = await runInProcess(['catalog', 'show', 'prd_amazon_us'], { env: invisibleIdEnv });
    expect(res.code, res.stderr).toBe(0);
    expectVisible(res.stdout + res.stderr);
  });

  it('masks show four characters one can see', async () => {
    const res = await runInProcess(['order', 'get', ids.order], { env: invisibleEnv });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/\*\*\*\*[0-9A-Za-z-]{4}\s/);
  });

  it('--json and the codes file keep the exact characters', async () => {
    const res = await runInProcess(['catalog', '--json'], { env: invisibleEnv });
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout).products[0].name.endsWith(INVISIBLE)).toBe(true);
    const dir = mkdtempSync(join(tmpdir(), 'giftcodes-invisible-'));
    dirs.push(dir);
    const input = join(dir, 'in.csv');
    writeFileSync(input, 'ref,productId,skuId,amount,quantity\r\nr1,prd_amazon_us,sku_amazon_us_25,25,1\r\n');
    const out = join(dir, 'o.csv');
    const bulk = await runInProcess(['order', 'bulk', input, '--out', out, '--yes'], {
      env: invisibleIdEnv,
    });
    expect(bulk.code, bulk.stderr).toBe(0);
    expectVisible(bulk.stdout + bulk.stderr);
    expect(readFileSync(out, 'utf8')).toContain(INVISIBLE);
  });

  it('the guided deposit screen (a real terminal)', async () => {
    const term = startTerminal(['deposit', '--poll-interval', '150ms'], invisibleEnv);
    terminals.push(term);
    await term.waitFor('Amount to add (USD)');
    term.type(`60${KEYS.enter}`);
    await term.waitFor('Pay with');
    // Down to Bitcoin (the poisoned ids may let other methods into the list first).
    for (let i = 0; i < 6 && !/❯ Bitcoin/.test(term.screen().split('? Pay with').at(-1) ?? ''); i++) {
      const from = term.screen().length;
      term.type(KEYS.down);
      await term.waitFor('❯', { from });
    }
    term.type(KEYS.enter);
    await term.waitFor('Create a deposit invoice');
    term.type(`y${KEYS.enter}`);
    const screen = await term.waitFor('waiting for the payment');
    expectVisible(screen);
    term.kill();
  }, 30_000);
});
