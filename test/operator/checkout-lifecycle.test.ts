/**
 * Checkouts through the CLI to their ends on the sandbox's virtual clock: codes
 * masked on every output (an externalRef replay included), `get --wait` exit codes
 * for completed, partial, failed, expired and a timeout, sealed codes, and a
 * per-checkout callback URL receiving the signed event.
 */
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { runJson as json, runInProcess, startBinary, startInProcess } from '../helpers/cli.js';
import { instantClock } from '../helpers/clock.js';
import { ALWAYS_FAILS, AMAZON_25, MINUTE, operatorClient, withSandbox } from '../helpers/sandbox.js';
import { json as reply, startServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

const op = withSandbox({ seed: 7 });

async function realCodes(userId: string, checkoutId: string): Promise<string[]> {
  const { orders } = await operatorClient(op.sandbox.url).orders(userId);
  const order = orders.find((o) => o.checkoutId === checkoutId);
  return (order?.codes ?? []).map((c: { cardCode: string }) => c.cardCode);
}

describe('codes stay masked unless --reveal', () => {
  it('an externalRef replay of a fulfilled checkout masks codes in --json and in tables', async () => {
    const { env, userId } = op.account({ balanceUsd: 100, capabilities: ['b2b', 'retailer'] });
    const args = [
      'checkout',
      'create',
      '--email',
      'replay@example.com',
      '--item',
      `${AMAZON_25}:2`,
      '--method',
      'balance',
      '--yes',
      '--ref',
      'replay-fulfilled-1',
    ];
    const { checkoutId } = await json(args, env);
    op.sandbox.advanceClock(5_000);
    const codes = await realCodes(userId, checkoutId);
    expect(codes).toHaveLength(2);
    for (const code of codes) expect(code).toMatch(/^\w{4}-\w{6}-\w{4}$/);

    const replay = await runInProcess([...args, '--json'], { env });
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stderr).toContain('no second charge');
    for (const code of codes) expect(replay.stdout).not.toContain(code);
    const body = JSON.parse(replay.stdout);
    expect(body.checkoutId).toBe(checkoutId);
    const shown = body.items[0].fulfillments.map((f: { cardCode: string }) => f.cardCode);
    expect(shown).toEqual(codes.map((c) => `****${c.slice(-4)}`));

    const table = await runInProcess(args, { env });
    expect(table.code, table.stderr).toBe(0);
    for (const code of codes) expect(table.stdout).not.toContain(code);
    expect(table.stdout).toContain(`****${codes[0]?.slice(-4)}`);
    expect(table.stderr).toContain('pass --reveal');

    const revealed = await runInProcess([...args, '--json', '--reveal'], { env });
    for (const code of codes) expect(revealed.stdout).toContain(code);
    // One charge in all: 2 x 25.
    expect((await json(['balance'], env)).balance).toBe(50);
  });
});

describe('checkout get --wait', () => {
  /** Starts the wait, sees it waiting on a pending checkout, then lets `drive` move the sandbox. */
  async function waitWhile(
    env: Record<string, string>,
    checkoutId: string,
    drive: () => Promise<unknown> | unknown,
    extra: string[] = [],
    start: typeof startInProcess = startInProcess,
  ) {
    const run = start(['checkout', 'get', checkoutId, '--wait', '--poll-interval', '100ms', ...extra], env);
    await run.stderrShows(`checkout ${checkoutId}: pending`);
    await drive();
    return run.done;
  }

  async function pending(env: Record<string, string>, items: string[]): Promise<string> {
    const itemFlags = items.flatMap((i) => ['--item', i]);
    return (await json(['checkout', 'create', '--email', 'w@example.com', ...itemFlags], env)).checkoutId;
  }

  const payAndFulfil = (id: string) => async () => {
    await op.operator.post(`/checkouts/${id}/pay`, {});
    op.sandbox.advanceClock(10 * MINUTE);
  };

  it('exits 0 when completed and 3 when partial', async () => {
    const { env } = op.account({ balanceUsd: 0, capabilities: ['b2b', 'retailer'] });
    const done = await pending(env, [AMAZON_25]);
    const completed = await waitWhile(env, done, payAndFulfil(done));
    expect(completed.code, completed.stderr).toBe(0);
    expect(completed.stdout).toMatch(/status[\s│]+completed/);

    const mixed = await pending(env, [AMAZON_25, ALWAYS_FAILS]);
    const partial = await waitWhile(env, mixed, payAndFulfil(mixed), ['--json']);
    expect(partial.code, partial.stderr).toBe(3);
    expect(JSON.parse(partial.stdout).status).toBe('partial');
  });

  it('exits 3 when failed', async () => {
    const { env } = op.account({ balanceUsd: 0, capabilities: ['b2b', 'retailer'] });
    const id = await pending(env, [`${ALWAYS_FAILS}:2`]);
    // End to end: the real binary's exit code for a failed checkout.
    const failed = await waitWhile(env, id, payAndFulfil(id), [], startBinary);
    expect(failed.code, failed.stderr).toBe(3);
    expect(failed.stdout).toMatch(/status[\s│]+failed/);
  });

  it('an unpaid checkout expires on the virtual clock: exit 3, then it can no longer be paid', async () => {
    const { env } = op.account({ balanceUsd: 0, capabilities: ['b2b', 'retailer'] });
    const id = await pending(env, [AMAZON_25]);
    const expired = await waitWhile(env, id, () => op.sandbox.advanceClock(61 * MINUTE), ['--json']);
    expect(expired.code, expired.stderr).toBe(3);
    const body = JSON.parse(expired.stdout);
    expect(body.status).toBe('expired');
    expect(body.expiredAt).toEqual(expect.any(Number));

    const shown = await runInProcess(['checkout', 'get', id], { env });
    expect(shown.stdout).toMatch(/status[\s│]+expired/);
    expect(shown.stdout).toMatch(/expired[\s│]+\d{4}-/);
    const pay = await runInProcess(['checkout', 'pay', id, '--method', 'btc', '--yes'], { env });
    expect(pay.code).toBe(2);
    expect(pay.stderr).toContain('is expired: only a pending checkout can be paid');
    const list = await json(['checkout', 'list', '--status', 'expired'], env);
    expect(list.checkouts.map((c: { checkoutId: string }) => c.checkoutId)).toEqual([id]);
  });

  it('--wait-timeout stops with exit 4; under --json the checkout as last read is still printed', async () => {
    const { env } = op.account({ balanceUsd: 0, capabilities: ['b2b', 'retailer'] });
    const id = await pending(env, [AMAZON_25]);
    const res = await runInProcess(
      ['checkout', 'get', id, '--wait', '--poll-interval', '100ms', '--wait-timeout', '300ms', '--json'],
      { env, deps: { clock: instantClock() } },
    );
    expect(res.code).toBe(4);
    expect(JSON.parse(res.stdout)).toMatchObject({ checkoutId: id, status: 'pending' });
    expect(res.stderr).toContain(`resume with: giftcodes checkout get ${id} --wait`);
  });
});

describe('checkout create --seal', () => {
  it('delivers sealed codes: a giftCardId instead of a cardCode, shown as such', async () => {
    const { env } = op.account({ balanceUsd: 100, capabilities: ['b2b', 'retailer'] });
    const created = await json(
      [
        'checkout',
        'create',
        '--email',
        'sealed@example.com',
        '--item',
        `${AMAZON_25}:2`,
        '--seal',
        '--method',
        'balance',
        '--yes',
      ],
      env,
    );
    expect(created.sealCards).toBe(true);
    op.sandbox.advanceClock(5_000);
    const revealed = await json(['checkout', 'get', created.checkoutId, '--reveal'], env);
    expect(revealed.status).toBe('completed');
    const fulfillments = revealed.items[0].fulfillments;
    expect(fulfillments).toHaveLength(2);
    for (const f of fulfillments) {
      expect(f.giftCardId).toEqual(expect.any(String));
      expect(f.cardCode ?? null).toBeNull();
    }
    // A terminal wide enough for the "sealed <id>" cell on one line.
    const table = await runInProcess(['checkout', 'get', created.checkoutId], { env, columns: 200 });
    expect(table.stdout).toMatch(/sealed[\s│]+yes/);
    expect(table.stdout).toContain(`sealed ${fulfillments[0].giftCardId}`);
  });
});

describe('checkout create --callback-url', () => {
  it('sends the per-checkout override; the signed order event goes there', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 11, allowHttpWebhooks: true });
    const endpoint = await startServer({ 'POST /hook': (_req, res) => reply(res, 200, {}) });
    const callback = await startServer({ 'POST /cb': (_req, res) => reply(res, 200, {}) });
    try {
      const { apiKey } = sandbox.createAccount({ balanceUsd: 100, capabilities: ['b2b', 'retailer'] });
      const env = { GIFTCODES_BASE_URL: sandbox.url, GIFTCODES_API_KEY: apiKey, NO_COLOR: '1' };
      // The override needs a business endpoint to exist (spec: ignored otherwise).
      const set = await runInProcess(['webhook', 'set', '--url', `${endpoint.url}/hook`, '--all-events'], {
        env,
      });
      expect(set.code, set.stderr).toBe(0);

      const bad = await runInProcess(
        [
          'checkout',
          'create',
          '--email',
          'cb@example.com',
          '--item',
          AMAZON_25,
          '--callback-url',
          'http://example.com/cb',
        ],
        { env },
      );
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('callbackUrl');

      const created = await json(
        [
          'checkout',
          'create',
          '--email',
          'cb@example.com',
          '--item',
          AMAZON_25,
          '--callback-url',
          `${callback.url}/cb`,
          '--method',
          'balance',
          '--yes',
        ],
        env,
      );
      expect(created.callbackUrl).toBe(`${callback.url}/cb`);
      sandbox.advanceClock(5_000);
      const completed = await waitFor(
        () => callback.hits('/cb').find((h) => h.headers['x-service-event'] === 'order.completed'),
        'the order.completed event at the callback URL',
      );
      expect(completed.headers['x-service-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      expect(JSON.parse(completed.body).data.checkoutId).toBe(created.checkoutId);
      expect(endpoint.hits('/hook').some((h) => h.headers['x-service-event'] === 'order.completed')).toBe(
        false,
      );
    } finally {
      await callback.close();
      await endpoint.close();
      await sandbox.close();
    }
  });
});
