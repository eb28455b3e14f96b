/**
 * Issue 5: "The bulk command's insufficient balance stop offers this flow on a TTY and
 * resumes the bulk run after the deposit confirms." The real binary in a pseudo-terminal
 * runs out of balance mid-run, the guided deposit is answered at its prompts, the sandbox
 * confirms the deposit, and the same run finishes: every code once, every order charged once.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { withSandbox } from '../helpers/sandbox.js';
import { KEYS, startTerminal, type Terminal } from '../helpers/terminal.js';
import { account, mixedRows, proveExactlyOnce, tempDir, unitsOf, writeCsv } from './support.js';

const sb = withSandbox({ seed: 23 });
const terminals: Terminal[] = [];
afterEach(() => {
  for (const t of terminals.splice(0)) t.kill();
});

describe('insufficient balance on a terminal', () => {
  it('offers the guided top-up and resumes the same run once the deposit confirms', async () => {
    const acc = await account(sb, { balanceUsd: 120, limits: { maxItemsPerOrder: 2 } });
    const dir = tempDir();
    const lines = mixedRows(12);
    const input = writeCsv(dir, lines);
    const out = join(dir, 'codes.csv');
    const term = startTerminal(
      ['order', 'bulk', input, '--out', out, '--yes', '--concurrency', '2'],
      acc.env,
    );
    terminals.push(term);

    const offer = await term.waitFor(/short for the remaining \d+ orders\. Top up now\?/, {
      timeoutMs: 20_000,
    });
    expect(offer).toMatch(/about [\d,.]+ USD short/);
    term.type(`y${KEYS.enter}`);
    await term.waitFor('Amount to add (USD)');
    term.type(`1000${KEYS.enter}`);
    await term.waitFor('Pay with');
    term.type(KEYS.enter);
    await term.waitFor('Create a deposit invoice of 1,000.00 USD');
    term.type(`y${KEYS.enter}`);
    const screen = await term.waitFor('waiting for the payment');
    const depositId = /Deposit (dep_\w+)\s/.exec(screen)?.[1];
    expect(depositId).toMatch(/^dep_/);

    await sb.operator.confirmDeposit(depositId as string, 0);
    await sb.operator.advanceClock(2_000);

    const code = await term.exited;
    expect(code, term.screen()).toBe(0);
    await proveExactlyOnce(sb, acc.userId, out, { complete: true, inputUnits: unitsOf(lines) });
  }, 60_000);

  it('asks before spending on a terminal: "no" buys nothing (exit 2), "yes" buys everything', async () => {
    const acc = await account(sb, { balanceUsd: 5_000 });
    const dir = tempDir();
    const lines = mixedRows(4);
    const input = writeCsv(dir, lines);
    const out = join(dir, 'codes.csv');
    const args = ['order', 'bulk', input, '--out', out];

    const declined = startTerminal(args, acc.env);
    terminals.push(declined);
    await declined.waitFor(/Buy \d+ units in \d+ orders for about [\d,.]+ USD\?/);
    declined.type(`n${KEYS.enter}`);
    expect(await declined.exited).toBe(2);
    expect(declined.screen()).toContain('nothing was done');
    const ledger = (await sb.operator.ledger(acc.userId)).entries as Array<{ type: string }>;
    expect(ledger.filter((e) => e.type === 'order_charge')).toHaveLength(0);

    const accepted = startTerminal(args, acc.env);
    terminals.push(accepted);
    await accepted.waitFor(/Buy \d+ units/);
    accepted.type(`y${KEYS.enter}`);
    expect(await accepted.exited, accepted.screen()).toBe(0);
    await proveExactlyOnce(sb, acc.userId, out, { complete: true, inputUnits: unitsOf(lines) });
  }, 60_000);
});
