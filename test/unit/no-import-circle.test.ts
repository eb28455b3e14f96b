/**
 * `src/` has no import circle, type-only imports included: every module can be read,
 * tested and moved after the modules it imports, and a leaf stays a leaf. The specifiers
 * of every `import ... from`, `export ... from` and `import('...')` (TypeScript's own
 * pre-processor, so comments and strings never count) are resolved to files, and the
 * graph's strongly connected components of more than one file (or a file importing
 * itself) are the circles.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const SRC = join(ROOT, 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name));
}

/** `./x.js` (the ESM spelling of `./x.ts`), `./x` or `./x/index`; undefined outside the sources. */
function resolveSpecifier(from: string, specifier: string, files: ReadonlySet<string>): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = resolve(dirname(from), specifier);
  const candidates = [base.replace(/\.js$/, '.ts'), `${base}.ts`, join(base, 'index.ts')];
  return candidates.find((c) => files.has(c));
}

function importGraph(files: readonly string[]): Map<string, string[]> {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles
      .map((f) => resolveSpecifier(file, f.fileName, known))
      .filter((t): t is string => t !== undefined);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** Tarjan's strongly connected components that are circles, each sorted, in a stable order. */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter++;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) as number, index.get(next) as number));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    for (;;) {
      const top = stack.pop() as string;
      onStack.delete(top);
      component.push(top);
      if (top === node) break;
    }
    if (component.length > 1 || graph.get(node)?.includes(node)) found.push(component.sort());
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return found.sort((a, b) => (a[0] as string).localeCompare(b[0] as string));
}

describe('import circles', () => {
  it('finds a circle, a self-import, and none in a tree', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a', 'd']],
      ['d', []],
      ['e', ['e']],
      ['f', ['d']],
    ]);
    expect(circles(graph)).toEqual([['a', 'b', 'c'], ['e']]);
    expect(
      circles(
        new Map([
          ['a', ['b']],
          ['b', []],
        ]),
      ),
    ).toEqual([]);
  });

  it('src/ has none, type-only imports included', () => {
    const graph = importGraph(sourceFiles(SRC));
    const all = circles(graph).map((c) => c.map((file) => relative(ROOT, file)));
    expect(all).toEqual([]);
    // The graph is the real one: the sandbox's entry reaches its routes.
    expect(graph.get(join(SRC, 'sandbox/index.ts'))).toContain(join(SRC, 'sandbox/routes/index.ts'));
  });
});
