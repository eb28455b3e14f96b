/**
 * Scripted deposits against the sandbox over real HTTP, the CLI run in-process (no TTY);
 * the real binary where the process is the point (a wait's exit code, colour in a pipe).
 */
import { describe, expect, it } from 'vitest';
import { runBinary, runInProcess, startInProcess } from '../helpers/cli.js';
import { instantClock } from '../helpers/clock.js';
import { MINUTE, type SandboxHandle, withSandbox } from '../helpers/sandbox.js';
import { waitFor } from '../helpers/wait.js';

/** `deposit create` of 20 USD paid with `method`, waiting with a fast poll. */
function waitingDeposit(method: string, ...extra: string[]): string[] {
  return [
    'deposit',
    'create',
    '--amount',
    '20',
    '--currency',
    method.toUpperCase(),
    '--method',
    method,
    '--wait',
    '--poll-interval',
    '100ms',
    ...extra,
  ];
}

const op = withSandbox({ seed: 7 });

async function balanceOf(env: Record<string, string>): Promise<number> {
  const res = await runInProcess(['balance', '--json'], { env });
  return JSON.parse(res.stdout).balance;
}

describe('deposit create / get', () => {
  it('creates an invoice, waits through confirmation and reports the new balance', async () => {
    const { env } = op.account({ balanceUsd: 100 });
    const created = await runInProcess(
      ['deposit', 'create', '--amount', '50', '--currency', 'BTC', '--method', 'btc', '--json'],
      { env },
    );
    expect(created.code, created.stderr).toBe(0);
    const body = JSON.parse(created.stdout);
    expect(body.payment.paymentAddress).toMatch(/^bc1q/);
    expect(Number(body.payment.amount)).toBeGreaterThan(0);
    const id: string = body.depositId;

    const pending = await runInProcess(['deposit', 'get', id], { env });
    expect(pending.stdout).toContain('pending');
    expect(pending.stdout).toContain('Send exactly');

    await op.operator.post(`/deposits/${id}/confirm`, { delayMs: 0 });
    const waited = await runInProcess(['deposit', 'get', id, '--wait', '--poll-interval', '100ms'], { env });
    expect(waited.code, waited.stderr).toBe(0);
    expect(waited.stdout).toContain('confirmed');
    expect(waited.stderr).toContain('New balance: 150.00 USD');
    expect(await balanceOf(env)).toBe(150);
  });

  it('--wait follows pending -> confirming -> confirmed on the virtual clock', async () => {
    const { env, userId } = op.account({ balanceUsd: 0 });
    const run = startInProcess(waitingDeposit('eth'), env);
    const id = await waitForDeposit(op, userId);
    await op.operator.post(`/deposits/${id}/confirm`, {});
    await run.stderrShows(`deposit ${id}: confirming`);
    op.sandbox.advanceClock(2_000);
    const res = await run.done;
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain('Send exactly');
    expect(res.stderr).toContain(`deposit ${id}: confirming`);
    expect(res.stderr).toContain('New balance: 20.00 USD');
  });

  it('ends with exit 3 and advice when the deposit fails or expires', async () => {
    const { env, userId } = op.account({ balanceUsd: 0 });
    // End to end: the real binary's exit code when a waited-on deposit fails.
    const failing = runBinary(waitingDeposit('btc'), { env });
    const id = await waitForDeposit(op, userId);
    await op.operator.post(`/deposits/${id}/fail`);
    const failed = await failing;
    expect(failed.code).toBe(3);
    expect(failed.stderr).toContain('The payment failed; nothing was credited');

    const expiring = runInProcess(waitingDeposit('btc', '--json'), { env });
    const id2 = await waitForDeposit(op, userId, id);
    op.sandbox.advanceClock(61 * MINUTE);
    const expired = await expiring;
    expect(expired.code).toBe(3);
    expect(JSON.parse(expired.stdout).deposit.status).toBe('expired');
    expect(JSON.parse(expired.stdout).deposit.depositId).toBe(id2);
    expect(await balanceOf(env)).toBe(0);
  });

  it('--wait-timeout stops with exit 4 and the resume command, the deposit kept', async () => {
    const { env } = op.account({ balanceUsd: 0 });
    const res = await runInProcess(waitingDeposit('btc', '--wait-timeout', '300ms'), {
      env,
      deps: { clock: instantClock() },
    });
    expect(res.code).toBe(4);
    expect(res.stderr).toMatch(/Resume watching with: giftcodes deposit get dep_\w+ --wait/);
  });

  it('without --method lists the eligible methods, with fees, minimums and networks', async () => {
    const { env } = op.account({ balanceUsd: 0 });
    const res = await runInProcess(['deposit', 'create', '--amount', '3', '--currency', 'USD'], { env });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/btc.*bitcoin.*5\.00 USD.*no/);
    expect(res.stdout).not.toMatch(/\bbalance\b/);
    expect(res.stderr).toContain('--method');
  });

  it('without --method, a key that can read the payment methods lists them and opens no deposit', async () => {
    const { env, userId } = op.account({ balanceUsd: 0 });
    op.sandbox.patchAccount(userId, { capabilities: ['b2b', 'retailer'] });
    const res = await runInProcess(['deposit', 'create', '--amount', '50'], { env });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/btc/);
    expect(res.stderr).not.toMatch(/opened/);
    const list = await runInProcess(['deposit', 'list', '--json'], { env });
    expect(JSON.parse(list.stdout).data).toHaveLength(0);
  });

  it('without --method, a b2b-only key opens one method-less deposit and says which', async () => {
    const { env } = op.account({ balanceUsd: 0 });
    const res = await runInProcess(['deposit', 'create', '--amount', '50'], { env });
    expect(res.code, res.stderr).toBe(0);
    const list = JSON.parse((await runInProcess(['deposit', 'list', '--json'], { env })).stdout).data;
    expect(list).toHaveLength(1);
    expect(res.stderr).toContain(`opened deposit ${list[0].depositId} without an invoice`);
  });

  it('refuses an amount above the live maxDepositUSD before calling the service (exit 2)', async () => {
    const { env, userId } = op.account({ balanceUsd: 0 });
    op.sandbox.patchAccount(userId, { limits: { maxDepositUSD: 100 } });
    const res = await runInProcess(
      ['deposit', 'create', '--amount', '101', '--currency', 'BTC', '--method', 'btc'],
      { env },
    );
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('the largest single deposit for this account is 100.00 USD');
    const list = await runInProcess(['deposit', 'list', '--json'], { env });
    expect(JSON.parse(list.stdout).data).toHaveLength(0);
  });

  it('the guided flow needs a terminal: exit 2 naming the scripted command', async () => {
    const { env } = op.account();
    const res = await runInProcess(['deposit'], { env });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('giftcodes deposit create --amount');
  });
});

describe('finishing a deposit in the sandbox', () => {
  it('deposit --help says how: the payment page or the operator API', async () => {
    const res = await runInProcess(['deposit', '--help']);
    expect(res.code).toBe(0);
    const text = res.stdout.replace(/\s+/g, ' ');
    expect(text).toContain('<sandbox URL>/_sandbox/pay/<depositId>');
    expect(text).toContain('pay in full, pay part or let the deposit expire');
  });

  it('the wait of deposit get names the payment page of a loopback service', async () => {
    const { env } = op.account();
    const created = JSON.parse(
      (await runInProcess(['deposit', 'create', '--amount', '20', '--method', 'card', '--json'], { env }))
        .stdout,
    );
    const id = created.depositId as string;
    const watching = startInProcess(['deposit', 'get', id, '--wait', '--poll-interval', '100ms'], env, {
      clock: op.clock(),
    });
    await watching.stderrShows(`/_sandbox/pay/${id}`);
    await op.operator.post(`/deposits/${id}/pay`);
    const res = await watching.done;
    expect(res.code).toBe(0);
    expect(res.stderr).toContain(`curl -X POST ${op.url}/_sandbox/deposits/${id}/pay`);
  });
});

describe('invoice output without a terminal', () => {
  const ESC = '\u001b';
  const create = ['deposit', 'create', '--amount', '20', '--currency', 'BTC', '--method', 'btc'];

  it('piped stdout gets the invoice as plain text, no QR and no escape byte, with or without NO_COLOR', async () => {
    const { env } = op.account({ balanceUsd: 0 });
    // The real binary: colour is decided from its own streams and environment. Two processes, side by side.
    const runs = await Promise.all(
      ['1', undefined].map((noColor) => runBinary(create, { env: { ...env, NO_COLOR: noColor } })),
    );
    for (const res of runs) {
      expect(res.code, res.stderr).toBe(0);
      expect(res.stdout).toMatch(/Send exactly: [0-9.]+ BTC/);
      expect(res.stdout).not.toContain(ESC);
      expect(res.stderr).not.toContain(ESC);
      expect(res.stdout).not.toContain('Scan to pay');
    }
  });

  it('--qr draws the QR into the pipe as plain half blocks', async () => {
    const { env } = op.account({ balanceUsd: 0 });
    const res = await runBinary([...create, '--qr'], { env: { ...env, NO_COLOR: undefined } });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain('Scan to pay');
    expect(res.stdout).toMatch(/[▀▄█]{7}/);
    expect(res.stdout).not.toContain(ESC);
  });
});

describe('--wait --json that runs out of time', () => {
  const waitFlags = ['--wait', '--poll-interval', '100ms', '--wait-timeout', '300ms', '--json'];

  it('deposit create: the deposit as last read on stdout, then exit 4', async () => {
    const { env } = op.account({ balanceUsd: 0 });
    const res = await runInProcess(
      ['deposit', 'create', '--amount', '20', '--currency', 'BTC', '--method', 'btc', ...waitFlags],
      { env, deps: { clock: instantClock() } },
    );
    expect(res.code).toBe(4);
    const body = JSON.parse(res.stdout);
    expect(body.deposit.status).toBe('pending');
    expect(body.deposit.depositId).toMatch(/^dep_/);
    expect(res.stderr).toContain(`giftcodes deposit get ${body.deposit.depositId} --wait`);
  });

  it('deposit get: the same', async () => {
    const { env } = op.account({ balanceUsd: 0 });
    const created = await runInProcess(
      ['deposit', 'create', '--amount', '20', '--currency', 'ETH', '--method', 'eth', '--json'],
      { env },
    );
    const id = JSON.parse(created.stdout).depositId as string;
    const res = await runInProcess(['deposit', 'get', id, ...waitFlags], {
      env,
      deps: { clock: instantClock() },
    });
    expect(res.code).toBe(4);
    expect(JSON.parse(res.stdout).deposit).toMatchObject({ depositId: id, status: 'pending' });
  });
});

describe('deposit list', () => {
  it('filters by status, pages with --limit/--offset and follows every page with --all', async () => {
    const { env } = op.account({ balanceUsd: 0 });
    const ids: string[] = [];
    for (let i = 1; i <= 5; i++) {
      const r = await runInProcess(
        ['deposit', 'create', '--amount', String(10 * i), '--currency', 'BTC', '--method', 'btc', '--json'],
        { env },
      );
      expect(r.code, r.stderr).toBe(0);
      ids.push(JSON.parse(r.stdout).depositId);
    }
    expect(new Set(ids).size).toBe(5);
    // Confirmed at once (delayMs 0), and read back before listing: no timing involved.
    await op.operator.post(`/deposits/${ids[1]}/confirm`, { delayMs: 0 });
    const second = await runInProcess(['deposit', 'get', ids[1] ?? '', '--json'], { env });
    expect(JSON.parse(second.stdout).deposit.status).toBe('confirmed');

    const confirmed = await runInProcess(['deposit', 'list', '--status', 'confirmed', '--json'], { env });
    expect(confirmed.code, confirmed.stderr).toBe(0);
    expect(JSON.parse(confirmed.stdout).data.map((d: { depositId: string }) => d.depositId)).toEqual([
      ids[1],
    ]);

    const page = await runInProcess(
      [
        'deposit',
        'list',
        '--limit',
        '2',
        '--offset',
        '1',
        '--sort-by',
        'createdAt',
        '--sort-order',
        'asc',
        '--json',
      ],
      { env },
    );
    expect(page.code, page.stderr).toBe(0);
    expect(JSON.parse(page.stdout).data.map((d: { depositId: string }) => d.depositId)).toEqual([
      ids[1],
      ids[2],
    ]);
    const table = await runInProcess(['deposit', 'list', '--limit', '2', '--offset', '1'], { env });
    expect(table.code, table.stderr).toBe(0);
    expect(table.stderr).toContain('2 of 5; more with --offset or --all');

    const all = await runInProcess(['deposit', 'list', '--all', '--limit', '2', '--json'], { env });
    expect(
      JSON.parse(all.stdout)
        .data.map((d: { depositId: string }) => d.depositId)
        .sort(),
    ).toEqual([...ids].sort());
    const bad = await runInProcess(['deposit', 'list', '--status', 'paid'], { env });
    expect(bad.code).toBe(2);
  });
});

/** The id of the account's newest deposit other than `except`, once the binary has created it. */
async function waitForDeposit(o: SandboxHandle, userId: string, except?: string): Promise<string> {
  return waitFor(() => {
    const deposits = o.sandbox.core.store.depositsByUser.get(userId) ?? [];
    return deposits.filter((d) => d.depositId !== except).at(-1)?.depositId;
  }, 'the deposit to appear');
}
