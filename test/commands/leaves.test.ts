/**
 * Commands are leaves (HOUSE-STYLE principle 17, issue 30): no command file imports
 * another command file, no helper of one noun imports another noun's folder (what
 * several nouns share at the command layer is `commands/shared/`, what two commands
 * share beyond that is a domain module under src/, such as `src/deposit/`), nothing
 * below the command layer imports it, and its modules import in no circle. So the tree
 * can be read, moved and deleted one file at a time.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { COMMANDS, fileOf } from '../../src/commands/registry.js';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const TREE = join(SRC, 'commands');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The modules a module imports or re-exports (static, type-only or dynamic), as paths of src/. */
function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const match of text.matchAll(/\bfrom\s*'(\.[^']*)'|\bimport\s*\(\s*'(\.[^']*)'\s*\)/g))
    found.push(resolve(dirname(file), match[1] ?? match[2] ?? '').replace(/\.js$/, '.ts'));
  return found;
}

const inTree = (file: string) => relative(TREE, file);
/** The noun folder of a file in the tree (`deposit`), or undefined for the tree's own modules and the rest of src/. */
function nounOf(file: string): string | undefined {
  const path = inTree(file);
  return path.startsWith('..') || !path.includes('/') ? undefined : path.split('/')[0];
}

const treeFiles = sourceFiles(TREE);
const commandFiles = new Set(COMMANDS.map((path) => join(TREE, fileOf(path).replace(/\.js$/, '.ts'))));
const edges = treeFiles.flatMap((file) => imports(file).map((target) => ({ file, target })));

describe('commands are leaves', () => {
  it('finds the command files and their imports', () => {
    // A floor, so a broken walk cannot pass by finding nothing.
    expect(commandFiles.size).toBeGreaterThan(40);
    expect(edges.length).toBeGreaterThan(300);
  });

  it('no command file imports another command file', () => {
    const found = edges
      .filter(({ file, target }) => commandFiles.has(file) && commandFiles.has(target))
      .map(({ file, target }) => `${inTree(file)} -> ${inTree(target)}`);
    expect(found).toEqual([]);
  });

  it("no file of a noun imports another noun's folder but shared/", () => {
    const found = edges
      .filter(({ file, target }) => {
        const [from, to] = [nounOf(file), nounOf(target)];
        return from && to && from !== to && to !== 'shared';
      })
      .map(({ file, target }) => `${inTree(file)} -> ${inTree(target)}`);
    expect(found).toEqual([]);
  });

  it('commands/shared/ imports no noun', () => {
    const found = edges
      .filter(
        ({ file, target }) => nounOf(file) === 'shared' && nounOf(target) && nounOf(target) !== 'shared',
      )
      .map(({ file, target }) => `${inTree(file)} -> ${inTree(target)}`);
    expect(found).toEqual([]);
  });

  it('below the command layer nothing imports it (program.ts builds the tree)', () => {
    const found = sourceFiles(SRC)
      .filter((file) => !file.startsWith(`${TREE}/`) && file !== join(SRC, 'program.ts'))
      .flatMap((file) => imports(file).filter((target) => target.startsWith(`${TREE}/`)))
      .map((target) => relative(SRC, target));
    expect(found).toEqual([]);
  });

  it('the modules of commands/ import in no circle', () => {
    const next = new Map<string, string[]>();
    for (const { file, target } of edges)
      if (treeFiles.includes(target)) next.set(file, [...(next.get(file) ?? []), target]);
    const done = new Set<string>();
    const walk = (file: string, path: string[]): string[] | undefined => {
      const at = path.indexOf(file);
      if (at >= 0) return [...path.slice(at), file].map(inTree);
      if (done.has(file)) return undefined;
      for (const target of next.get(file) ?? []) {
        const circle = walk(target, [...path, file]);
        if (circle) return circle;
      }
      done.add(file);
      return undefined;
    };
    const circle = treeFiles.map((file) => walk(file, [])).find((found) => found !== undefined);
    expect(circle).toBeUndefined();
  });
});
