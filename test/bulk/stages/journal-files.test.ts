/**
 * The journal's two files: the plan written by writePlan loads back the same, both
 * copies hold the same bytes after every append whichever one was behind, files are
 * 0600 in a 0700 folder, and a link planted at the copy's path is refused.
 */
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  apply,
  emptyState,
  JOURNAL_VERSION,
  type JournalRecord,
  type JournalState,
  linesOf,
  loadJournal,
} from '../../../src/bulk/store/journal.js';
import {
  accountFingerprint,
  type BatchHeader,
  journalCopyPathFor,
  journalPathFor,
  openJournals,
  partsPathFor,
  readJournalCopy,
  writePlan,
} from '../../../src/bulk/store/journal-files.js';
import { ensurePrivateDir } from '../../../src/bulk/store/safe-files.js';
import { UnsafeFileError } from '../../../src/errors.js';
import { tempDirFor } from '../../helpers/temp.js';
import { line, rootRefs, writeJournal } from './fixtures.js';

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

function planState(list = orders): JournalState {
  const state = emptyState();
  for (const o of list) apply(state, { t: 'order', ref: o.ref, lines: o.lines });
  return state;
}

const mode = (path: string) => statSync(path).mode & 0o777;
const bytes = (path: string) => readFileSync(path);

describe('path helpers', () => {
  it('name the journal, the parts and the copy', () => {
    expect(journalPathFor('/o/codes.csv')).toBe('/o/codes.csv.journal');
    expect(partsPathFor('/o/codes.csv')).toBe('/o/codes.csv.parts');
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

describe('writePlan', () => {
  it('writes a plan that loads back the same, header first and `planned` last', async () => {
    const { journalPath } = paths();
    const state = planState();
    const writer = await openJournals(journalPath, 'create', undefined, undefined);
    await writePlan(writer, state, header);
    await writer.close();
    expect(state.planComplete).toBe(true);
    expect(state.batch).toEqual({ t: 'batch', v: JOURNAL_VERSION, ...header });

    const loaded = await loadJournal(journalPath);
    expect(loaded?.planComplete).toBe(true);
    expect(loaded?.batch).toEqual(state.batch);
    expect(rootRefs(loaded)).toEqual(rootRefs(state));
    for (const ref of rootRefs(state)) {
      const a = state.orders.get(ref);
      const b = loaded?.orders.get(ref);
      expect(a && b && loaded ? linesOf(loaded, b) : undefined).toEqual(a ? linesOf(state, a) : 'missing');
    }
    const lines = readFileSync(journalPath, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.t)).toEqual(['batch', 'order', 'order', 'planned']);
    expect(lines.at(-1)).toEqual({ t: 'planned', orders: 2 });
  });

  it('writes a plan larger than one chunk in full', async () => {
    const { journalPath } = paths();
    const many = Array.from({ length: 2_500 }, (_, i) => ({ ref: `gc-b1-${i}`, lines: [line(i + 1)] }));
    const state = planState(many);
    const writer = await openJournals(journalPath, 'create', undefined, undefined);
    await writePlan(writer, state, header);
    await writer.close();
    const loaded = await loadJournal(journalPath);
    expect(loaded?.planComplete).toBe(true);
    expect(rootRefs(loaded)).toEqual(many.map((o) => o.ref));
    const last = loaded?.orders.get('gc-b1-2499');
    expect(last && loaded ? linesOf(loaded, last)[0]?.row : undefined).toBe(2_500);
  });
});

describe('openJournals', () => {
  it('a new plan: both copies identical after every append, files 0600, the copy folder 0700', async () => {
    const { journalPath, copyPath } = paths();
    const writer = await openJournals(journalPath, 'create', { path: copyPath, size: -1 }, copyPath);
    await writePlan(writer, planState(), header);
    expect(bytes(copyPath)).toEqual(bytes(journalPath));
    await writer.append(submitted[0] as JournalRecord);
    await Promise.all([
      writer.append(submitted[1] as JournalRecord),
      writer.append({ t: 'stop', reason: 'x', at: 8 }),
    ]);
    await writer.close();
    expect(bytes(copyPath)).toEqual(bytes(journalPath));
    expect(bytes(journalPath).toString()).toContain('"t":"stop"');
    expect(mode(journalPath)).toBe(0o600);
    expect(mode(copyPath)).toBe(0o600);
    expect(mode(dirname(copyPath))).toBe(0o700);
  });

  it('a resumed journal: a copy that is behind is first made a copy of it', async () => {
    const { journalPath, copyPath } = paths();
    await writeJournal(journalPath, header, orders, { more: submitted });
    await writeJournal(copyPath, header, orders);
    const writer = await openJournals(journalPath, 'append', { path: copyPath, size: 1 }, copyPath);
    expect(bytes(copyPath)).toEqual(bytes(journalPath));
    await writer.append({ t: 'output', sha256: 'f'.repeat(64) });
    await writer.close();
    expect(bytes(copyPath)).toEqual(bytes(journalPath));
    expect((await loadJournal(copyPath))?.orders.get('gc-b1-anchor')?.phase).toBe('created');
  });

  it('resuming from the copy: the journal beside --out is rewritten from it', async () => {
    const { journalPath, copyPath } = paths();
    await writeJournal(copyPath, header, orders, { more: submitted });
    const copy = await readJournalCopy(copyPath, { outSize: -1 });
    expect(copy.state).toBeDefined();
    expect(existsSync(journalPath)).toBe(false);
    const writer = await openJournals(journalPath, 'append', copy, copyPath);
    expect(bytes(journalPath)).toEqual(bytes(copyPath));
    await writer.append({ t: 'stop', reason: 'cap', at: 9 });
    await writer.close();
    // The copy's lines stay on disk behind a descriptor the caller closes (the engine does).
    await copy.state?.disk?.close();
    expect(bytes(journalPath)).toEqual(bytes(copyPath));
    expect(mode(journalPath)).toBe(0o600);
  });

  it('a new plan over a torn one truncates both', async () => {
    const { journalPath, copyPath } = paths();
    await writeJournal(journalPath, header, orders, { torn: true });
    await writeJournal(copyPath, header, orders, { torn: true });
    const copy = await readJournalCopy(copyPath, { outSize: -1 });
    const writer = await openJournals(journalPath, 'truncate', copy, copyPath);
    await writePlan(writer, planState(orders.slice(0, 1)), header);
    await writer.close();
    expect(bytes(copyPath)).toEqual(bytes(journalPath));
    const loaded = await loadJournal(journalPath);
    expect(rootRefs(loaded)).toEqual(['gc-b1-anchor']);
    expect(loaded?.planComplete).toBe(true);
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
    mkdirSync(dirname(copyPath), { recursive: true, mode: 0o700 });
    const target = join(dir, 'victim.txt');
    writeFileSync(target, 'precious\n');
    symlinkSync(target, copyPath);
    const error = await openJournals(journalPath, 'create', undefined, copyPath).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UnsafeFileError);
    expect((error as Error).message).toContain(copyPath);
    expect(readFileSync(target, 'utf8')).toBe('precious\n');
    await expect(readJournalCopy(copyPath, { outSize: -1 })).rejects.toThrow(
      `${copyPath} is a symbolic link`,
    );
  });

  it('refuses a copy folder that is a link', async () => {
    const { dir, journalPath, copyPath } = paths();
    const elsewhere = join(dir, 'elsewhere');
    mkdirSync(elsewhere, { mode: 0o700 });
    mkdirSync(dirname(dirname(copyPath)), { recursive: true });
    symlinkSync(elsewhere, dirname(copyPath));
    await expect(openJournals(journalPath, 'create', undefined, copyPath)).rejects.toThrow(
      /is a symbolic link/,
    );
    expect(existsSync(join(elsewhere, 'b1.acct.journal'))).toBe(false);
  });
});
