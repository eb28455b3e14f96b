/**
 * Chunk groups for the bundle (build.mjs, issue 25): a read command used to open ~56
 * files, because esbuild's code splitting makes one chunk per set of entry points that
 * reach a piece of code, and every `await import()` is an entry point. This module
 * gives the bundler fewer, chosen entry points and makes the code every command needs
 * reachable from the same set of them, so it lands in one chunk per tier:
 *
 * - tier `core`: what `src/main.ts` imports (errors, output guard, streams, version),
 *   loaded by `--version` too;
 * - tier `cli`: the command tree, i.e. `program.ts`, `context.ts`, the top-level command
 *   files and what they import (commander, the registry, help): what `--help` loads;
 * - tier `http`: the HTTP client, its retry policy, the config store and the output
 *   printer, with undici's Agent and zod: what every command that calls the service loads.
 *
 * How. Every relative `import('./x.js')` in the sources becomes an import of a group
 * module (`giftcodes-group:<name>`), a virtual module that re-exports its targets'
 * namespaces (`export * as m_x from './x.ts'`), and the call site reads its target
 * from it (`.then((g) => g.m_x)`): the same namespace object, loaded at the same moment.
 * A command noun's subcommand files share a group (the registry loads them together);
 * a target already in a tier goes to that tier's group; any other target gets a group
 * of its own. A group module that reaches any code of a tier also re-exports every
 * source module of that tier, so all of a tier's code is live from the same entry
 * points and esbuild puts it in one chunk (its split is by live code, not by module).
 * The tiers are computed from the import graph of a first, plain build.
 */
import { dirname, join, relative, resolve } from 'node:path';

export const GROUP_NAMESPACE = 'giftcodes-group';

/** The static import graph of a metafile: input path -> input paths it imports (bundled). */
function staticGraph(metafile) {
  const graph = new Map();
  for (const [path, input] of Object.entries(metafile.inputs)) {
    graph.set(
      path,
      input.imports
        .filter((i) => !i.external && (i.kind === 'import-statement' || i.kind === 'require-call'))
        .map((i) => i.path),
    );
  }
  return graph;
}

function closure(graph, roots) {
  const seen = new Set();
  const stack = [...roots];
  while (stack.length) {
    const path = stack.pop();
    if (seen.has(path)) continue;
    seen.add(path);
    for (const next of graph.get(path) ?? []) stack.push(next);
  }
  return seen;
}

const keyOf = (input) =>
  `m_${input
    .replace(/^src\//, '')
    .replace(/\.ts$/, '')
    .replace(/[^A-Za-z0-9]/g, '_')}`;

/**
 * The plan: which group each dynamic-import target (an input path, `src/...ts`) goes to,
 * and what each group module re-exports.
 *
 * @param metafile the metafile of a plain build of `main` (its dynamic imports unchanged)
 * @param tiers `{ cli: [inputs], http: [inputs] }`: the modules that define the cli and
 *   http tiers (the tiers are their static closures, minus the tiers before them)
 * @param groupOf input path -> a group name for files that load together (or undefined)
 * @param sharedBy a group name -> whether the modules it shares with another such group
 *   form a tier of their own (`shared`): the modules several nouns' subcommand files
 *   import (prompts, progress, the shared options) are one chunk, not one each
 */
export function planGroups(metafile, { main, tiers, groupOf, sharedBy = () => false }) {
  const graph = staticGraph(metafile);
  const core = closure(graph, [main]);
  core.delete(main);
  const tierSets = [['core', core]];
  const taken = new Set(core);
  for (const [name, roots] of Object.entries(tiers)) {
    const set = new Set([...closure(graph, roots)].filter((p) => !taken.has(p)));
    for (const p of set) taken.add(p);
    tierSets.push([name, set]);
  }
  const tierOf = new Map();
  for (const [name, set] of tierSets) for (const p of set) tierOf.set(p, name);

  // Every dynamic import of a source module, and the group it goes to.
  const targets = new Map();
  for (const input of Object.values(metafile.inputs))
    for (const i of input.imports)
      if (i.kind === 'dynamic-import' && !i.external && i.path.startsWith('src/'))
        targets.set(
          i.path,
          groupOf(i.path) ??
            (tierOf.get(i.path) === 'core' ? 'cli' : tierOf.get(i.path)) ??
            `one/${i.path.slice(4).replace(/\.ts$/, '')}`,
        );

  const groups = new Map();
  for (const [target, group] of targets) {
    if (!groups.has(group)) groups.set(group, { targets: new Set(), tiers: new Set() });
    groups.get(group).targets.add(target);
  }
  // The modules two or more `sharedBy` groups reach, outside the tiers: one more tier.
  const reachedBy = new Map();
  for (const [name, group] of groups) {
    if (!sharedBy(name)) continue;
    for (const p of closure(graph, group.targets))
      if (!taken.has(p) && !group.targets.has(p)) reachedBy.set(p, (reachedBy.get(p) ?? 0) + 1);
  }
  const sharedRoots = [...reachedBy].filter(([p, n]) => n > 1 && p.startsWith('src/')).map(([p]) => p);
  if (sharedRoots.length) {
    const set = new Set([...closure(graph, sharedRoots)].filter((p) => !taken.has(p)));
    for (const p of set) taken.add(p);
    tierSets.push(['shared', set]);
  }

  // The tiers each group module must re-export whole: those its code reaches (fixpoint,
  // as re-exporting a tier reaches further).
  for (const group of groups.values()) {
    for (;;) {
      const reach = closure(graph, [
        ...group.targets,
        ...tierSets.filter(([n]) => group.tiers.has(n)).flatMap(([, set]) => [...set]),
      ]);
      const before = group.tiers.size;
      // By its source modules: a package a tier holds (env-paths) may be reached on its own.
      for (const [name, set] of tierSets)
        if ([...set].some((p) => p.startsWith('src/') && reach.has(p))) group.tiers.add(name);
      if (group.tiers.size === before) break;
    }
  }
  // The main entry re-exports the core tier too, so the core's code is live from main
  // and from every group alike (one chunk), not split by which exports main uses.
  const keys = new Map();
  for (const input of Object.keys(metafile.inputs)) {
    const other = keys.get(keyOf(input));
    if (other && other !== input)
      throw new Error(`chunk-groups: ${input} and ${other} share the key ${keyOf(input)}`);
    keys.set(keyOf(input), input);
  }
  return { targets, groups, tierSets, core };
}

/** `import('./x.js')` (relative, literal) in a source file, as a read from its group module. */
export function rewriteDynamicImports(contents, file, root, plan) {
  return contents.replace(/(?<!typeof\s)\bimport\(\s*(['"])(\.{1,2}\/[^'"]+)\1\s*\)/g, (whole, _q, spec) => {
    const input = relative(root, resolve(dirname(file), spec)).replace(/\.js$/, '.ts');
    const group = plan.targets.get(input);
    if (!group) return whole;
    return `import(${JSON.stringify(`${GROUP_NAMESPACE}:${group}`)}).then((g) => g.${keyOf(input)})`;
  });
}

/** The group modules and the main entry as esbuild modules. */
export function groupModulesPlugin(root, plan, mainInput) {
  const tierSources = (names) =>
    plan.tierSets
      .filter(([n]) => names.has(n))
      .flatMap(([, set]) => [...set].filter((p) => p.startsWith('src/')));
  const reexport = (inputs) =>
    [...new Set(inputs)]
      .map((p) => `export * as ${keyOf(p)} from ${JSON.stringify(join(root, p))};`)
      .join('\n');
  return {
    name: 'giftcodes-chunk-groups',
    setup(b) {
      b.onResolve({ filter: new RegExp(`^${GROUP_NAMESPACE}:`) }, (args) => ({
        path: args.path.slice(GROUP_NAMESPACE.length + 1),
        namespace: GROUP_NAMESPACE,
      }));
      b.onLoad({ filter: /.*/, namespace: GROUP_NAMESPACE }, (args) => {
        if (args.path === 'entry:main')
          return {
            contents: `export * from ${JSON.stringify(join(root, mainInput))};\n${reexport([...plan.core].filter((p) => p.startsWith('src/')))}`,
            resolveDir: root,
            loader: 'js',
          };
        const group = plan.groups.get(args.path);
        if (!group) throw new Error(`chunk-groups: no group ${args.path}`);
        return {
          contents: reexport([...tierSources(group.tiers), ...group.targets]),
          resolveDir: root,
          loader: 'js',
        };
      });
    },
  };
}
