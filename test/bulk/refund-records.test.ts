/**
 * Issue 23: refund records are records of the batch's journal, written through the
 * store (`BatchJournal`) to the journal and its copy and folded by the journal's one
 * fold. Here on files alone (the sandbox tests are test/batch/refund-journal.test.ts):
 * the fold, the journal and its copy brought level when one is behind or each holds
 * records the other lacks, a refund log of an earlier version carried in once, and the
 * refund journal of a batch without one created like every companion file.
 */
import { existsSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type BatchFiles,
  BatchJournal,
  type JournalRecord,
  type RefundRecord,
  readBatchRefunds,
} from '../../src/bulk/store/index.js';
import { parseJournal } from '../../src/bulk/store/journal.js';
import { foldRefund, type RefundState, refundSummary } from '../../src/bulk/store/refunds.js';
import { JournalDamagedError } from '../../src/errors.js';
import { tempDirFor } from '../helpers/temp.js';
import { journalOrders, journalState, writeJournal } from './journal-view.js';

const BATCH = 'b1';
const intent = (checkoutId: string, at = 1): RefundRecord => ({
  t: 'refund-intent',
  batch: BATCH,
  checkoutId,
  ref: `gc-${BATCH}-anchor`,
  at,
});
const answer = (checkoutId: string, refundId = `rfd_${checkoutId}`): RefundRecord => ({
  t: 'refund-answer',
  batch: BATCH,
  checkoutId,
  refundId,
  status: 'completed',
  httpStatus: 201,
  totalAmount: 20,
  currency: 'USD',
  at: 2,
});
const refused = (checkoutId: string, outcome = 'not-applied'): RefundRecord => ({
  t: 'refund-error',
  batch: BATCH,
  checkoutId,
  code: 'VALIDATION_ERROR',
  message: 'no',
  outcome,
  at: 3,
});

/** A bought batch's journal: header, one order, the plan, its creation. */
function plan(): JournalRecord[] {
  return [
    { t: 'batch', v: 3, batch: BATCH, input: 'sha-in', seal: false, at: 0, anchor: `gc-${BATCH}-anchor` },
    {
      t: 'order',
      ref: `gc-${BATCH}-anchor`,
      lines: [{ row: 1, productId: 'prd', skuId: 'sku', amount: 20, quantity: 1, ref: 'R1' }],
    } as JournalRecord,
    { t: 'planned', orders: 1 },
    { t: 'created', ref: `gc-${BATCH}-anchor`, checkoutId: 'chk_a', status: 'partial', at: 1 },
  ];
}

const lines = (records: readonly JournalRecord[]) => records.map((r) => `${JSON.stringify(r)}\n`).join('');

function folder() {
  const dir = tempDirFor('giftcodes-refund-records-');
  const files: BatchFiles = {
    journal: join(dir, 'codes.csv.journal'),
    copy: join(dir, 'state', 'batches', `${BATCH}.acct.journal`),
    refunds: join(dir, 'config', 'batches', `${BATCH}.refunds.journal`),
    legacy: [join(dir, 'codes.csv.refunds'), join(dir, 'config', 'batches', `${BATCH}.refunds`)],
  };
  return { dir, files };
}

const notices: string[] = [];
const deps = { now: () => 1_700_000_000_000, notice: (line: string) => notices.push(line) };
const refundsOf = (path: string) => parseJournal(readFileSync(path, 'utf8'), path).state.refunds;

describe('the fold of refund records', () => {
  it('an answer is kept, an intent without one is unknown, a refusal may be asked again', () => {
    const states = new Map<string, RefundState>();
    for (const r of [intent('a'), answer('a'), intent('b'), intent('c'), refused('c')]) foldRefund(states, r);
    expect(states.get('a')?.answer?.refundId).toBe('rfd_a');
    expect(states.get('b')?.unknown).toBe(true);
    expect(states.get('c')?.unknown).toBe(false);
  });

  it('the summary carried after any records never clears an answer or an unknown, and twice changes nothing', () => {
    const older = new Map<string, RefundState>();
    for (const r of [intent('a'), answer('a'), intent('b')]) foldRefund(older, r);
    // Newer records elsewhere: b refused since (that refusal does not prove the lost request did nothing).
    const states = new Map<string, RefundState>();
    for (const r of [intent('b'), refused('b'), intent('a'), refused('a', 'maybe-applied')])
      foldRefund(states, r);
    for (const r of refundSummary(older)) foldRefund(states, r);
    const once = JSON.stringify([...states]);
    for (const r of refundSummary(older)) foldRefund(states, r);
    expect(JSON.stringify([...states])).toBe(once);
    expect(states.get('a')?.answer?.refundId).toBe('rfd_a');
    expect(states.get('b')?.unknown).toBe(true);
  });

  it('refund records leave the orders of the journal as they are', () => {
    const path = writeJournal([...plan(), intent('chk_a'), answer('chk_a')]);
    const state = journalState(path);
    expect(state.planOrders).toBe(1);
    expect(journalOrders(path).map((o) => [o.ref, o.phase, o.checkoutId])).toEqual([
      [`gc-${BATCH}-anchor`, 'created', 'chk_a'],
    ]);
    expect(state.refunds.get('chk_a')?.answer?.refundId).toBe('rfd_chk_a');
  });
});

describe('BatchJournal: the journal and its copy', () => {
  it('appends each record to both, durable before it resolves', async () => {
    const { files } = folder();
    writeFileSync(files.journal as string, lines(plan()), { mode: 0o600 });
    const journal = await BatchJournal.open(files, deps);
    await journal.record(intent('chk_a'));
    expect(readFileSync(files.copy as string, 'utf8')).toBe(readFileSync(files.journal as string, 'utf8'));
    expect(refundsOf(files.copy as string).get('chk_a')?.unknown).toBe(true);
    await journal.record(answer('chk_a'));
    await journal.close();
    expect(journal.refund('chk_a')?.answer?.refundId).toBe('rfd_chk_a');
    expect(readFileSync(files.copy as string, 'utf8')).toBe(readFileSync(files.journal as string, 'utf8'));
    expect(statSync(files.copy as string).mode & 0o777).toBe(0o600);
  });

  it('the journal behind its copy (refund records only in the copy): made level, the refunds honoured', async () => {
    const { files } = folder();
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(files.copy as string, '..'), { recursive: true, mode: 0o700 });
    writeFileSync(files.journal as string, lines(plan()), { mode: 0o600 });
    writeFileSync(files.copy as string, lines([...plan(), intent('chk_a'), answer('chk_a')]), {
      mode: 0o600,
    });
    const journal = await BatchJournal.open(files, deps);
    await journal.close();
    expect(journal.refund('chk_a')?.answer?.refundId).toBe('rfd_chk_a');
    expect(readFileSync(files.journal as string, 'utf8')).toBe(readFileSync(files.copy as string, 'utf8'));
  });

  it('the copy behind the journal: made level from it', async () => {
    const { files } = folder();
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(files.copy as string, '..'), { recursive: true, mode: 0o700 });
    writeFileSync(files.journal as string, lines([...plan(), intent('chk_a')]), { mode: 0o600 });
    writeFileSync(files.copy as string, lines(plan()), { mode: 0o600 });
    const journal = await BatchJournal.open(files, deps);
    await journal.close();
    expect(journal.refund('chk_a')?.unknown).toBe(true);
    expect(readFileSync(files.copy as string, 'utf8')).toBe(readFileSync(files.journal as string, 'utf8'));
  });

  it('each holding records the other lacks (an output beside the file, refunds in the copy): both end with all', async () => {
    const { files } = folder();
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(files.copy as string, '..'), { recursive: true, mode: 0o700 });
    writeFileSync(files.journal as string, lines([...plan(), { t: 'output', sha256: 'sha-out' }]), {
      mode: 0o600,
    });
    writeFileSync(
      files.copy as string,
      lines([...plan(), intent('chk_a'), answer('chk_a'), intent('chk_b')]),
      {
        mode: 0o600,
      },
    );
    const journal = await BatchJournal.open(files, deps);
    await journal.close();
    expect(journal.refund('chk_a')?.answer?.refundId).toBe('rfd_chk_a');
    expect(journal.refund('chk_b')?.unknown).toBe(true);
    const text = readFileSync(files.journal as string, 'utf8');
    expect(readFileSync(files.copy as string, 'utf8')).toBe(text);
    const state = parseJournal(text).state;
    expect(state.outputs.has('sha-out')).toBe(true);
    expect(state.refunds.get('chk_b')?.unknown).toBe(true);
    expect(notices.at(-1)).toContain('each held records the other lacked');
  });

  it("copies whose ends both hold orders' records that differ are refused as damaged, naming both, left as they are", async () => {
    const { files } = folder();
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(files.copy as string, '..'), { recursive: true, mode: 0o700 });
    const one = lines([...plan(), { t: 'submit', ref: 'gc-b1-00001-0123456789', at: 5 }]);
    const two = lines([...plan(), { t: 'unknown', ref: 'gc-b1-00001-0123456789', reason: 'lost', at: 6 }]);
    writeFileSync(files.journal as string, one, { mode: 0o600 });
    writeFileSync(files.copy as string, two, { mode: 0o600 });
    const opening = BatchJournal.open(files, deps);
    await expect(opening).rejects.toBeInstanceOf(JournalDamagedError);
    await expect(opening).rejects.toThrow(
      `${files.copy} is damaged from byte ${Buffer.byteLength(lines(plan()))}`,
    );
    expect(readFileSync(files.journal as string, 'utf8')).toBe(one);
    expect(readFileSync(files.copy as string, 'utf8')).toBe(two);
  });
});

describe('BatchJournal: refunds recorded elsewhere are carried in once', () => {
  it("an earlier version's refund log: its answers and unknowns kept, the file set aside; carried twice, nothing changes", async () => {
    const { dir, files } = folder();
    writeFileSync(files.journal as string, lines(plan()), { mode: 0o600 });
    const legacy = files.legacy[0] as string;
    const old = [
      { t: 'intent', batch: BATCH, checkoutId: 'chk_a', ref: 'r', at: 1 },
      {
        t: 'answer',
        batch: BATCH,
        checkoutId: 'chk_a',
        refundId: 'rfd_1',
        status: 'completed',
        httpStatus: 201,
        at: 2,
      },
      { t: 'intent', batch: BATCH, checkoutId: 'chk_b', ref: 'r', at: 3 },
      { t: 'intent', batch: BATCH, checkoutId: 'chk_c', ref: 'r', at: 4 },
      {
        t: 'error',
        batch: BATCH,
        checkoutId: 'chk_c',
        code: 'X',
        message: 'no',
        outcome: 'not-applied',
        at: 5,
      },
    ];
    const text = old.map((r) => `${JSON.stringify(r)}\n`).join('');
    writeFileSync(legacy, text, { mode: 0o600 });
    const journal = await BatchJournal.open(files, deps);
    await journal.close();
    expect(journal.refund('chk_a')?.answer?.refundId).toBe('rfd_1');
    expect(journal.refund('chk_b')?.unknown).toBe(true);
    expect(journal.refund('chk_c')?.unknown ?? false).toBe(false);
    expect(existsSync(legacy)).toBe(false);
    expect(readdirSync(dir)).toContain(`codes.csv.refunds.${deps.now()}.migrated`);
    const after = readFileSync(files.journal as string, 'utf8');
    expect(readFileSync(files.copy as string, 'utf8')).toBe(after);

    // A crash before the log was set aside: it is carried again, and the fold says the same.
    writeFileSync(legacy, text, { mode: 0o600 });
    const again = await BatchJournal.open(files, { ...deps, now: () => deps.now() + 1 });
    await again.close();
    const states = refundsOf(files.journal as string);
    expect(states.get('chk_a')?.answer?.refundId).toBe('rfd_1');
    expect(states.get('chk_b')?.unknown).toBe(true);
    expect(states.get('chk_c')).toBeUndefined();
  });

  it('a batch without a journal records in its refund journal, which is carried into the journal once there is one', async () => {
    const { files } = folder();
    const accountOnly: BatchFiles = { refunds: files.refunds, legacy: files.legacy };
    const first = await BatchJournal.open(accountOnly, deps);
    await first.record(intent('chk_a'));
    await first.record(answer('chk_a'));
    await first.close();
    expect(first.paths).toEqual([files.refunds]);
    expect(statSync(files.refunds).mode & 0o777).toBe(0o600);

    writeFileSync(files.journal as string, lines(plan()), { mode: 0o600 });
    // Read without writing: every file of the batch, nothing moved.
    expect((await readBatchRefunds(files)).get('chk_a')?.answer?.refundId).toBe('rfd_chk_a');
    expect(existsSync(files.refunds)).toBe(true);
    const journal = await BatchJournal.open(files, deps);
    await journal.close();
    expect(journal.refund('chk_a')?.answer?.refundId).toBe('rfd_chk_a');
    expect(existsSync(files.refunds)).toBe(false);
    expect(refundsOf(files.copy as string).get('chk_a')?.answer?.refundId).toBe('rfd_chk_a');
  });

  it('refuses a symbolic link planted at the refund journal and leaves its target untouched', async () => {
    const { dir, files } = folder();
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(files.refunds, '..'), { recursive: true, mode: 0o700 });
    const target = join(dir, 'precious.txt');
    writeFileSync(target, 'precious');
    symlinkSync(target, files.refunds);
    await expect(BatchJournal.open({ refunds: files.refunds, legacy: [] }, deps)).rejects.toThrow(
      /symbolic link/,
    );
    expect(readFileSync(target, 'utf8')).toBe('precious');
  });

  it('a refund journal damaged before its last line: JournalDamagedError naming it, with the remedy that keeps its refunds', async () => {
    const { files } = folder();
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(files.refunds, '..'), { recursive: true, mode: 0o700 });
    const good = lines([intent('chk_a')]);
    writeFileSync(files.refunds, `${good}${'#'.repeat(10)}\n${lines([answer('chk_a')])}`, { mode: 0o600 });
    const damaged = `${files.refunds} is damaged at byte ${Buffer.byteLength(good)}`;
    const accountOnly: BatchFiles = { refunds: files.refunds, legacy: [] };
    for (const open of [() => BatchJournal.open(accountOnly, deps), () => readBatchRefunds(accountOnly)]) {
      const opening = open();
      await expect(opening).rejects.toBeInstanceOf(JournalDamagedError);
      await expect(opening).rejects.toThrow(damaged);
      await expect(opening).rejects.toThrow('fix or remove that line by hand');
    }
  });
});
