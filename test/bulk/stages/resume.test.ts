/**
 * chooseJournal: fresh run or resume, from the journal beside --out or its copy in the
 * state directory; and every journal it must refuse (another batch, input, key or
 * --seal) refused before any request. Journals are written as a run writes them.
 */
import { existsSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chooseJournal } from '../../../src/bulk/run/resume.js';
import type { BulkOptions, JournalChoice } from '../../../src/bulk/run-types.js';
import { journalCopyPathFor, journalPathFor } from '../../../src/bulk/store/files.js';
import type { BatchHeader, JournalRecord } from '../../../src/bulk/store/journal.js';
import { lockPathFor } from '../../../src/bulk/store/lock.js';
import { UsageError } from '../../../src/errors.js';
import { tempDirFor } from '../../helpers/temp.js';
import { line, options, ordersIn, parsedInput, writeJournal } from './fixtures.js';

const SHA = 'a'.repeat(64);
const OTHER_SHA = 'b'.repeat(64);
const ACCOUNT = 'acct00000001';

const header = (extra: Partial<BatchHeader> = {}): BatchHeader => ({
  batch: 'b1',
  input: SHA,
  seal: false,
  at: 1,
  account: ACCOUNT,
  anchor: 'gc-b1-anchor',
  ...extra,
});
const orders = [
  { ref: 'gc-b1-anchor', lines: [line(1)] },
  { ref: 'gc-b1-00001-abc', lines: [line(1, 1, { firstUnit: 2 }), line(2, 2)] },
];
const anchorBought: JournalRecord[] = [
  { t: 'submit', ref: 'gc-b1-anchor', at: 2 },
  { t: 'created', ref: 'gc-b1-anchor', checkoutId: 'co_9', status: 'completed', at: 3 },
];

/** Every order of the chosen journal as its own file says (the one resumed from: the journal, or the copy). */
function ordersOf(choice: JournalChoice) {
  const path = choice.fromCopy ? choice.copyPath : choice.journalPath;
  if (!choice.journal || !path) return [];
  return ordersIn(path, choice.journal);
}

function setup(extra: Partial<BulkOptions> = {}) {
  const dir = tempDirFor('giftcodes-resume-');
  const out = join(dir, 'codes.csv');
  const stateDir = join(dir, 'state');
  const opts = options(out, { stateDir, accountFingerprint: ACCOUNT, ...extra });
  const copyPath = journalCopyPathFor(stateDir, ACCOUNT, 'b1');
  const notices: string[] = [];
  const locks: Array<[string, string]> = [];
  const choose = (o: BulkOptions = opts, sha = SHA) =>
    chooseJournal(o, parsedInput('b1', sha), { notice: (l) => notices.push(l) }, async (path, batch) => {
      locks.push([path, batch]);
    });
  return { dir, out, opts, journalPath: journalPathFor(out), copyPath, notices, locks, choose };
}

async function refusal(promise: Promise<unknown>): Promise<UsageError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UsageError);
  return error as UsageError;
}

describe('chooseJournal: the journal beside --out', () => {
  it('plans afresh without a journal or copy, after taking the copy lock of the batch', async () => {
    const s = setup();
    const choice = await s.choose();
    expect(choice.journal).toBeUndefined();
    expect(choice.journalPath).toBe(s.journalPath);
    expect(choice.copyPath).toBe(s.copyPath);
    expect(choice.fromCopy).toBe(false);
    expect(existsSync(s.copyPath)).toBe(false);
    expect(s.locks).toEqual([[lockPathFor(s.copyPath), 'b1']]);
    expect(s.notices).toEqual([]);
  });

  it('without a state directory there is no copy and no copy lock', async () => {
    const s = setup({ stateDir: undefined });
    const choice = await s.choose();
    expect(choice.copyPath).toBeUndefined();
    expect(choice.fromCopy).toBe(false);
    expect(s.locks).toEqual([]);
  });

  it('resumes the journal of the same batch, input, key and --seal', async () => {
    const s = setup();
    await writeJournal(s.journalPath, header(), orders, { more: anchorBought });
    const choice = await s.choose();
    expect(ordersOf(choice).map((o) => [o.ref, o.phase])).toEqual([
      ['gc-b1-anchor', 'created'],
      ['gc-b1-00001-abc', 'planned'],
    ]);
    expect(choice.displaced).toBeUndefined();
    expect(choice.fromCopy).toBe(false);
  });

  it('refuses the same batch bought with the other --seal', async () => {
    const s = setup();
    await writeJournal(s.journalPath, header({ seal: true }), orders);
    const error = await refusal(s.choose());
    expect(error.message).toContain('is batch b1 bought with --seal: resume it with --seal');
  });

  it('refuses another batch that bought nothing, offering --force', async () => {
    const s = setup();
    await writeJournal(s.journalPath, header({ batch: 'b0' }), orders);
    const error = await refusal(s.choose());
    expect(error.message).toContain('belongs to another batch (b0, from another input file or --batch)');
    expect(error.message).toContain('which bought nothing: use another --out, or --force to start over');
  });

  it('refuses another batch that bought, naming what it bought and never advising --force', async () => {
    const s = setup();
    await writeJournal(s.journalPath, header({ batch: 'b0' }), orders, {
      more: [
        { t: 'submit', ref: 'gc-b1-anchor', at: 2 },
        { t: 'created', ref: 'gc-b1-anchor', checkoutId: 'co_9', status: 'completed', at: 3 },
        { t: 'submit', ref: 'gc-b1-00001-abc', at: 4 },
      ],
    });
    const error = await refusal(s.choose());
    expect(error.message).toContain('batch b0 already bought rows 1-2 (4 units in 2 orders: co_9');
    expect(error.message).toContain('1 of them with an unknown outcome');
    expect(error.message).toContain(
      'Running this file here would buy those rows again. To buy only rows that are new, put them in a file of their own and run it with another --out; keep this output and its journal',
    );
    expect(error.message).not.toContain('--force');
  });

  it('refuses a journal of another input file under the same batch', async () => {
    const s = setup();
    await writeJournal(s.journalPath, header({ input: OTHER_SHA }), orders, { more: anchorBought });
    const error = await refusal(s.choose());
    expect(error.message).toContain('was written for another input file under batch b1');
    expect(error.message).toContain('already bought rows 1');
  });

  it('refuses a journal order rebuy rebuilt (no input file), saying so', async () => {
    const s = setup();
    await writeJournal(s.journalPath, header({ input: '' }), orders, { more: anchorBought });
    const error = await refusal(s.choose());
    expect(error.message).toContain("is batch b1's journal rebuilt by `order rebuy` from its codes file");
    expect(error.message).not.toContain('another input file');
    expect(error.message).toContain('already bought rows 1');
  });

  it('refuses a journal written with another API key', async () => {
    const s = setup();
    await writeJournal(s.journalPath, header({ account: 'acct99999999' }), orders);
    const error = await refusal(s.choose());
    expect(error.message).toBe(
      `${s.journalPath} was written with another API key: resume it with that key, or use another --out`,
    );
  });

  it('of another account, names the service the journal was written for: the URL when it differs', async () => {
    const s = setup();
    const other = header({ account: 'acct99999999', baseUrl: 'https://a.example' });
    await writeJournal(s.journalPath, other, orders);
    const choose = (url: string | undefined) =>
      chooseJournal(s.opts, parsedInput('b1', SHA), { notice: () => {} }, async () => {}, url);
    expect((await refusal(choose('https://b.example'))).message).toBe(
      `${s.journalPath} was written for https://a.example, and this run uses https://b.example: resume it with --base-url https://a.example (and the key it was bought with), or use another --out`,
    );
    // The same URL, or none known for this run: the key is what differs.
    for (const url of ['https://a.example', undefined])
      expect((await refusal(choose(url))).message).toBe(
        `${s.journalPath} was written with another API key (at https://a.example): resume it with that key, or use another --out`,
      );
  });

  it('of the same account, resumes whatever URL the run names', async () => {
    const s = setup();
    await writeJournal(s.journalPath, header({ baseUrl: 'https://a.example' }), orders);
    const choice = await chooseJournal(
      s.opts,
      parsedInput('b1', SHA),
      { notice: () => {} },
      async () => {},
      'https://b.example',
    );
    expect(choice.journal).toBeDefined();
  });

  it('--force sets another batch aside (moved only later) and says what it bought', async () => {
    const s = setup({ force: true });
    await writeJournal(s.journalPath, header({ batch: 'b0' }), orders, { more: anchorBought });
    const choice = await s.choose();
    expect(choice.journal).toBeUndefined();
    expect(choice.displaced).toBe('b0');
    expect(choice.rebuy).toMatchObject({
      batch: 'b0',
      orders: 1,
      units: 1,
      rows: [1],
      checkoutIds: ['co_9'],
    });
    // Nothing is moved yet: that waits until money may move.
    expect(existsSync(s.journalPath)).toBe(true);
  });

  it('--force over another batch that bought nothing has nothing to buy again', async () => {
    const s = setup({ force: true });
    await writeJournal(s.journalPath, header({ batch: 'b0' }), orders);
    const choice = await s.choose();
    expect(choice.displaced).toBe('b0');
    expect(choice.rebuy).toBeUndefined();
  });

  it('a plan an earlier version was writing in place when killed is planned again: no journal to resume', async () => {
    const s = setup();
    await writeJournal(s.journalPath, header(), orders, { torn: true });
    const choice = await s.choose();
    expect(choice.journal).toBeUndefined();
    expect(choice.displaced).toBeUndefined();
    // Left where it is: the new plan's commit replaces it (nothing of it was submitted).
    expect(existsSync(s.journalPath)).toBe(true);
  });
});

describe('chooseJournal: the copy in the state directory', () => {
  it('resumes from the copy when the journal beside --out is missing', async () => {
    const s = setup();
    await writeJournal(s.copyPath, header(), orders, { more: anchorBought });
    const choice = await s.choose();
    expect(ordersOf(choice).map((o) => o.ref)).toEqual(orders.map((o) => o.ref));
    expect(ordersOf(choice)[0]).toMatchObject({ phase: 'created', checkoutId: 'co_9' });
    expect(choice.fromCopy).toBe(true);
    expect(s.notices).toEqual([
      `no journal beside ${s.out}: resuming batch b1 from the copy of its journal (${s.copyPath})`,
    ]);
  });

  it('resumes from the copy when the journal beside --out is shorter', async () => {
    const s = setup();
    await writeJournal(s.journalPath, header(), orders);
    await writeJournal(s.copyPath, header(), orders, { more: anchorBought });
    const choice = await s.choose();
    expect(ordersOf(choice)[0]?.phase).toBe('created');
    expect(choice.fromCopy).toBe(true);
    expect(s.notices[0]).toContain(`is further along than ${s.journalPath}: resuming from the copy`);
  });

  it('keeps the journal beside --out when the copy is no longer', async () => {
    const s = setup();
    await writeJournal(s.journalPath, header(), orders, { more: anchorBought });
    await writeJournal(s.copyPath, header(), orders, { more: anchorBought });
    const choice = await s.choose();
    expect(ordersOf(choice)[0]?.phase).toBe('created');
    expect(choice.fromCopy).toBe(false);
    expect(choice.copyPath).toBe(s.copyPath);
    expect(s.notices).toEqual([]);
  });

  it('a torn plan beside --out gives way to a complete copy', async () => {
    const s = setup();
    await writeJournal(s.journalPath, header(), orders, { torn: true });
    await writeJournal(s.copyPath, header(), orders);
    const choice = await s.choose();
    expect(choice.journal?.planComplete).toBe(true);
    expect(choice.fromCopy).toBe(true);
    expect(ordersOf(choice).map((o) => o.ref)).toEqual(orders.map((o) => o.ref));
  });

  it('a copy with a torn plan is not resumed from', async () => {
    const s = setup();
    await writeJournal(s.copyPath, header(), orders, { torn: true });
    const choice = await s.choose();
    expect(choice.journal).toBeUndefined();
    expect(choice.fromCopy).toBe(false);
    expect(choice.copyPath).toBe(s.copyPath);
  });

  it('refuses a copy made from another input file under the same batch', async () => {
    const s = setup();
    await writeJournal(s.copyPath, header({ input: OTHER_SHA }), orders, { more: anchorBought });
    const error = await refusal(s.choose());
    expect(error.message).toContain(
      'batch b1 was bought from another input file (batch b1 already bought rows 1',
    );
    expect(error.message).toContain(s.copyPath);
  });

  it('refuses a copy bought with the other --seal', async () => {
    const s = setup({ seal: true });
    await writeJournal(s.copyPath, header(), orders);
    const error = await refusal(s.choose());
    expect(error.message).toContain('batch b1 was bought without --seal');
  });

  it('refuses a link at the copy path', async () => {
    const s = setup();
    await mkdir(dirname(s.copyPath), { recursive: true });
    const elsewhere = join(s.dir, 'elsewhere.journal');
    writeFileSync(elsewhere, '');
    symlinkSync(elsewhere, s.copyPath);
    const error = await refusal(s.choose());
    expect(error.message).toContain(`${s.copyPath} is a symbolic link`);
  });
});

describe('chooseJournal: edges the mutation run found untested', () => {
  it('names both --seal choices in the refusal, whichever way round', async () => {
    const s = setup({ seal: true });
    await writeJournal(s.journalPath, header({ seal: false }), orders);
    expect((await refusal(s.choose())).message).toBe(
      `${s.journalPath} is batch b1 bought without --seal: resume it without --seal, or pass a new --batch to buy the file sealed`,
    );
    const t = setup();
    await writeJournal(t.journalPath, header({ seal: true }), orders);
    expect((await refusal(t.choose())).message).toBe(
      `${t.journalPath} is batch b1 bought with --seal: resume it with --seal, or pass a new --batch to buy the file unsealed`,
    );
  });

  it('another batch bought with the other --seal is refused as another batch', async () => {
    const s = setup();
    await writeJournal(s.journalPath, header({ batch: 'b0', seal: true }), orders);
    expect((await refusal(s.choose())).message).toContain('belongs to another batch (b0');
  });

  it('goes on without the copy when the state directory cannot exist (a file in its path)', async () => {
    const s = setup();
    writeFileSync(join(s.dir, 'state'), 'not a folder');
    const choice = await s.choose();
    expect(choice.copyPath).toBeUndefined();
    expect(s.notices).toEqual([
      `cannot keep the journal's copy in ${dirname(s.copyPath)} (ENOTDIR): going on without it; set GIFTCODES_STATE_DIR to a folder you can write`,
    ]);
  });

  it.each(['ENOTDIR', 'EACCES', 'EPERM', 'EROFS'])(
    'a copy lock failing with %s costs the copy, not the run',
    async (code) => {
      const s = setup();
      const choice = await chooseJournal(
        s.opts,
        parsedInput('b1', SHA),
        { notice: (l) => s.notices.push(l) },
        async () => {
          throw Object.assign(new Error(code), { code });
        },
      );
      expect(choice.copyPath).toBeUndefined();
      expect(s.notices).toHaveLength(1);
      expect(s.notices[0]).toContain(`(${code}): going on without it`);
    },
  );

  it.each([
    ['another code', Object.assign(new Error('disk on fire'), { code: 'EIO' })],
    ['no code', new Error('held by another run')],
  ])('a copy lock failing with %s stops the run', async (_name, failure) => {
    const s = setup();
    const error = await chooseJournal(
      s.opts,
      parsedInput('b1', SHA),
      { notice: (l) => s.notices.push(l) },
      async () => {
        throw failure;
      },
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBe(failure);
    expect(s.notices).toEqual([]);
  });
});

it('a journal file with no batch record does not crash the choice', async () => {
  const s = setup();
  await mkdir(dirname(s.journalPath), { recursive: true });
  writeFileSync(s.journalPath, `${JSON.stringify({ t: 'planned', orders: 0 })}\n`);
  const choice = await s.choose();
  expect(choice.journal?.batch).toBeUndefined();
  expect(choice.displaced).toBeUndefined();
});
