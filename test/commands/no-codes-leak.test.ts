/**
 * Issue 22, point 1: no code reaches stdout or stderr without --reveal, on any command.
 * Every command of the registry (src/commands/registry.ts `COMMANDS`) runs twice against
 * a sandbox account whose b2b orders (a bulk batch, single orders) and retailer checkouts
 * (plain and sealed) are delivered: once for people with --debug, once with --json. The
 * oracle is the sandbox's operator API (every fulfillment's cardCode, cardPin, cardUrl as
 * issued), read after the walk so the codes the walk itself bought count too.
 *
 * A command added to the registry without a row here fails the first test: the table is
 * the list of what is proven.
 */
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/commands/registry.js';
import { type CliResult, runInProcess } from '../helpers/cli.js';
import { type Json, withSandbox } from '../helpers/sandbox.js';

const sb = withSandbox({ seed: 22 });

interface State {
  dir: string;
  env: Record<string, string>;
  userId: string;
  apiKey: string;
  csv: string;
  codesFile: string;
  order: string;
  failedOrder: string;
  checkout: string;
  sealed: string;
  unpaid: { human: string; json: string };
  deposit: string;
  payload: string;
  signature: string;
}
const s = {} as State;
const SECRET = 'whsec_walk_secret_0123456789abcdef';

type Mode = 'human' | 'json';
interface Row {
  argv: (mode: Mode) => string[];
  /** Exit codes this row may end with (default 0): a row that fails on a usage error proves nothing. */
  codes?: number[];
  input?: string;
  /** Serves until Ctrl-C: started with the signal already aborted, so it starts, prints, stops. */
  abort?: boolean;
}

/** One row per registry command. */
const ROWS: Record<string, Row> = {
  // The demo's GameStop lines fail a unit in three on purpose: exit 3. The walk's clock
  // moves the walk's sandbox, not the demo's own in-process one, whose fulfilment runs on
  // real time: the demo may reach --wait-timeout on the fast clock first (exit 4). Its
  // output is walked either way.
  demo: { argv: () => ['demo', '--out', join(s.dir, 'demo-codes.csv')], codes: [3, 4] },
  order: { argv: () => ['order'], codes: [0, 2] },
  // The batch is done; its GameStop orders are partial (a unit in three fails): exit 3.
  'order bulk': { argv: () => ['order', 'bulk', s.csv, '--out', s.codesFile, '--yes'], codes: [3] },
  'order export': {
    argv: (m) => ['order', 'export', s.order, s.failedOrder, '--out', join(s.dir, `export-${m}.csv`)],
  },
  'order reconcile': { argv: () => ['order', 'reconcile', s.codesFile], codes: [0, 3] },
  // Buys the batch's failed units again: its codes go to the codes file, never the terminal.
  'order rebuy': { argv: () => ['order', 'rebuy', s.codesFile, '--yes'], codes: [0, 3] },
  'order create': {
    argv: () => [
      'order',
      'create',
      ...['--product', 'prd_netflix_global', '--sku', 'sku_netflix_15', '--amount', '15'],
      ...['--quantity', '2', '--wait', '--yes'],
    ],
  },
  'order get': { argv: () => ['order', 'get', s.order] },
  // The raw answer of a delivered order: every code in it comes from the service as is.
  api: { argv: () => ['api', 'GET', `/b2b/orders/${s.order}`] },
  'order list': { argv: () => ['order', 'list', '--all'] },
  catalog: { argv: () => ['catalog'] },
  'catalog show': { argv: () => ['catalog', 'show', 'prd_netflix_global'] },
  rates: { argv: () => ['rates'] },
  'rates convert': { argv: () => ['rates', 'convert', '10', 'USD', 'EUR'] },
  account: { argv: () => ['account'] },
  'account set-markup': { argv: () => ['account', 'set-markup', '5', '--field', 'markupPercent', '--yes'] },
  balance: { argv: () => ['balance'] },
  // The guided flow needs a terminal: without one it names the flags (exit 2).
  deposit: { argv: () => ['deposit'], codes: [2] },
  'deposit create': {
    argv: () => ['deposit', 'create', '--amount', '20', '--currency', 'BTC', '--method', 'btc'],
  },
  'deposit get': { argv: () => ['deposit', 'get', s.deposit] },
  'deposit list': { argv: () => ['deposit', 'list'] },
  checkout: { argv: () => ['checkout'], codes: [0, 2] },
  'checkout create': {
    argv: () => [
      'checkout',
      'create',
      '--email',
      'buyer@example.com',
      '--item',
      'prd_spotify_br:sku_spotify_br_range:50:1',
      '--method',
      'balance',
      '--yes',
    ],
  },
  'checkout get': { argv: () => ['checkout', 'get', s.checkout, '--wait'] },
  'checkout list': { argv: () => ['checkout', 'list', '--all'] },
  'checkout pay': { argv: (m) => ['checkout', 'pay', s.unpaid[m], '--method', 'balance', '--yes'] },
  'payment-methods': { argv: () => ['payment-methods'] },
  refund: { argv: () => ['refund'], codes: [0, 2] },
  'refund create': { argv: () => ['refund', 'create', s.failedOrder, '--surface', 'b2b', '--yes'] },
  'refund batch': { argv: () => ['refund', 'batch', s.codesFile, '--yes'] },
  business: { argv: () => ['business'], codes: [0, 2] },
  'business enable': { argv: () => ['business', 'enable', '--retailer', '--yes'] },
  webhook: { argv: () => ['webhook'], codes: [0, 2] },
  'webhook set': { argv: () => ['webhook', 'set', '--url', 'https://example.com/hook', '--yes'] },
  'webhook get': { argv: () => ['webhook', 'get'] },
  // example.com does not answer in the tests: the failed test delivery is walked.
  'webhook test': { argv: () => ['webhook', 'test'], codes: [0, 1] },
  'webhook deliveries': { argv: () => ['webhook', 'deliveries'] },
  'webhook delete': { argv: () => ['webhook', 'delete', '--yes'] },
  // After the delete there is no endpoint to rotate: the error path is walked too.
  'webhook rotate': { argv: () => ['webhook', 'rotate', '--yes'], codes: [0, 1] },
  'webhook verify': {
    argv: () => [
      'webhook',
      'verify',
      '--secret',
      SECRET,
      '--header',
      s.signature,
      '--body-file',
      s.payload,
      '--tolerance',
      '1000h',
    ],
  },
  'webhook listen': { argv: () => ['webhook', 'listen', '--port', '0', '--secret', SECRET], abort: true },
  login: { argv: () => ['login', '--key-stdin', '--yes'], input: 'KEY' },
  logout: { argv: () => ['logout', '--yes'] },
  config: { argv: () => ['config'], codes: [0, 2] },
  'config set': { argv: () => ['config', 'set', 'api-key', s.apiKey] },
  'config get': { argv: () => ['config', 'get', 'api-key'] },
  'config unset': { argv: () => ['config', 'unset', 'timeout'] },
  'config list': { argv: () => ['config', 'list'] },
  'config use': { argv: () => ['config', 'use', 'default'] },
  // The sandbox's virtual clock runs ahead of this machine's: the clock check fails (exit 1).
  doctor: { argv: () => ['doctor'], codes: [0, 1] },
  completion: { argv: () => ['completion', 'bash'] },
  sandbox: { argv: () => ['sandbox', '--port', '0'], abort: true },
  // For a delivered checkout (its data would hold codes if any were sent); after `webhook
  // delete` there is no endpoint, so the refusal is walked too.
  'sandbox trigger': {
    argv: () => ['sandbox', 'trigger', 'order.completed', '--checkout', s.checkout],
    codes: [0, 1],
  },
};

async function cli(args: string[], opts: { input?: string; abort?: boolean } = {}): Promise<CliResult> {
  return runInProcess(args, {
    env: s.env,
    input: opts.input,
    deps: { clock: sb.clock(), ...(opts.abort ? { signal: AbortSignal.abort() } : {}) },
  });
}

async function json(args: string[]): Promise<Json> {
  const res = await cli([...args, '--json']);
  if (res.code !== 0) throw new Error(`setup: giftcodes ${args.join(' ')} exited ${res.code}: ${res.stderr}`);
  return JSON.parse(res.stdout);
}

const CHECKOUT = ['checkout', 'create', '--email', 'buyer@example.com'];

beforeAll(async () => {
  s.dir = mkdtempSync(join(tmpdir(), 'giftcodes-walk-'));
  const { userId, apiKey, env } = sb.account({
    balanceUsd: 5_000,
    capabilities: ['b2b', 'retailer'],
  });
  Object.assign(s, { userId, apiKey });
  s.env = { ...env, GIFTCODES_CONFIG_DIR: join(s.dir, 'config') };
  // A bulk batch: plain codes, codes with PINs, code URLs, and failed units (gamestop fails every 3rd).
  s.csv = join(s.dir, 'in.csv');
  writeFileSync(
    s.csv,
    'ref,productId,skuId,amount,quantity\n' +
      'r1,prd_amazon_us,sku_amazon_us_25,25,2\n' +
      'r2,prd_netflix_global,sku_netflix_15,15,2\n' +
      'r3,prd_spotify_br,sku_spotify_br_range,40,2\n' +
      'r4,prd_gamestop_us,sku_gamestop_range,10,3\n',
  );
  s.codesFile = join(s.dir, 'codes.csv');
  const bulk = await cli(['order', 'bulk', s.csv, '--out', s.codesFile, '--yes']);
  expect([0, 3], bulk.stderr).toContain(bulk.code);
  const orders = await json(['order', 'list', '--all']);
  const entries: Json[] = orders.data ?? orders.orders;
  s.failedOrder = entries.find((o: Json) => o.status === 'partial' || o.status === 'failed')?.checkoutId;
  expect(s.failedOrder).toBeDefined();
  s.order = (
    await json([
      'order',
      'create',
      ...['--product', 'prd_netflix_global', '--sku', 'sku_netflix_30', '--amount', '30', '--wait', '--yes'],
    ])
  ).checkoutId;
  s.checkout = (
    await json([
      ...CHECKOUT,
      '--item',
      'prd_netflix_global:sku_netflix_15:15:1',
      '--method',
      'balance',
      '--yes',
    ])
  ).checkoutId;
  s.sealed = (
    await json([
      ...CHECKOUT,
      '--item',
      'prd_amazon_us:sku_amazon_us_25:25:1',
      '--seal',
      '--method',
      'balance',
      '--yes',
    ])
  ).checkoutId;
  s.unpaid = {
    human: (await json([...CHECKOUT, '--item', 'prd_amazon_us:sku_amazon_us_25:25:1'])).checkoutId,
    json: (await json([...CHECKOUT, '--item', 'prd_spotify_br:sku_spotify_br_range:30:1'])).checkoutId,
  };
  await sb.operator.advanceClock(10 * 60_000);
  s.deposit = (
    await json(['deposit', 'create', '--amount', '20', '--currency', 'BTC', '--method', 'btc'])
  ).depositId;
  // A signed delivery whose payload carries a real code.
  const delivered = await json(['order', 'get', s.order, '--reveal']);
  const payload = JSON.stringify({ id: 'evt_walk', type: 'order.completed', data: delivered });
  s.payload = join(s.dir, 'payload.json');
  writeFileSync(s.payload, payload);
  const t = sb.sandbox.now();
  s.signature = `t=${t},v1=${createHmac('sha256', SECRET).update(`${t}.${payload}`).digest('hex')}`;
}, 120_000);

afterAll(() => {
  if (s.dir) rmSync(s.dir, { recursive: true, force: true });
});

/** Every code, PIN and code URL the sandbox issued to the account (sealed ones included). */
async function issuedCodes(): Promise<string[]> {
  const { orders } = await sb.operator.orders(s.userId);
  const found = new Set<string>();
  const walk = (node: Json): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object')
      for (const [key, value] of Object.entries(node)) {
        if (['cardCode', 'cardPin', 'cardUrl'].includes(key) && typeof value === 'string' && value)
          found.add(value);
        else walk(value);
      }
  };
  walk(orders);
  return [...found];
}

/** Where `code` shows in `text`: anywhere for a long value; as a whole word for a short PIN. */
function findCode(text: string, code: string): number {
  if (code.length >= 8) return text.indexOf(code);
  const escaped = code.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return text.search(new RegExp(`(?<![0-9A-Za-z])${escaped}(?![0-9A-Za-z])`));
}

describe('every command, without --reveal, prints no code', () => {
  it('the table has a row for every command of the registry, and no other', () => {
    expect(Object.keys(ROWS).sort()).toEqual([...COMMANDS].sort());
  });

  it('walks every command for people (--debug) and for scripts (--json)', async () => {
    const outputs: Array<{ what: string; text: string }> = [];
    for (const command of COMMANDS) {
      const row = ROWS[command] as Row;
      for (const mode of ['human', 'json'] as const) {
        const args = [...row.argv(mode), mode === 'json' ? '--json' : '--debug'];
        const res = await cli(args, {
          input: row.input === 'KEY' ? s.apiKey : row.input,
          abort: row.abort,
        });
        expect.soft(row.codes ?? [0], `giftcodes ${args.join(' ')}\n${res.stderr}`).toContain(res.code);
        outputs.push({ what: `giftcodes ${args.join(' ')}`, text: `${res.stdout}\n${res.stderr}` });
      }
    }
    const codes = await issuedCodes();
    // The account holds plain codes, PINs, code URLs and sealed codes.
    expect(codes.length).toBeGreaterThan(20);
    expect(codes.some((c) => /^\d{4}$/.test(c))).toBe(true);
    expect(codes.some((c) => c.startsWith('https://'))).toBe(true);
    for (const { what, text } of outputs)
      for (const code of codes) {
        const at = findCode(text, code);
        expect(
          at,
          `${what} printed ${code}: ${JSON.stringify(text.slice(Math.max(0, at - 60), at + 40))}`,
        ).toBe(-1);
      }
  }, 300_000);

  it('the oracle matches what --reveal shows (the walk looks for the right strings)', async () => {
    const codes = await issuedCodes();
    const revealed = await cli(['order', 'get', s.order, '--reveal', '--json']);
    const human = await cli(['checkout', 'get', s.checkout, '--reveal']);
    expect(codes.filter((c) => revealed.stdout.includes(c)).length).toBeGreaterThan(0);
    expect(codes.filter((c) => human.stdout.includes(c)).length).toBeGreaterThan(0);
  });
});
