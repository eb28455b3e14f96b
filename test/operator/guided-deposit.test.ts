/**
 * The guided deposit as a person meets it: the real binary in a pseudo-terminal,
 * answers typed at the prompts, the invoice and QR read off the screen, and the
 * sandbox (over its operator HTTP API and virtual clock) confirming, failing or
 * expiring the deposit while the spinner waits.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/cli.js';
import { MINUTE, withSandbox } from '../helpers/sandbox.js';
import { KEYS, startTerminal, type Terminal } from '../helpers/terminal.js';

const op = withSandbox({ seed: 7 });
const terminals: Terminal[] = [];
afterEach(() => {
  for (const t of terminals.splice(0)) t.kill();
});

/** Deposit methods in the order the prompt lists them (ranking; no balance method for deposits). */
const ORDER = ['card', 'btc', 'eth', 'usdt_trc20', 'xrp'];

/** Type an amount and pick a method; resolves at the invoice question, not yet answered. */
async function toInvoiceQuestion(
  env: Record<string, string>,
  amount: string,
  method: string,
  args: string[] = [],
): Promise<Terminal> {
  const term = startTerminal(['deposit', ...args], env);
  terminals.push(term);
  await term.waitFor('Amount to add (USD)');
  term.type(`${amount}${KEYS.enter}`);
  await term.waitFor('Pay with');
  term.type(KEYS.down.repeat(ORDER.indexOf(method)));
  term.type(KEYS.enter);
  await term.waitFor('Create a deposit invoice');
  return term;
}

/** Type an amount, pick a method, accept the invoice; resolves with the deposit id on screen. */
async function startGuided(
  env: Record<string, string>,
  amount: string,
  method: string,
): Promise<{ term: Terminal; depositId: string }> {
  const term = await toInvoiceQuestion(env, amount, method, ['--poll-interval', '150ms']);
  term.type(`y${KEYS.enter}`);
  const screen = await term.waitFor(/Deposit (dep_\w+)\s/);
  const depositId = /Deposit (dep_\w+)\s/.exec(screen)?.[1] ?? '';
  await term.waitFor('waiting for the payment');
  return { term, depositId };
}

describe('guided deposit in a terminal', () => {
  it('checks the amount against maxDepositUSD, shows the invoice, memo, QR and countdown, and the confirmation', async () => {
    const { env, userId } = op.account({ balanceUsd: 40 });
    op.sandbox.patchAccount(userId, { limits: { maxDepositUSD: 500 } });
    const term = startTerminal(['deposit', '--poll-interval', '150ms'], env);
    terminals.push(term);
    await term.waitFor('Largest single deposit: 500.00 USD');
    await term.waitFor('Amount to add (USD)');
    term.type(`900${KEYS.enter}`);
    await term.waitFor('the largest single deposit for this account is 500.00 USD');
    term.type(KEYS.backspace.repeat(3));
    term.type(`60${KEYS.enter}`);

    const menu = await term.waitFor('Pay with');
    await term.waitFor('XRP');
    expect(term.screen()).toMatch(/Bitcoin · network bitcoin · fee: .* · min 5\.00 USD/);
    expect(term.screen()).not.toContain('Partner balance');
    void menu;
    term.type(KEYS.down.repeat(ORDER.indexOf('xrp')));
    term.type(KEYS.enter);
    await term.waitFor('Create a deposit invoice of 60.00 USD paid with XRP?');
    term.type(`y${KEYS.enter}`);

    const screen = await term.waitFor('waiting for the payment');
    const depositId = /Deposit (dep_\w+)\s/.exec(screen)?.[1] ?? '';
    expect(depositId).toMatch(/^dep_/);
    expect(screen).toMatch(/Send exactly: [0-9.]+ XRP/);
    expect(screen).toMatch(/To address: r\w+/);
    expect(screen).toContain('Network: xrpl');
    expect(screen).toMatch(/MEMO REQUIRED: \d+/);
    expect(screen).toMatch(/DESTINATION TAG REQUIRED: \d+/);
    expect(screen).toMatch(/Expires: .* \(in (1h 00m|59m \d\ds)\)/);
    expect(screen).toContain('Scan to pay');
    expect(screen).toMatch(/[▀▄█]{10,}/);
    expect(screen).toMatch(/invoice expires in (1h 00m|59m \d\ds)/);

    // The sandbox sees the payment (operator HTTP), then confirms it on its virtual clock.
    await op.operator.post(`/deposits/${depositId}/confirm`, { delayMs: 5_000 });
    await term.waitFor('payment seen, waiting for network confirmations');
    op.sandbox.advanceClock(5_000);
    await term.waitFor(`Deposit ${depositId} confirmed: +60.00 USD. New balance: 100.00 USD`);
    expect(await term.exited).toBe(0);
  });

  it('a hosted card payment shows the payment URL', async () => {
    const { env } = op.account({ balanceUsd: 0 });
    const { term, depositId } = await startGuided(env, '25', 'card');
    expect(term.screen()).toMatch(/Pay online: http:\/\/127\.0\.0\.1:\d+\/_sandbox\/pay\//);
    // The hosted page as a QR code too, to pay on a phone.
    expect(term.screen()).toContain('Scan to open the payment page on a phone');
    expect(term.screen()).not.toContain('Scan to pay (amount included)');
    await op.operator.post(`/deposits/${depositId}/confirm`, { delayMs: 0 });
    await term.waitFor('New balance: 25.00 USD');
    expect(await term.exited).toBe(0);
  });

  it('a key that can list payment methods leaves one deposit; the wait screen says how to finish it in the sandbox, and its page pays it', async () => {
    const { env, userId } = op.account({ balanceUsd: 0, capabilities: ['b2b', 'retailer'] });
    const { term, depositId } = await startGuided(env, '25', 'card');
    const screen = term.screen();
    expect(screen).not.toContain('cannot list payment methods');
    expect(screen).toMatch(
      new RegExp(
        `In the sandbox, finish it on its payment page http://127\\.0\\.0\\.1:\\d+/_sandbox/pay/${depositId}`,
      ),
    );
    // The page the wait screen names, posted as its form would be.
    const base = /(http:\/\/127\.0\.0\.1:\d+)\/_sandbox\/pay\//.exec(screen)?.[1] ?? '';
    const page = await fetch(`${base}/_sandbox/pay/${depositId}`);
    expect(page.status).toBe(200);
    const paid = await fetch(`${base}/_sandbox/pay/${depositId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'action=pay',
    });
    expect(paid.status).toBe(200);
    op.sandbox.advanceClock(5_000);
    await term.waitFor('New balance: 25.00 USD');
    expect(await term.exited).toBe(0);
    const list = JSON.parse((await runInProcess(['deposit', 'list', '--json'], { env })).stdout);
    expect(list.data.map((d: { depositId: string }) => d.depositId)).toEqual([depositId]);
    const ledger = await op.operator.ledger(userId);
    expect(ledger.entries.filter((e) => e.type === 'deposit').map((e) => e.amountUsd)).toEqual([25]);
  });

  it('a B2B-only key cannot list methods: the deposit the listing opens is named, with where to see it', async () => {
    const { env } = op.account({ balanceUsd: 0 });
    const { term, depositId } = await startGuided(env, '25', 'card');
    const note = /listing them opened deposit (dep_\w+) without an invoice/.exec(
      term.screen().replace(/\s+/g, ' '),
    );
    expect(note?.[1]).toMatch(/^dep_/);
    expect(note?.[1]).not.toBe(depositId);
    expect(term.screen().replace(/\s+/g, ' ')).toContain('giftcodes deposit list --status pending');
    term.type(KEYS.ctrlC);
    expect(await term.exited).toBe(130);
    const list = JSON.parse((await runInProcess(['deposit', 'list', '--json'], { env })).stdout);
    expect(list.data.map((d: { depositId: string }) => d.depositId).sort()).toEqual(
      [depositId, note?.[1]].sort(),
    );
  });

  it('says what to do when the invoice expires on the virtual clock (exit 3)', async () => {
    const { env } = op.account({ balanceUsd: 0 });
    const { term, depositId } = await startGuided(env, '30', 'btc');
    op.sandbox.advanceClock(61 * MINUTE);
    await term.waitFor(`Deposit ${depositId} expired.`);
    await term.waitFor('Start a new deposit with: giftcodes deposit.');
    expect(await term.exited).toBe(3);
  });

  it('says what to do when the payment fails (exit 3)', async () => {
    const { env } = op.account({ balanceUsd: 0 });
    const { term, depositId } = await startGuided(env, '30', 'eth');
    await op.operator.post(`/deposits/${depositId}/fail`);
    await term.waitFor(`Deposit ${depositId} failed.`);
    await term.waitFor('The payment failed; nothing was credited');
    expect(await term.exited).toBe(3);
  });

  it('Ctrl-C while waiting leaves the deposit intact and prints how to resume watching', async () => {
    const { env } = op.account({ balanceUsd: 0 });
    const { term, depositId } = await startGuided(env, '30', 'usdt_trc20');
    term.type(KEYS.ctrlC);
    await term.waitFor(`Resume watching with: giftcodes deposit get ${depositId} --wait`);
    expect(await term.exited).toBe(130);
    const after = await runInProcess(['deposit', 'get', depositId, '--json'], { env });
    expect(JSON.parse(after.stdout).deposit.status).toBe('pending');
    // ...and resuming picks it up where it was.
    await op.operator.post(`/deposits/${depositId}/confirm`, { delayMs: 0 });
    const resumed = await runInProcess(['deposit', 'get', depositId, '--wait', '--poll-interval', '100ms'], {
      env,
    });
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain('New balance: 30.00 USD');
  });

  it('"no" at the invoice question creates nothing: exit 2, "nothing was done"', async () => {
    const { env } = op.account({ balanceUsd: 0 });
    const term = await toInvoiceQuestion(env, '25', 'card');
    term.type(`n${KEYS.enter}`);
    await term.waitFor('nothing was done');
    expect(await term.exited).toBe(2);
    // Only the method listing (no invoice) exists; no deposit with an invoice was created.
    const list = JSON.parse((await runInProcess(['deposit', 'list', '--json'], { env })).stdout);
    expect(list.data).toHaveLength(1);
    const only = JSON.parse(
      (await runInProcess(['deposit', 'get', list.data[0].depositId, '--json'], { env })).stdout,
    );
    expect(only.payment).toBeNull();
  });

  it('the invoice answer lost after the service made it: names that deposit, never a second invoice (exit 1)', async () => {
    const { env } = op.account({ balanceUsd: 0 });
    const term = await toInvoiceQuestion(env, '25', 'btc');
    // From here on, the service makes each deposit and its answer is lost.
    await op.operator.setFaults({ routes: { 'POST /b2b/deposits': { script: ['error_after'] } } });
    try {
      term.type(`y${KEYS.enter}`);
      const screen = await term.waitFor('Do not create another');
      expect(await term.exited).toBe(1);
      const list = JSON.parse((await runInProcess(['deposit', 'list', '--json'], { env })).stdout);
      // The method listing's deposit and the invoice's: the advice names the invoice's.
      const invoiced = list.data.filter((d: { paymentCurrency?: string }) => d.paymentCurrency === 'BTC');
      expect(invoiced).toHaveLength(1);
      expect(screen.replace(/\s+/g, ' ')).toContain(
        `A deposit was created (${invoiced[0].depositId}, pending`,
      );
    } finally {
      await op.operator.setFaults({});
    }
  });

  it('a method below its minimum is shown with the reason and cannot be picked', async () => {
    const { env } = op.account({ balanceUsd: 0 });
    const term = startTerminal(['deposit'], env);
    terminals.push(term);
    await term.waitFor('Amount to add (USD)');
    term.type(`3${KEYS.enter}`);
    // Methods that can take the amount come first; the ones below their minimum last, disabled,
    // the minimum said once (the label's), not again as the reason.
    const menu = await term.waitFor(/Ether.*min 5\.00 USD \(below its minimum\)/);
    expect(menu).toMatch(/Bitcoin.*min 5\.00 USD \(below its minimum\)/);
    expect(menu).not.toMatch(/USD minimum/);
    expect(menu.indexOf('XRP')).toBeLessThan(menu.indexOf('Bitcoin'));
    // One step down from Card goes to Tether: the disabled Bitcoin and Ether sit at the end.
    term.type(KEYS.down);
    term.type(KEYS.enter);
    await term.waitFor('paid with Tether (TRC-20)?');
    term.type(KEYS.ctrlC);
    expect(await term.exited).toBe(130);
  });
});

describe('confirmation on a terminal', () => {
  it('a write that spends the balance asks first: "no" sends nothing, "yes" pays', async () => {
    const { env } = op.account({ balanceUsd: 100, capabilities: ['b2b', 'retailer'] });
    const args = [
      'checkout',
      'create',
      '--email',
      'tty@example.com',
      '--item',
      'prd_amazon_us:sku_amazon_us_25:25',
      '--method',
      'balance',
    ];
    const declined = startTerminal(args, env);
    terminals.push(declined);
    await declined.waitFor('(y/N)');
    expect(declined.screen()).toContain('The balance method charges your balance');
    declined.type(`n${KEYS.enter}`);
    await declined.waitFor('cancelled at the confirmation: nothing was done');
    expect(await declined.exited).toBe(2);
    expect(JSON.parse((await runInProcess(['balance', '--json'], { env })).stdout).balance).toBe(100);

    const accepted = startTerminal(args, env);
    terminals.push(accepted);
    await accepted.waitFor('(y/N)');
    accepted.type(`y${KEYS.enter}`);
    await accepted.waitFor(/payment page/);
    expect(await accepted.exited).toBe(0);
    expect(JSON.parse((await runInProcess(['balance', '--json'], { env })).stdout).balance).toBe(75);
  });
});

describe('guided deposit against the spec-minimal sandbox (no deposit id in the create answer)', () => {
  const minimal = withSandbox({ seed: 8, specMinimal: true });

  it('finds the new deposit among the pending ones (not the method listing, same currency) and follows it', async () => {
    const { env, apiKey, userId } = minimal.account({ balanceUsd: 0 });
    // The card method pays in USD, like the method listing the flow creates first.
    const term = startTerminal(['deposit', '--poll-interval', '150ms'], env);
    terminals.push(term);
    await term.waitFor('Amount to add (USD)');
    term.type(`25${KEYS.enter}`);
    await term.waitFor('Pay with');
    term.type(KEYS.enter);
    await term.waitFor('Create a deposit invoice');
    term.type(`y${KEYS.enter}`);
    const screen = await term.waitFor('Pay online:');
    const depositId = /Deposit (dep_\w+)\s/.exec(screen)?.[1] ?? '';
    expect(depositId).toMatch(/^dep_/);
    // The one the invoice belongs to: the listing deposit carries no invoice.
    const listed = await minimal.api('GET', '/b2b/deposits?status=pending', { apiKey });
    expect(listed.body.data.map((d: { depositId: string }) => d.depositId)).toContain(depositId);
    await minimal.operator.post(`/deposits/${depositId}/confirm`, { delayMs: 0 });
    await term.waitFor('New balance: 25.00 USD');
    expect(await term.exited).toBe(0);
    const credits = (await minimal.operator.ledger(userId)).entries.filter((e) => e.type === 'deposit');
    expect(credits.map((e) => e.depositId)).toEqual([depositId]);
  });
});
