/**
 * After the batch, against a real sandbox over HTTP: `refund batch` requests each
 * refund once (proved with the sandbox ledger), `order export` rebuilds a deleted
 * codes file with the same content, and `order reconcile` reports what differs.
 */
import { existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJournal } from '../../src/bulk/store/journal.js';
import { account, mixedRows, readCsvOutput, tempDir, writeCsv } from '../bulk/support.js';
import { runInProcess } from '../helpers/cli.js';
import { withSandbox } from '../helpers/sandbox.js';

const sb = withSandbox({ seed: 31 });

function cli(env: Record<string, string>, args: string[]) {
  return runInProcess(args, { env });
}

/** A finished batch with partial orders (GameStop fails every third unit). */
async function boughtBatch() {
  const acc = await account(sb, { limits: { maxItemsPerOrder: 3 } });
  const dir = tempDir();
  const input = writeCsv(dir, mixedRows(12, { partial: true }));
  const out = join(dir, 'codes.csv');
  const run = await cli(acc.env, ['order', 'bulk', input, '--out', out, '--yes']);
  expect(run.code, run.stderr).toBe(3);
  const batch = parseJournal(readFileSync(`${out}.journal`, 'utf8')).state.batch?.batch as string;
  return { acc, dir, input, out, batch, run };
}

const refundEntries = async (userId: string) => sb.operator.ledgerEntries(userId, 'refund');

describe('refund batch', () => {
  it('requests the refund of every partial or failed order once; a re-run requests nothing', async () => {
    const { acc, out, run } = await boughtBatch();
    expect(run.stdout).toContain(`(each requested once): giftcodes refund batch ${out}`);

    // Without --yes and without a terminal: refused before anything is sent.
    const refused = await cli(acc.env, ['refund', 'batch', out]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--yes');
    expect(await refundEntries(acc.userId)).toHaveLength(0);

    const first = await cli(acc.env, ['--json', 'refund', 'batch', out, '--yes']);
    expect(first.code, first.stderr).toBe(0);
    const body = JSON.parse(first.stdout);
    const partial = (await sb.operator.orders(acc.userId)).orders.filter((o) =>
      ['partial', 'failed'].includes(o.status as string),
    );
    expect(partial.length).toBeGreaterThan(1);
    expect(body.orders.map((o: { checkoutId: string }) => o.checkoutId).sort()).toEqual(
      partial.map((o) => o.checkoutId).sort(),
    );
    expect(body.orders.every((o: { outcome: string }) => o.outcome === 'requested')).toBe(true);
    const refunds = await refundEntries(acc.userId);
    expect(new Set(refunds.map((e) => e.checkoutId))).toEqual(new Set(partial.map((o) => o.checkoutId)));
    // Recorded in the batch's journal (mode 0600 as ever), not in a log of their own.
    expect(statSync(`${out}.journal`).mode & 0o777).toBe(0o600);
    expect(existsSync(`${out}.refunds`)).toBe(false);
    expect(body.refundLog).toBe(`${out}.journal`);

    // A re-run: every answer is in the log, nothing is sent, the ledger does not move.
    const again = await cli(acc.env, ['--json', 'refund', 'batch', out, '--yes']);
    expect(again.code, again.stderr).toBe(0);
    expect(
      JSON.parse(again.stdout).orders.every((o: { outcome: string }) => o.outcome === 'already-requested'),
    ).toBe(true);
    expect(await refundEntries(acc.userId)).toEqual(refunds);
    expect((await sb.operator.refunds(acc.userId)).refunds).toHaveLength(partial.length);

    // Journal lost (another machine): the service answers with the existing refunds (200): replays, no new refund.
    rmSync(`${out}.journal`);
    const replay = await cli(acc.env, ['--json', 'refund', 'batch', out, '--yes']);
    expect(replay.code, replay.stderr).toBe(0);
    expect(JSON.parse(replay.stdout).orders.every((o: { outcome: string }) => o.outcome === 'replayed')).toBe(
      true,
    );
    expect(await refundEntries(acc.userId)).toEqual(refunds);
  });

  it('finds the batch on the account by its id alone, with its refunds recorded in the config directory', async () => {
    const { acc, batch } = await boughtBatch();
    const configDir = tempDir();
    const env = { ...acc.env, GIFTCODES_CONFIG_DIR: configDir };
    const first = await cli(env, ['refund', 'batch', '--batch', batch, '--yes']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/requested/);
    expect(existsSync(join(configDir, 'batches', `${batch}.refunds.journal`))).toBe(true);
    const before = await refundEntries(acc.userId);
    expect(before.length).toBeGreaterThan(0);
    const again = await cli(env, ['--json', 'refund', 'batch', '--batch', batch, '--yes']);
    expect(
      JSON.parse(again.stdout).orders.every((o: { outcome: string }) => o.outcome === 'already-requested'),
    ).toBe(true);
    expect(await refundEntries(acc.userId)).toEqual(before);
  });
});

describe('order export', () => {
  it('rebuilds a deleted codes file with the same content, mode 0600, buying nothing', async () => {
    const { acc, input, out, batch } = await boughtBatch();
    const original = readFileSync(out, 'utf8');
    const charges = (await sb.operator.ledger(acc.userId)).entries.length;
    rmSync(out);

    const res = await cli(acc.env, ['order', 'export', '--batch', batch, '--out', out, '--input', input]);
    expect(res.code, res.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(original);
    expect(statSync(out).mode & 0o777).toBe(0o600);
    expect((await sb.operator.ledger(acc.userId)).entries).toHaveLength(charges);

    // The same rows as JSON: same values, formula protection aside.
    const asJson = join(tempDir(), 'codes.json');
    const json = await cli(acc.env, [
      'order',
      'export',
      '--batch',
      batch,
      '--out',
      asJson,
      '--journal',
      `${out}.journal`,
      '--format',
      'json',
    ]);
    expect(json.code, json.stderr).toBe(0);
    const records = JSON.parse(readFileSync(asJson, 'utf8')) as Array<Record<string, unknown>>;
    expect(records.map((r) => `${r.checkoutId}:${r.row}:${r.index}:${r.status}`)).toEqual(
      readCsvOutput(out).map((r) => `${r.checkoutId}:${r.row}:${r.index}:${r.status}`),
    );
  });

  it('without the journal (another machine) rebuilds every unit from the service by batch id', async () => {
    const { acc, out, batch } = await boughtBatch();
    const elsewhere = join(tempDir(), 'codes.csv');
    const res = await cli(acc.env, ['order', 'export', '--batch', batch, '--out', elsewhere]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain('input row and skuId');
    const key = (r: { checkoutId: string; status: string; cardCode: string }) =>
      `${r.checkoutId}:${r.status}:${r.cardCode}`;
    expect(readCsvOutput(elsewhere).map(key).sort()).toEqual(readCsvOutput(out).map(key).sort());
  });

  it('without the journal, --input re-plans the batch from its file: the same file, no false note', async () => {
    const { acc, input, out, batch } = await boughtBatch();
    const original = readFileSync(out, 'utf8');
    const elsewhere = join(tempDir(), 'codes.csv');
    const res = await cli(acc.env, [
      'order',
      'export',
      '--batch',
      batch,
      '--out',
      elsewhere,
      '--input',
      input,
    ]);
    expect(res.code, res.stderr).toBe(0);
    expect(readFileSync(elsewhere, 'utf8')).toBe(original);
    expect(res.stderr).not.toContain('input row and skuId');
    expect(res.stderr).not.toContain('ref column');
  });

  it("without the journal, an --input that is not the batch's file is refused before anything is written", async () => {
    const { acc, dir, batch } = await boughtBatch();
    const other = writeCsv(dir, mixedRows(11, { partial: true }), 'other.csv');
    const elsewhere = join(tempDir(), 'codes.csv');
    const res = await cli(acc.env, [
      'order',
      'export',
      '--batch',
      batch,
      '--out',
      elsewhere,
      '--input',
      other,
    ]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(`${other} is not the input file batch ${batch} was bought from`);
    expect(existsSync(elsewhere)).toBe(false);
  });

  it('with the journal and no --input, the ref column is filled from the journal and no note says otherwise', async () => {
    const { acc, out } = await boughtBatch();
    const original = readFileSync(out, 'utf8');
    const res = await cli(acc.env, ['order', 'export', '--out', out]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).not.toContain('ref column');
    expect(readFileSync(out, 'utf8')).toBe(original);
    expect(readCsvOutput(out).every((r) => r.ref !== '')).toBe(true);
  });

  it('refuses to replace a file that is not an output of the batch', async () => {
    const { acc, out, batch } = await boughtBatch();
    const foreign = join(tempDir(), 'mine.csv');
    writeFileSync(foreign, 'mine');
    const res = await cli(acc.env, ['order', 'export', '--batch', batch, '--out', foreign]);
    expect(res.code).toBe(2);
    expect(readFileSync(foreign, 'utf8')).toBe('mine');
    // Its own output is replaced (the same content again).
    expect((await cli(acc.env, ['order', 'export', '--out', out])).code).toBe(0);
  });
});

describe('a batch named with another service or account', () => {
  it('refund batch, order export and order reconcile refuse before any request, naming both', async () => {
    const { acc, out, batch } = await boughtBatch();
    const other = await account(sb);
    const commands = [
      ['refund', 'batch', out, '--yes'],
      ['order', 'export', '--out', out, '--force'],
      ['order', 'reconcile', out],
    ];
    const original = readFileSync(out, 'utf8');
    for (const args of commands) {
      // Another base URL (nothing listens there: a request would fail with exit 1).
      const elsewhere = await cli({ ...acc.env, GIFTCODES_BASE_URL: 'http://127.0.0.1:9' }, args);
      expect(elsewhere.code, `${args.join(' ')}: ${elsewhere.stderr}`).toBe(2);
      expect(elsewhere.stderr).toContain(`batch ${batch} was bought at ${sb.url}`);
      expect(elsewhere.stderr).toContain('this run uses http://127.0.0.1:9');
      // Another key, same service.
      const otherKey = await cli(other.env, args);
      expect(otherKey.code, `${args.join(' ')}: ${otherKey.stderr}`).toBe(2);
      expect(otherKey.stderr).toContain(`batch ${batch} was bought at ${sb.url} with another API key`);
      expect(otherKey.stderr).toContain(`****${other.env.GIFTCODES_API_KEY?.slice(-4)}`);
      expect(otherKey.stderr).not.toContain(other.env.GIFTCODES_API_KEY);
    }
    expect(await refundEntries(acc.userId)).toHaveLength(0);
    expect(readFileSync(out, 'utf8')).toBe(original);
  });
});

describe('order reconcile', () => {
  it('reports a deleted code and unrefunded failures, and exit 0 once all is in order', async () => {
    const { acc, out, batch } = await boughtBatch();
    const before = await cli(acc.env, ['--json', 'order', 'reconcile', out]);
    expect(before.code).toBe(3);
    const kinds = new Set(JSON.parse(before.stdout).differences.map((d: { kind: string }) => d.kind));
    expect(kinds).toEqual(new Set(['failed-not-refunded']));

    expect((await cli(acc.env, ['refund', 'batch', out, '--yes'])).code).toBe(0);
    const clean = await cli(acc.env, ['order', 'reconcile', out]);
    expect(clean.code, clean.stdout + clean.stderr).toBe(0);
    expect(clean.stdout).toContain('all in order');

    // Delete one delivered code's line from the file.
    const text = readFileSync(out, 'utf8').split('\r\n');
    const victim = readCsvOutput(out).findIndex((r) => r.status === 'completed');
    const removed = readCsvOutput(out)[victim];
    text.splice(victim + 1, 1);
    writeFileSync(out, text.join('\r\n'));
    const res = await cli(acc.env, ['--json', 'order', 'reconcile', out]);
    expect(res.code).toBe(3);
    const report = JSON.parse(res.stdout);
    expect(report.inOrder).toBe(false);
    expect(report.differences).toEqual([
      expect.objectContaining({
        kind: 'code-missing-locally',
        checkoutId: removed?.checkoutId,
        row: Number(removed?.row),
        index: Number(removed?.index),
      }),
    ]);
    // The code itself never appears in the report.
    expect(res.stdout + res.stderr).not.toContain(removed?.cardCode.replace(/^'/, ''));
    const human = await cli(acc.env, ['order', 'reconcile', out]);
    expect(human.stderr).toContain(`giftcodes order export --batch ${batch} --out ${out} --force`);
    // The advice, run as printed, settles it.
    expect((await cli(acc.env, ['order', 'export', '--batch', batch, '--out', out, '--force'])).code).toBe(0);
    expect((await cli(acc.env, ['order', 'reconcile', out])).code).toBe(0);

    // By id alone, on a machine without the files: the service and the recorded refunds only.
    const moved = join(tempDir(), 'elsewhere.journal');
    renameSync(`${out}.journal`, moved);
    const byId = await cli(acc.env, ['order', 'reconcile', '--batch', batch]);
    expect(byId.stderr).toContain('no codes file named');
  });
});
