/**
 * Issue 23: `src/bulk/store/index.ts` is the one face of a batch's storage. No module of
 * src/ outside `src/bulk/store/` imports a file behind it (the journal, the order book,
 * the spool, the parts store, the lock...), so the storage can change without touching
 * the planner, the runner, the report or the batch tools.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const STORE = join(SRC, 'bulk', 'store');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The relative specifiers a module imports or re-exports, static and dynamic. */
function specifiers(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/\bfrom\s*'(\.[^']*)'|\bimport\s*\(\s*'(\.[^']*)'\s*\)/g))
    found.push(match[1] ?? match[2] ?? '');
  return found;
}

/** `file: specifier` for each import of a store internal by a module outside store/. */
function offenders(): string[] {
  const out: string[] = [];
  for (const file of sourceFiles(SRC)) {
    if (file.startsWith(`${STORE}/`)) continue;
    for (const spec of specifiers(readFileSync(file, 'utf8'))) {
      const target = resolve(dirname(file), spec);
      if (dirname(target) === STORE && !/\/index\.(js|ts)$/.test(target))
        out.push(`${relative(SRC, file)}: ${spec}`);
    }
  }
  return out;
}

/** A circle of imports among src/bulk's modules (static, re-export or dynamic), if any. */
function bulkCircle(): string[] | undefined {
  const bulk = join(SRC, 'bulk');
  const files = sourceFiles(bulk);
  const edges = new Map(
    files.map((file) => [
      file,
      specifiers(readFileSync(file, 'utf8'))
        .map((spec) => resolve(dirname(file), spec).replace(/\.js$/, '.ts'))
        .filter((target) => files.includes(target)),
    ]),
  );
  const done = new Set<string>();
  const walk = (file: string, path: string[]): string[] | undefined => {
    const at = path.indexOf(file);
    if (at >= 0) return [...path.slice(at), file].map((f) => relative(bulk, f));
    if (done.has(file)) return undefined;
    for (const next of edges.get(file) ?? []) {
      const circle = walk(next, [...path, file]);
      if (circle) return circle;
    }
    done.add(file);
    return undefined;
  };
  for (const file of files) {
    const circle = walk(file, []);
    if (circle) return circle;
  }
  return undefined;
}

/**
 * The import floors of src/bulk: the longest chain of imports (static, type-only,
 * re-export or dynamic) among its modules, a module with none being floor 1. With
 * `storeAsOne`, the store's files count as one module, its face: issue 23's layout is
 * plan/, run/ and report/ over one store, and the store's own floors are its business.
 */
function bulkFloors(storeAsOne: boolean): { floors: number; chain: string[] } {
  const bulk = join(SRC, 'bulk');
  const files = sourceFiles(bulk);
  const nodeOf = (file: string) =>
    storeAsOne && file.startsWith(`${STORE}/`) ? 'store/' : relative(bulk, file);
  const edges = new Map<string, Set<string>>();
  for (const file of files) {
    const from = nodeOf(file);
    const out = edges.get(from) ?? new Set<string>();
    edges.set(from, out);
    for (const spec of specifiers(readFileSync(file, 'utf8'))) {
      const target = resolve(dirname(file), spec).replace(/\.js$/, '.ts');
      if (files.includes(target) && nodeOf(target) !== from) out.add(nodeOf(target));
    }
  }
  const depth = new Map<string, string[]>();
  const chainFrom = (node: string): string[] => {
    const known = depth.get(node);
    if (known) return known;
    let longest: string[] = [];
    for (const next of edges.get(node) ?? []) {
      const chain = chainFrom(next);
      if (chain.length > longest.length) longest = chain;
    }
    const chain = [node, ...longest];
    depth.set(node, chain);
    return chain;
  };
  let chain: string[] = [];
  for (const node of edges.keys()) if (chainFrom(node).length > chain.length) chain = chainFrom(node);
  return { floors: chain.length, chain };
}

describe('the store has one face', () => {
  it('no import circle inside src/bulk (the store calls neither the planner nor the report)', () => {
    expect(bulkCircle()).toBeUndefined();
  });

  it('no module outside src/bulk/store/ imports a file inside it but its index', () => {
    expect(offenders()).toEqual([]);
  });

  it('no module of src/bulk/store/ imports the planner: the planner hands the store its orders', () => {
    const planning = sourceFiles(STORE).flatMap((file) =>
      specifiers(readFileSync(file, 'utf8'))
        .filter((spec) => dirname(resolve(dirname(file), spec)) === join(SRC, 'bulk', 'plan'))
        .map((spec) => `${relative(SRC, file)}: ${spec}`),
    );
    expect(planning).toEqual([]);
  });

  it('the check sees the imports it is meant to refuse', () => {
    // Guards the guard: the store's own modules import each other by these very forms.
    const journal = readFileSync(join(STORE, 'journal.ts'), 'utf8');
    expect(specifiers(journal)).toContain('./refunds.js');
    expect(specifiers("const { x } = await import('./xlsx.js');")).toEqual(['./xlsx.js']);
    const store = sourceFiles(SRC).filter((file) => file.startsWith(`${STORE}/`));
    expect(store).toContain(join(STORE, 'journal.ts'));
    expect(store).toContain(join(STORE, 'index.ts'));
    expect(store.length).toBeGreaterThan(5);
  });
  it('bulk/ stands on at most 8 import floors, the store counted as its face (issue 23: 18 before)', () => {
    const { floors, chain } = bulkFloors(true);
    expect(floors, chain.join(' -> ')).toBeLessThanOrEqual(8);
    // Guards the count: the CLI wiring (cli-run.ts) or engine.ts, the table of contents, is on top.
    expect(chain[0]).toMatch(/^(index|engine|cli-run)\.ts$/);
    expect(bulkFloors(false).floors).toBeGreaterThan(floors);
  });
});

/**
 * Every name the face exports, with why a caller needs it. A name added to
 * store/index.ts without a line here fails the test, so the face cannot grow silently;
 * none of them is the journal's file format (its lines, versions, where a record sits,
 * its copying) or its fold (apply, emptyState): callers hand the store records and read
 * snapshots.
 */
const FACE: Record<string, string> = {
  // Snapshots and the records callers hand the store.
  JournalRecord: 'the records a run hands RunJournals.record (submit, created, refused, split, done...)',
  JournalState: "the snapshot of a batch: its plan's size, open orders, settled sums, outputs, refunds",
  OrderEntry: 'one open order of the snapshot, as a plain record',
  OrderPhase: 'where an order stands (planned, submitted, created...)',
  OrderView: 'one order of the plan as a plain snapshot, its lines included',
  PlanOrder: 'one order of the plan as the walk meets it (its place, ref, lines)',
  RefundRecord: 'the records refund batch hands BatchJournal.record',
  RefundState: "one order's refund as the snapshot has it",
  BatchHeader: 'what starts a journal, handed to PlanWriter.open',
  OutputFormat: 'the codes file formats',
  // Reading a snapshot.
  planWalk: 'the plan in plan order, read back lazily (split parts in place of their parent)',
  phaseOf: 'what the snapshot says of one order of the walk: settled, open, or only planned',
  viewOf: 'the same as a plain snapshot, a settled order read back',
  needsBuying: 'whether an order of the walk is still to buy',
  effectiveOrderCount: 'orders of the plan once split orders are replaced by their parts',
  moneyOfState: "the run's money as the snapshot holds it",
  carriesRowRefs: "whether a journal of this version keeps each line's row ref",
  withJournalFd: 'a read-only descriptor of a journal for a walk of it, closed after',
  readBatch: 'a read-only snapshot of a journal and its orders (locate, export, refund batch)',
  loadJournal: "a run's read of its journal under the lock (a torn tail is cut)",
  readBatchRefunds: "a batch's refunds, read without writing (reconcile)",
  // Writing.
  PlanWriter: 'a new plan, written as it is made and committed after the confirmation',
  RunJournals: "a run's journals as one object: record, recordAll, archive, close",
  JournalAppender: 'records appended to a journal alone (export)',
  removeStaleTemps: 'the temporary plans and outputs a killed run left',
  journalSize: 'which of the journal and its copy is further along (resume)',
  BatchJournal: "a bought batch's journal as refund batch opens it",
  BatchFiles: "where a batch's refunds are, and were, recorded",
  // Where a batch's files are.
  journalPathFor: 'the journal beside --out',
  journalCopyPathFor: "the journal's copy in the state directory",
  accountFingerprint: 'the one-way tag of an account that names the copy',
  refundJournalPathFor: 'the refund journal of a batch without its journal',
  legacyRefundLogPathFor: 'refund logs an earlier version left (carried in)',
  legacyBatchRefundLogPathFor: 'the same, per batch',
  // The lock and the files beside the output.
  acquireLock: 'one run per output and per batch',
  HeldLock: 'a lock held, released on every way out',
  LockDeps: "the lock's clock and notices",
  lockPathFor: 'where the lock of a file is',
  lockWarning: "a dry run's word on a held lock",
  assertOutPathUsable: 'a bad --out is a usage error before the lock',
  assertOutReplaceable: "never overwrite a file that is not the batch's own output",
  checkCompanions: 'the files beside --out are private, regular, the user own',
  ensurePrivateDir: 'a private folder for the copy and its lock',
  assertNotInput: 'an output path that is the input is refused before anything else',
  diskStop: "a disk condition on one of the run's files, as exit 4 naming the file",
  // The codes file.
  journalRecords: "the codes file's rows from the journal, in plan order",
  settledRows: "one settled order's rows of the codes file (rebuy)",
  assembleOutput: 'rows as the codes file, in chunks (a run, export)',
  writeAtomic: 'the codes file written whole or not at all',
  formatFor: "the codes file's format from its name or --format",
  fileExists: 'whether the codes file is there',
  sha256File: "the codes file's hash, to tell it is the batch's own",
  tooManyForWorkbook: 'a batch too big for one workbook is refused before it buys',
  XLSX_MAX_ROWS: "a workbook's row limit",
};

/** The journal's file format and its fold: never a name of the face. */
const FORMAT_LEVEL = [
  'parseJournal',
  'apply',
  'applyAt',
  'emptyState',
  'recordAt',
  'LineSplitter',
  'JournalWriter',
  'openJournals',
  'archiveJournal',
  'readJournalCopy',
  'readJournalSnapshot',
  'writePlan',
  'openLines',
  'copyJournal',
  'fsyncDir',
  'LINES_CARRY_REFS',
  'JOURNAL_VERSION',
];

/** The names `store/index.ts` exports (`export { a, type B } from`, `export type { C } from`). */
function faceExports(text: string): string[] {
  const names: string[] = [];
  for (const match of text.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}\s*from/g))
    for (const part of (match[1] ?? '').split(',')) {
      const name = part
        .trim()
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)
        .pop();
      if (name) names.push(name);
    }
  return names;
}

/** Names imported from the store's face by the modules of src/ outside store/. */
function namesImportedFromFace(): Map<string, string[]> {
  const used = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    if (file.startsWith(`${STORE}/`)) continue;
    const text = readFileSync(file, 'utf8');
    const statics = /(?:import|export)\s+(?:type\s+)?\{([^}]*)\}\s*from\s*'(\.[^']*)'/g;
    const dynamics = /const\s*\{([^}]*)\}\s*=\s*await\s+import\(\s*'(\.[^']*)'\s*\)/g;
    for (const match of [...text.matchAll(statics), ...text.matchAll(dynamics)]) {
      if (resolve(dirname(file), match[2] ?? '') !== join(STORE, 'index.js')) continue;
      for (const part of (match[1] ?? '').split(',')) {
        const name = part
          .trim()
          .replace(/^type\s+/, '')
          .split(/\s+as\s+|\s*:\s*/)[0];
        if (name) used.set(name, [...(used.get(name) ?? []), relative(SRC, file)]);
      }
    }
  }
  return used;
}

describe("the face's names", () => {
  const text = readFileSync(join(STORE, 'index.ts'), 'utf8');

  it('are exactly the allow-list, each with its reason (the face cannot grow silently)', () => {
    expect(text).not.toMatch(/export\s+\*/);
    expect([...faceExports(text)].sort()).toEqual(Object.keys(FACE).sort());
  });

  it("never name the journal's file format or its fold", () => {
    expect(FORMAT_LEVEL.filter((name) => name in FACE)).toEqual([]);
  });

  it('are what src/ outside the store imports from it, and nothing format-level is', () => {
    const used = namesImportedFromFace();
    // Guards the guard: the engine takes its journals and its lock from the face.
    expect(used.get('RunJournals')).toContain('bulk/engine.ts');
    expect(used.get('acquireLock')).toContain('bulk/engine.ts');
    expect([...used.keys()].filter((name) => !(name in FACE))).toEqual([]);
    expect(FORMAT_LEVEL.filter((name) => used.has(name))).toEqual([]);
  });
});
