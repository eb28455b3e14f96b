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
