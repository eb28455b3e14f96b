/**
 * The journal's two files: a new plan (`PlanWriter`) is written to temporary files beside
 * the journal and its copy and only becomes the batch's journal once committed; a run's
 * records (`RunJournals`) reach both copies, byte for byte, whichever one was behind;
 * files are 0600 in a 0700 folder, and a link planted at the copy's path is refused.
 */
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  accountFingerprint,
  ensurePrivateDir,
  journalCopyPathFor,
  journalPathFor,
  removeStaleTemps,
} from '../../../src/bulk/store/files.js';
import {
  type BatchHeader,
  emptyState,
  JOURNAL_VERSION,
  type JournalRecord,
  loadJournal,
} from '../../../src/bulk/store/journal.js';
import { PlanWriter, RunJournals } from '../../../src/bulk/store/journal-writer.js';
import type { PlannedLine } from '../../../src/bulk/types.js';
import { UnsafeFileError } from '../../../src/errors.js';
import { tempDirFor } from '../../helpers/temp.js';
import { line, ordersIn, writeJournal } from './fixtures.js';

const header: BatchHeader = {
  batch: 'b1',
  input: 'a'.repeat(64),
  seal: false,
  at: 5,
  anchor: 'gc-b1-anchor',
};
const orders = [
  { ref: 'gc-b1-anchor', lines: [line(1)] },
  {
    ref: 'gc-b1-00001-abc',
    lines: [
      line(1, 2, { firstUnit: 2 }),
      line(2, 1, { productId: 'eur', skuId: 'eur-range', unitUsd: 20, requiredFields: { playerId: '42' } }),
    ],
  },
];
const submitted: JournalRecord[] = [
  { t: 'submit', ref: 'gc-b1-anchor', at: 6 },
  { t: 'created', ref: 'gc-b1-anchor', checkoutId: 'co_1', status: 'processing', at: 7 },
];

function paths() {
  const dir = tempDirFor('giftcodes-journals-');
  const journalPath = journalPathFor(join(dir, 'codes.csv'));
  const copyPath = journalCopyPathFor(join(dir, 'state'), 'acct', 'b1');
  return { dir, journalPath, copyPath };
}

const mode = (path: string) => statSync(path).mode & 0o777;
const bytes = (path: string) => readFileSync(path);
/** The temporary plan files in `dir`: what a plan not (yet) committed leaves. */
const temps = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((n) => n.endsWith('.tmp')) : []);
const recordsIn = (path: string) =>
  readFileSync(path, 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as JournalRecord);

/** A new plan of `list` written beside `journalPath` (and `copyPath`), not yet committed. */
async function planned(journalPath: string, copyPath: string | undefined, list = orders) {
  if (copyPath) await ensurePrivateDir(dirname(copyPath));
  const writer = await PlanWriter.open(journalPath, copyPath, header);
  for (const order of list) await writer.add(order);
  return writer;
}

describe('path helpers', () => {
  it('name the journal, the parts and the copy', () => {
    expect(journalPathFor('/o/codes.csv')).toBe('/o/codes.csv.journal');
    expect(journalCopyPathFor('/s', 'f00d', 'b1')).toBe(join('/s', 'batches', 'b1.f00d.journal'));
    expect(journalCopyPathFor('/s', undefined, 'b1')).toBe(join('/s', 'batches', 'b1.no-key.journal'));
  });

  it('fingerprint the account one way, per base URL and key', () => {
    const a = accountFingerprint('https://api.example', 'gk_live_secret');
    expect(a).toMatch(/^[0-9a-f]{12}$/);
    expect(a).not.toContain('secret');
    expect(accountFingerprint('https://api.example', 'gk_live_secret')).toBe(a);
    expect(accountFingerprint('https://sandbox.example', 'gk_live_secret')).not.toBe(a);
    expect(accountFingerprint('https://api.example', 'gk_live_other')).not.toBe(a);
    expect(accountFingerprint('https://api.example', undefined)).toBeUndefined();
  });
});

describe('PlanWriter', () => {
  it('commits a plan that loads back the same, header first and `planned` last, in both files', async () => {
    const { dir, journalPath, copyPath } = paths();
    const writer = await planned(journalPath, copyPath);
    // Until committed there is no journal, only temporary files beside both.
    expect(existsSync(journalPath)).toBe(false);
    expect(existsSync(copyPath)).toBe(false);
    expect(temps(dir)).toHaveLength(1);
    expect(temps(dirname(copyPath))).toHaveLength(1);
    expect(await writer.refs()).toEqual(new Set(orders.map((o) => o.ref)));
    const state = await writer.commit();
    expect(state.planComplete).toBe(true);
    expect(state.planOrders).toBe(2);
    expect(state.batch).toEqual({ t: 'batch', v: JOURNAL_VERSION, ...header });
    expect(temps(dir)).toEqual([]);
    expect(temps(dirname(copyPath))).toEqual([]);
    expect(bytes(copyPath)).toEqual(bytes(journalPath));

    const loaded = await loadJournal(journalPath);
    expect(loaded?.planComplete).toBe(true);
    expect(loaded?.batch).toEqual(state.batch);
    expect(ordersIn(journalPath, loaded ?? emptyState())).toEqual(
      orders.map((o) => ({ ref: o.ref, phase: 'planned', lines: o.lines })),
    );
    const records = recordsIn(journalPath);
    expect(records.map((r) => r.t)).toEqual(['batch', 'order', 'order', 'planned']);
    expect(records.at(-1)).toEqual({ t: 'planned', orders: 2 });
    expect(mode(journalPath)).toBe(0o600);
    expect(mode(copyPath)).toBe(0o600);
  });

  it('writes a plan larger than one chunk in full, and reads every line back exactly across its read chunks', async () => {
    const { journalPath } = paths();
    // Fractional amounts and prices, multi-byte refs and required fields: 20 lines an order.
    const exotic = (i: number): PlannedLine => ({
      row: i + 1,
      productId: `p${i % 3}`,
      skuId: `s${i % 4}`,
      amount: 0.1 + i / 100,
      quantity: 1 + (i % 7),
      firstUnit: 1 + (i % 5),
      unitUsd: 0.3 + i / 7,
      ...(i % 2 ? { requiredFields: { playerId: `Ω-${i}`, zone: 'eu' } } : {}),
      ...(i % 3 ? { ref: `ré-${i}` } : {}),
    });
    const many = Array.from({ length: 2_000 }, (_, o) => ({
      ref: `gc-b1-${o}-é`,
      lines: Array.from({ length: 20 }, (_, i) => exotic(o * 20 + i)),
    }));
    const writer = await planned(journalPath, undefined, many);
    const state = await writer.commit();
    // More than the megabyte the writer gathers before each write, and many of the walk's 256 KB reads.
    expect(statSync(journalPath).size).toBeGreaterThan(4 << 20);
    const loaded = await loadJournal(journalPath);
    expect(loaded?.planComplete).toBe(true);
    expect(loaded?.planOrders).toBe(2_000);
    expect(ordersIn(journalPath, state)).toEqual(many.map((o) => ({ ...o, phase: 'planned' })));
  });

  it("each order's view says what the journal last said of it: its phase, checkout, status, code or message", async () => {
    const { journalPath } = paths();
    const refs = ['gc-b1-anchor', 'gc-b1-00001-a', 'gc-b1-00002-b', 'gc-b1-00003-c'];
    await writeJournal(
      journalPath,
      header,
      refs.map((ref, i) => ({ ref, lines: [line(i + 1)] })),
      {
        more: [
          { t: 'submit', ref: 'gc-b1-anchor', at: 2 },
          { t: 'created', ref: 'gc-b1-anchor', checkoutId: 'co_anchor', status: 'processing', at: 3 },
          { t: 'created', ref: 'gc-b1-anchor', checkoutId: 'co_anchor', status: 'completed', at: 4 },
          { t: 'unknown', ref: 'gc-b1-00001-a', reason: 'socket hang up', at: 5 },
          {
            t: 'rejected',
            ref: 'gc-b1-00002-b',
            code: 'INVALID_AMOUNT',
            message: 'amount out of range',
            at: 6,
            i: 2,
          },
        ],
      },
    );
    const state = await loadJournal(journalPath);
    // Only the orders still open are held in memory; the refused one is settled in its place.
    expect([...(state?.open.keys() ?? [])]).toEqual(['gc-b1-anchor', 'gc-b1-00001-a']);
    expect(state?.settled[2]).toBeDefined();
    expect(
      ordersIn(journalPath, state ?? emptyState()).map((o) => [
        o.ref,
        o.phase,
        o.checkoutId,
        o.status,
        o.code,
        o.message,
      ]),
    ).toEqual([
      ['gc-b1-anchor', 'created', 'co_anchor', 'completed', undefined, undefined],
      ['gc-b1-00001-a', 'unknown', undefined, undefined, undefined, 'socket hang up'],
      ['gc-b1-00002-b', 'rejected', undefined, undefined, 'INVALID_AMOUNT', 'amount out of range'],
      ['gc-b1-00003-c', 'planned', undefined, undefined, undefined, undefined],
    ]);
  });

  it('a plan discarded (declined, or failed) leaves nothing, and an older journal as it was', async () => {
    const { dir, journalPath, copyPath } = paths();
    await writeJournal(journalPath, { ...header, batch: 'b0' }, orders);
    const before = bytes(journalPath);
    const writer = await planned(journalPath, copyPath);
    await writer.discard();
    expect(temps(dir)).toEqual([]);
    expect(temps(dirname(copyPath))).toEqual([]);
    expect(existsSync(copyPath)).toBe(false);
    expect(bytes(journalPath)).toEqual(before);
  });

  it('a new plan over one an earlier version tore in place replaces both files whole', async () => {
    const { journalPath, copyPath } = paths();
    await writeJournal(journalPath, header, orders, { torn: true });
    await writeJournal(copyPath, header, orders, { torn: true });
    expect((await loadJournal(journalPath))?.planComplete).toBe(false);
    const writer = await planned(journalPath, copyPath, orders.slice(0, 1));
    await writer.commit();
    expect(bytes(copyPath)).toEqual(bytes(journalPath));
    const loaded = await loadJournal(journalPath);
    expect(ordersIn(journalPath, loaded ?? emptyState()).map((o) => o.ref)).toEqual(['gc-b1-anchor']);
    expect(loaded?.planComplete).toBe(true);
  });

  it('the temporary plans a killed run left are removed by the next (only those, only its own files)', async () => {
    const { dir, journalPath } = paths();
    writeFileSync(`${journalPath}.0123456789abcdef.tmp`, 'a killed plan');
    writeFileSync(`${journalPath}.not-hex.tmp`, 'not a plan of ours');
    writeFileSync(join(dir, 'other.0123456789abcdef.tmp'), 'another file');
    mkdirSync(`${journalPath}.fedcba9876543210.tmp`);
    await removeStaleTemps(journalPath);
    expect(temps(dir).sort()).toEqual(
      [
        'codes.csv.journal.fedcba9876543210.tmp',
        'codes.csv.journal.not-hex.tmp',
        'other.0123456789abcdef.tmp',
      ].sort(),
    );
  });
});

describe('RunJournals', () => {
  it('a new plan: both copies identical after every record, each folded in with its place; files 0600, the copy folder 0700', async () => {
    const { journalPath, copyPath } = paths();
    const state = await (await planned(journalPath, copyPath)).commit();
    const journals = await RunJournals.open(journalPath, copyPath, { state });
    expect(journals.state).toBe(state);
    await journals.record(submitted[0] as JournalRecord);
    await Promise.all([
      journals.record(submitted[1] as JournalRecord),
      journals.record({
        t: 'done',
        ref: 'gc-b1-anchor',
        i: 0,
        checkoutId: 'co_1',
        status: 'completed',
        spent: [],
        records: [],
      }),
      journals.record({ t: 'stop', reason: 'x', at: 8 }),
    ]);
    await journals.close();
    expect(bytes(copyPath)).toEqual(bytes(journalPath));
    expect(bytes(journalPath).toString()).toContain('"t":"stop"');
    // The done record settled the anchor in its place: read back there, it is the anchor's.
    expect(ordersIn(journalPath, state)[0]).toMatchObject({
      phase: 'created',
      checkoutId: 'co_1',
      status: 'completed',
    });
    expect(state.open.has('gc-b1-anchor')).toBe(false);
    expect(mode(journalPath)).toBe(0o600);
    expect(mode(copyPath)).toBe(0o600);
    expect(mode(dirname(copyPath))).toBe(0o700);
  });

  it('a resumed journal: a copy that is behind is first made a copy of it', async () => {
    const { journalPath, copyPath } = paths();
    await writeJournal(journalPath, header, orders, { more: submitted });
    await writeJournal(copyPath, header, orders);
    const state = await loadJournal(journalPath);
    const journals = await RunJournals.open(journalPath, copyPath, { ...(state ? { state } : {}) });
    expect(bytes(copyPath)).toEqual(bytes(journalPath));
    await journals.record({ t: 'output', sha256: 'f'.repeat(64) });
    await journals.close();
    expect(bytes(copyPath)).toEqual(bytes(journalPath));
    const copy = await loadJournal(copyPath);
    expect(ordersIn(copyPath, copy ?? emptyState())[0]?.phase).toBe('created');
  });

  it('resuming from the copy: the journal beside --out is made from it (gone, or behind)', async () => {
    for (const beside of ['gone', 'behind'] as const) {
      const { journalPath, copyPath } = paths();
      await writeJournal(copyPath, header, orders, { more: submitted });
      if (beside === 'behind') await writeJournal(journalPath, header, orders);
      const state = await loadJournal(copyPath);
      const journals = await RunJournals.open(journalPath, copyPath, {
        fromCopy: true,
        ...(state ? { state } : {}),
      });
      expect(bytes(journalPath)).toEqual(bytes(copyPath));
      await journals.record({ t: 'stop', reason: 'cap', at: 9 });
      await journals.close();
      expect(bytes(journalPath)).toEqual(bytes(copyPath));
      expect(mode(journalPath)).toBe(0o600);
      // The places the copy's state holds are the journal's too.
      expect(ordersIn(journalPath, state ?? emptyState())[0]?.phase).toBe('created');
    }
  });

  it('a torn last line is cut from the journal as it is loaded, and the run appends after it', async () => {
    const { journalPath, copyPath } = paths();
    await writeJournal(journalPath, header, orders, { more: submitted });
    const whole = bytes(journalPath);
    writeFileSync(journalPath, Buffer.concat([whole, Buffer.from('{"t":"submit","ref":"gc-b1-000')]));
    const state = await loadJournal(journalPath);
    expect(bytes(journalPath)).toEqual(whole);
    const journals = await RunJournals.open(journalPath, copyPath, { ...(state ? { state } : {}) });
    await journals.record({ t: 'submit', ref: 'gc-b1-00001-abc', at: 10 });
    await journals.close();
    expect(bytes(copyPath)).toEqual(bytes(journalPath));
    const again = await loadJournal(journalPath);
    expect(ordersIn(journalPath, again ?? emptyState()).map((o) => o.phase)).toEqual([
      'created',
      'submitted',
    ]);
  });

  it('narrows a copy folder the user made wider', async () => {
    const { copyPath } = paths();
    mkdirSync(dirname(copyPath), { recursive: true, mode: 0o755 });
    chmodSync(dirname(copyPath), 0o755);
    await ensurePrivateDir(dirname(copyPath));
    expect(mode(dirname(copyPath))).toBe(0o700);
  });

  it('refuses a link planted at the copy path, leaving its target alone', async () => {
    const { dir, journalPath, copyPath } = paths();
    await writeJournal(journalPath, header, orders);
    mkdirSync(dirname(copyPath), { recursive: true, mode: 0o700 });
    const target = join(dir, 'victim.txt');
    writeFileSync(target, 'precious\n');
    symlinkSync(target, copyPath);
    const error = await RunJournals.open(journalPath, copyPath, { state: emptyState() }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UnsafeFileError);
    expect((error as Error).message).toContain(copyPath);
    expect(readFileSync(target, 'utf8')).toBe('precious\n');
    await expect(loadJournal(copyPath)).rejects.toThrow(`${copyPath} is a symbolic link`);
  });

  it('refuses a copy folder that is a link', async () => {
    const { dir, journalPath, copyPath } = paths();
    await writeJournal(journalPath, header, orders);
    const elsewhere = join(dir, 'elsewhere');
    mkdirSync(elsewhere, { mode: 0o700 });
    mkdirSync(dirname(dirname(copyPath)), { recursive: true });
    symlinkSync(elsewhere, dirname(copyPath));
    await expect(RunJournals.open(journalPath, copyPath, { state: emptyState() })).rejects.toThrow(
      /is a symbolic link/,
    );
    expect(existsSync(join(elsewhere, 'b1.acct.journal'))).toBe(false);
  });
});
