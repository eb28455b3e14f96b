/**
 * Issue 23: the plan is made once per run. The pass that validates the rows and sums
 * the estimate also writes each planned order to temporary files beside the journal and
 * its copy (`PlanWriter`); after the confirmation they are committed (`planned`, synced,
 * renamed into place) without planning again. A batch whose anchor is found on the
 * account without its journal (the issue allowed a second pass there) compares the
 * account's refs with the written plan's, so it too plans once.
 *
 * Only a committed plan is a journal: a dry run writes nothing, a declined confirmation
 * removes the temporary files, and a kill -9 before the commit leaves temporary files
 * that no run takes for a plan (the next one removes them).
 */
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { planningPasses } from '../../src/bulk/plan/planning.js';
import { runInProcess } from '../helpers/cli.js';
import { withSandbox } from '../helpers/sandbox.js';
import { KEYS, startTerminal, type Terminal } from '../helpers/terminal.js';
import { account, mixedRows, proveExactlyOnce, tempDir, unitsOf, writeCsv } from './support.js';

const sb = withSandbox({ seed: 47 });
const terminals: Terminal[] = [];
afterEach(() => {
  for (const t of terminals.splice(0)) t.kill();
});

const bulk = (env: Record<string, string>, args: string[]) =>
  runInProcess(['order', 'bulk', ...args, '--yes'], { env });

/** A run of `order bulk` in this process, with the planning passes it made. */
async function counted(env: Record<string, string>, args: string[]) {
  const before = planningPasses();
  const res = await bulk(env, args);
  return { ...res, passes: planningPasses() - before };
}

/** Every file under `dir`, by path relative to it. */
function filesUnder(dir: string, prefix = ''): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? filesUnder(join(dir, entry.name), `${prefix}${entry.name}/`)
      : [`${prefix}${entry.name}`],
  );
}

/** The temporary files of a plan not yet committed. */
const staged = (dir: string) => filesUnder(dir).filter((name) => /\.journal\.[0-9a-f]{16}\.tmp$/.test(name));

async function charges(userId: string): Promise<number> {
  const ledger = await sb.operator.ledger(userId);
  return ledger.entries.filter((e) => e.type === 'order_charge').length;
}

describe('the plan is made once per run', () => {
  it('a dry run plans once and stages nothing; a real run plans once and leaves no stage behind', async () => {
    const acc = await account(sb, { limits: { maxItemsPerOrder: 2 } });
    const dir = tempDir();
    const env = { ...acc.env, GIFTCODES_STATE_DIR: join(dir, 'state') };
    const lines = mixedRows(12);
    const input = writeCsv(dir, lines);
    const out = join(dir, 'codes.csv');

    const dry = await counted(env, [input, '--out', out, '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.passes).toBe(1);
    expect(filesUnder(dir).sort()).toEqual(['in.csv']);

    const real = await counted(env, [input, '--out', out]);
    expect(real.code, real.stderr).toBe(0);
    expect(real.passes).toBe(1);
    expect(staged(dir)).toEqual([]);
    await proveExactlyOnce(sb, acc.userId, out, { complete: true, inputUnits: unitsOf(lines) });
  });

  it('plans once when the anchor is found without a journal too: the account compared with the staged refs, the same plan replays', async () => {
    const acc = await account(sb, { limits: { maxItemsPerOrder: 2, dailySpendCapUSD: 60 } });
    const dir = tempDir();
    const env = { ...acc.env, GIFTCODES_STATE_DIR: join(dir, 'state') };
    const lines = mixedRows(12);
    const input = writeCsv(dir, lines);
    const out = join(dir, 'codes.csv');
    const first = await counted(env, [input, '--out', out]);
    expect(first.code, first.stderr).toBe(4);
    expect(first.passes).toBe(1);
    const bought = await charges(acc.userId);
    expect(bought).toBeGreaterThan(1);

    // The journal and its copy gone: the anchor's look-up finds the batch on the account.
    rmSync(`${out}.journal`);
    rmSync(out, { force: true });
    rmSync(env.GIFTCODES_STATE_DIR, { recursive: true });
    await sb.operator.patchAccount(acc.userId, { limits: { maxItemsPerOrder: 2, dailySpendCapUSD: null } });
    const again = await counted(env, [input, '--out', out]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/replays without charging again/);
    expect(again.passes).toBe(1);
    expect(staged(dir)).toEqual([]);
    await proveExactlyOnce(sb, acc.userId, out, { complete: true, inputUnits: unitsOf(lines) });
    expect(await charges(acc.userId)).toBeGreaterThan(bought);
  });
});

describe('the plan before the confirmation', () => {
  it('"no" at the confirmation leaves neither a temporary plan nor a journal, and buys nothing', async () => {
    const acc = await account(sb);
    const dir = tempDir();
    const state = join(dir, 'state');
    const input = writeCsv(dir, mixedRows(6));
    const out = join(dir, 'codes.csv');
    const term = startTerminal(['order', 'bulk', input, '--out', out], {
      ...acc.env,
      GIFTCODES_STATE_DIR: state,
    });
    terminals.push(term);
    await term.waitFor(/Buy \d+ units in \d+ orders for about [\d,.]+ USD\?/);
    term.type(`n${KEYS.enter}`);
    expect(await term.exited).toBe(2);
    expect(term.screen()).toContain('nothing was done');
    expect(staged(dir)).toEqual([]);
    expect(filesUnder(dir).filter((name) => name.endsWith('.journal'))).toEqual([]);
    expect(await charges(acc.userId)).toBe(0);
  }, 60_000);

  it('killed at the confirmation, its plan written: nothing is left to take for a plan, and the next run buys every unit once', async () => {
    const acc = await account(sb, { limits: { maxItemsPerOrder: 2 } });
    const dir = tempDir();
    const state = join(dir, 'state');
    const env = { ...acc.env, GIFTCODES_STATE_DIR: state };
    const lines = mixedRows(10);
    const input = writeCsv(dir, lines);
    const out = join(dir, 'codes.csv');
    const term = startTerminal(['order', 'bulk', input, '--out', out], env);
    terminals.push(term);
    await term.waitFor(/Buy \d+ units in \d+ orders for about [\d,.]+ USD\?/);
    // The plan is written, to temporary files beside the journal and beside its copy.
    expect(staged(dir)).toEqual([
      expect.stringMatching(/^codes\.csv\.journal\./),
      expect.stringMatching(/^state\/batches\/.*\.journal\./),
    ]);
    term.kill();
    await term.exited;
    expect(filesUnder(dir).filter((name) => name.endsWith('.journal'))).toEqual([]);
    expect(await charges(acc.userId)).toBe(0);

    const next = await counted(env, [input, '--out', out]);
    expect(next.code, next.stderr).toBe(0);
    expect(next.passes).toBe(1);
    expect(staged(dir)).toEqual([]);
    await proveExactlyOnce(sb, acc.userId, out, { complete: true, inputUnits: unitsOf(lines) });
  }, 60_000);
});
