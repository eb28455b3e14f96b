/**
 * The bundle's chunk groups (scripts/chunk-groups.mjs, issue 25), on a small import graph:
 * which group each dynamic import goes to, which tiers a group module re-exports (so a
 * tier's code is live from the same entry points and lands in one chunk), and the
 * rewriting of `import('./x.js')` into a read from the group module.
 */
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a build script, plain JavaScript without declarations
import { planGroups, rewriteDynamicImports } from '../../scripts/chunk-groups.mjs';

type Kind = 'import-statement' | 'dynamic-import' | 'require-call';
const meta = (graph: Record<string, [string, Kind][]>) => ({
  inputs: Object.fromEntries(
    Object.entries(graph).map(([path, imports]) => [
      path,
      { imports: imports.map(([to, kind]) => ({ path: to, kind })) },
    ]),
  ),
});

// main -> errors (core); main => program (cli) -> registry -> parser pkg;
// registry => order/get (a noun's subcommand), which imports errors and output (cli);
// order/get => api/orders, which imports http (http tier) -> client pkg.
const graph = meta({
  'src/main.ts': [
    ['src/errors.ts', 'import-statement'],
    ['src/program.ts', 'dynamic-import'],
  ],
  'src/errors.ts': [],
  'src/program.ts': [
    ['src/commands/registry.ts', 'import-statement'],
    ['src/io/output.ts', 'import-statement'],
  ],
  'src/commands/registry.ts': [
    ['node_modules/parser/index.js', 'import-statement'],
    ['src/commands/order/get.ts', 'dynamic-import'],
  ],
  'node_modules/parser/index.js': [],
  'src/io/output.ts': [['src/errors.ts', 'import-statement']],
  'src/commands/order/get.ts': [
    ['src/io/output.ts', 'import-statement'],
    ['src/api/orders.ts', 'dynamic-import'],
  ],
  'src/api/orders.ts': [['src/api/http.ts', 'import-statement']],
  'src/api/http.ts': [
    ['node_modules/client/index.js', 'require-call'],
    ['src/errors.ts', 'import-statement'],
  ],
  'node_modules/client/index.js': [],
});

const plan = planGroups(graph, {
  main: 'src/main.ts',
  tiers: { cli: ['src/program.ts'], http: ['src/api/http.ts'] },
  groupOf: (input: string) => (input.startsWith('src/commands/order/') ? 'commands-order' : undefined),
});

describe('chunk groups', () => {
  it('splits the code into tiers: what main imports, the tree, the HTTP client', () => {
    const tiers = Object.fromEntries(
      (plan.tierSets as [string, Set<string>][]).map(([name, set]) => [name, [...set].sort()]),
    );
    expect(tiers).toEqual({
      core: ['src/errors.ts'],
      cli: ['node_modules/parser/index.js', 'src/commands/registry.ts', 'src/io/output.ts', 'src/program.ts'],
      http: ['node_modules/client/index.js', 'src/api/http.ts'],
    });
  });

  it('sends each dynamic import to its group: its tier, its noun, or a group of its own', () => {
    expect(Object.fromEntries(plan.targets)).toEqual({
      'src/program.ts': 'cli',
      'src/commands/order/get.ts': 'commands-order',
      'src/api/orders.ts': 'one/api/orders',
    });
  });

  it('has a group module re-export every tier its code reaches, and no other', () => {
    const tiersOf = (name: string) => [...plan.groups.get(name).tiers].sort();
    expect(tiersOf('cli')).toEqual(['cli', 'core']);
    expect(tiersOf('commands-order')).toEqual(['cli', 'core']);
    expect(tiersOf('one/api/orders')).toEqual(['core', 'http']);
  });

  it('rewrites a relative dynamic import into a read from its group module, and nothing else', () => {
    const root = '/repo';
    const source = [
      "const { getOrder } = await import('../../api/orders.js');",
      "const other = await import(\n  '../../api/unknown.js'\n);",
      "type Orders = typeof import('../../api/orders.js');",
      "const ora = await import('ora');",
    ].join('\n');
    expect(rewriteDynamicImports(source, '/repo/src/commands/order/get.ts', root, plan).split('\n')).toEqual([
      'const { getOrder } = await import("giftcodes-group:one/api/orders").then((g) => g.m_api_orders);',
      'const other = await import(',
      "  '../../api/unknown.js'",
      ');',
      "type Orders = typeof import('../../api/orders.js');",
      "const ora = await import('ora');",
    ]);
  });
});
