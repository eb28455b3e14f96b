#!/usr/bin/env node
/**
 * The CLI as shipped (issue 25): `src/main.ts` bundled by esbuild into `dist/cli/`, ES
 * modules with code splitting, so `bin/giftcodes.js` reads a handful of files instead of
 * ~460, and each command's run, the API layer, zod schemas, the bulk engine and the
 * sandbox stay in chunks loaded by the `await import()`s that already keep them off the
 * start-up path. `tsc -b tsconfig.build.json` still emits `dist/**` (declarations, the
 * library entry `dist/index.js`, and the modules tests and benchmarks import).
 *
 *   node build.mjs            (run by `npm run build`, after tsc)
 *
 * Three source patterns need help from the bundler, each handled below:
 * - `import.meta.url` names the module's own file (package.json, fixtures): rewritten to
 *   the URL of the file tsc emits for that source, so relative paths mean what they mean
 *   in `dist/` whatever chunk the code lands in;
 * - the registry imports a command's file by a computed name (`./${fileOf(path)}`):
 *   given a table of literal imports, one per command file (grouped by noun below);
 * - bundled CommonJS calls `require` for Node built-ins: each chunk gets a real one;
 * - a package imported with `await import('pkg')` (prompts, spinner, QR codes, CSV, the
 *   demo's undici) stays a package, loaded by Node: a bundled CommonJS package would offer
 *   its `default` alone, where Node offers its named exports too, and these load only on
 *   the paths that use them anyway.
 *
 * Code splitting alone made a chunk per set of importers (~56 files for a read command);
 * the bundle is built twice, the first pass only for its import graph, from which
 * scripts/chunk-groups.mjs groups the dynamic imports so that the code every command
 * needs is one chunk per tier (`--help` reads 5 files, `balance` 14).
 *
 * And a few packages are trimmed (zod's locales, undici's HTTP/2, commander's eager
 * child_process): scripts/bundle-trims.mjs.
 */
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { build } from 'esbuild';
import {
  cliTableFastStringWidth,
  commanderLazyChildProcess,
  undiciWithoutHttp2,
  zodEnglishOnly,
} from './scripts/bundle-trims.mjs';
import {
  GROUP_NAMESPACE,
  groupModulesPlugin,
  planGroups,
  rewriteDynamicImports,
} from './scripts/chunk-groups.mjs';

const ROOT = import.meta.dirname;
const SRC = join(ROOT, 'src');
const OUT = join(ROOT, 'dist', 'cli');

/** `src/a/b.ts` → the URL of `dist/a/b.js`, relative to a chunk in dist/cli/. */
function emittedUrlExpression(file) {
  const emitted = relative(SRC, file).replace(/\.ts$/, '.js');
  const fromChunk = relative(OUT, join(ROOT, 'dist', emitted))
    .split('\\')
    .join('/');
  return `new URL(${JSON.stringify(fromChunk)}, import.meta.url).href`;
}

const REGISTRY = join(SRC, 'commands', 'registry.ts');
// biome-ignore lint/suspicious/noTemplateCurlyInString: the source text searched for, not a template.
const COMPUTED_IMPORT = 'import(`./${fileOf(path)}`)';

/** The command files: `commands/<noun>/<file>.ts` whose default export is a declaration. */
function commandFiles() {
  const dir = join(SRC, 'commands');
  const files = [];
  for (const noun of readdirSync(dir, { withFileTypes: true })) {
    if (!noun.isDirectory()) continue;
    for (const name of readdirSync(join(dir, noun.name))) {
      if (!name.endsWith('.ts')) continue;
      const text = readFileSync(join(dir, noun.name, name), 'utf8');
      if (/export default defineCommand\(/.test(text))
        files.push(`${noun.name}/${name.replace(/\.ts$/, '.js')}`);
    }
  }
  return files.sort();
}

const sourcePatterns = (plan) => ({
  name: 'giftcodes-source-patterns',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) =>
      args.kind === 'dynamic-import' &&
      !args.path.startsWith('node:') &&
      !args.path.startsWith(`${GROUP_NAMESPACE}:`)
        ? { path: args.path, external: true }
        : undefined,
    );
    b.onLoad({ filter: /\/src\/.*\.ts$/ }, (args) => {
      let contents = readFileSync(args.path, 'utf8');
      if (args.path === REGISTRY) {
        if (!contents.includes(COMPUTED_IMPORT))
          throw new Error(
            `build.mjs: ${COMPUTED_IMPORT} not found in src/commands/registry.ts: update the build`,
          );
        const table = commandFiles()
          .map((file) => `  ${JSON.stringify(file)}: () => import(${JSON.stringify(`./${file}`)}),`)
          .join('\n');
        contents = contents.replace(COMPUTED_IMPORT, 'COMMAND_FILES[fileOf(path)]()');
        contents += `\nconst COMMAND_FILES: Record<string, () => Promise<unknown>> = {\n${table}\n};\n`;
      }
      if (contents.includes('import.meta.url'))
        contents = contents.split('import.meta.url').join(emittedUrlExpression(args.path));
      if (plan) contents = rewriteDynamicImports(contents, args.path, ROOT, plan);
      return { contents, loader: 'ts', resolveDir: dirname(args.path) };
    });
  },
});

// Chunk names carry a hash: clear the last build's, or they would pile up (and ship).
rmSync(OUT, { recursive: true, force: true });
const options = {
  absWorkingDir: ROOT,
  outdir: OUT,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // cli-table3 is loaded through createRequire (io/output.ts) and stays a package.
  banner: {
    js: "import { createRequire as __giftcodesCreateRequire } from 'node:module'; const require = __giftcodesCreateRequire(import.meta.url);",
  },
  chunkNames: 'chunk-[hash]',
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
};

// Parts of packages left out or loaded later (scripts/bundle-trims.mjs).
const trims = [zodEnglishOnly, undiciWithoutHttp2, commanderLazyChildProcess, cliTableFastStringWidth];

// Pass 1, not written: the plain split, for its import graph (scripts/chunk-groups.mjs).
const MAIN = 'src/main.ts';
const plain = await build({
  ...options,
  entryPoints: { main: join(ROOT, MAIN) },
  write: false,
  plugins: [sourcePatterns(undefined), ...trims],
});
const files = commandFiles().map((file) => `src/commands/${file.replace(/\.js$/, '.ts')}`);
const topLevel = files.filter((f) => {
  const [noun, file] = f.split('/').slice(2);
  return file === `${noun}.ts`;
});
const plan = planGroups(plain.metafile, {
  main: MAIN,
  tiers: {
    // What every command loads: the tree and the top-level command files, and two light
    // modules subcommand files import (the printer, which loads cli-table3 only to draw,
    // and the retry policy's pure functions).
    cli: ['src/program.ts', 'src/context.ts', ...topLevel, 'src/io/output.ts', 'src/api/retry.ts'],
    // What every command that calls the service loads: the client (undici, zod) and the
    // config store.
    http: ['src/api/http.ts', 'src/config/store.ts'],
  },
  // A noun's subcommand files load together (registry.ts).
  sharedBy: (group) => group.startsWith('commands-'),
  groupOf: (input) =>
    files.includes(input) && !topLevel.includes(input) ? `commands-${input.split('/')[2]}` : undefined,
});

// Pass 2: the bundle, every relative `import()` through its group module.
const result = await build({
  ...options,
  entryPoints: { main: `${GROUP_NAMESPACE}:entry:main` },
  plugins: [sourcePatterns(plan), groupModulesPlugin(ROOT, plan, MAIN), ...trims],
});
// Which sources each chunk holds: test/commands/startup-modules.test.ts checks what a help
// page loads through it. Not shipped (package.json `files`).
writeFileSync(join(OUT, 'meta.json'), JSON.stringify(result.metafile));
