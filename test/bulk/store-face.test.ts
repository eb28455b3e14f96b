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
    expect(specifiers(journal)).toContain('./order-book.js');
    expect(specifiers("const { x } = await import('./xlsx.js');")).toEqual(['./xlsx.js']);
    expect(sourceFiles(SRC).filter((file) => file.startsWith(`${STORE}/`)).length).toBeGreaterThan(10);
  });
  it('bulk/ stands on at most 8 import floors, the store counted as its face (issue 23: 18 before)', () => {
    const { floors, chain } = bulkFloors(true);
    expect(floors, chain.join(' -> ')).toBeLessThanOrEqual(8);
    // Guards the count: engine.ts is the table of contents, above the stages it names.
    expect(chain[0]).toMatch(/^(index|engine)\.ts$/);
    expect(bulkFloors(false).floors).toBeGreaterThan(floors);
  });
});

/**
 * Every name the face exports, with why a caller needs it. A name added to
 * store/index.ts without a line here fails the test, so the face cannot grow silently;
 * none of them is the journal's file format (its lines, versions, sizes, writer) or its
 * fold (apply, applyAt, emptyState): callers hand the store records and read snapshots.
 */
const FACE: Record<string, string> = {
  // Snapshots and the records callers hand the store.
  JournalRecord: 'the records a run hands RunJournals.record (submit, created, refused, split...)',
  JournalState: 'the snapshot of a batch: plan, phases, outputs, refunds',
  OrderState: 'one order of the snapshot',
  OrderPhase: 'where an order stands (planned, submitted, created...)',
  OutputSummary: "what a complete output's record keeps of the run's counts",
  RefundRecord: 'the records refund batch hands BatchJournal.record',
  RefundState: "one order's refund as the snapshot has it",
  JournalCopy: "the batch's copy in the state directory, as the resume chose it",
  BatchHeader: 'what starts a journal, handed to RunJournals.commitPlan',
  OutputFormat: 'the codes file formats',
  // Reading a snapshot.
  eachEffectiveOrder: "the snapshot's orders in plan order, lazily (split parts in place of their parent)",
  effectiveOrders: 'the same, as a list (small batches: locate, bought)',
  linesOf: "an order's planned lines, read back from the snapshot",
  carriesRowRefs: "whether a journal of this version keeps each line's row ref",
  readBatch: 'a read-only snapshot of a journal (locate, export)',
  loadBatch: "a run's read of its journal under the lock (a torn tail is cut)",
  readCopyIfAhead: "the journal's copy, read when it is the one to resume from",
  readBatchRefunds: "a batch's refunds, read without writing (reconcile)",
  // Writing.
  RunJournals: "a run's journals as one object: commitPlan, record, recordOutput..., close",
  PlanStage: 'the plan staged before the confirmation: the planner hands it orders',
  BatchJournal: "a bought batch's journal as refund batch opens it",
  BatchFiles: "where a batch's refunds are, and were, recorded",
  // Where a batch's files are.
  journalPathFor: 'the journal beside --out',
  journalCopyPathFor: "the journal's copy in the state directory",
  partsPathFor: "the finished orders' parts beside --out",
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
  // The codes file.
  PartStore: "finished orders' codes kept per order",
  PartMeta: 'what a part says of its order',
  renderPart: "an order's codes rendered as a part",
  assembleOutput: 'the parts in plan order, as the codes file',
  writeAtomic: 'the codes file written whole or not at all',
  outputChunks: 'records rendered as a codes file (export)',
  renderOutput: 'the same, whole (small files)',
  formatFor: "the codes file's format from its name or --format",
  OUTPUT_FORMATS: 'the formats --format takes',
  OutputStyle: 'BOM and such',
  fileExists: 'whether the codes file is there',
  sha256File: "the codes file's hash, to tell it is the batch's own",
  tooManyForWorkbook: 'a batch too big for one workbook is refused before it buys',
  XLSX_MAX_ROWS: "a workbook's row limit",
  // The input's rows and memory.
  RowSpool: "the input's rows on disk, read back by validation and planning",
  RefColumn: 'refs kept as a column',
  heapBudget: 'what the heap may hold',
  collectEvery: 'when the long walks collect',
  WALK_COLLECT_ORDERS: 'orders between two collections of a walk',
};

/** The journal's file format and its fold: never a name of the face. */
const FORMAT_LEVEL = [
  'parseJournal',
  'loadJournal',
  'apply',
  'applyAt',
  'emptyState',
  'JournalWriter',
  'openJournals',
  'archiveJournal',
  'journalSize',
  'readJournalCopy',
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
