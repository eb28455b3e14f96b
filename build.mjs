#!/usr/bin/env node
/**
 * The CLI as shipped: `src/main.ts` bundled by esbuild into `dist/cli/`, every package
 * included, with esbuild's own code splitting: each `await import()` of the sources
 * (a command's file, its run, the API layer, the bulk engine, the sandbox) is a chunk
 * loaded when it is reached, so `--help` reads the declarations and commander, not
 * undici, zod or the engine. Measured against one unsplit file (bench/README.md,
 * "Start-up"): the same for the read commands, a quarter less CPU for `--help`.
 * `bin/giftcodes.js` imports `dist/cli/main.js`. `tsc -b tsconfig.build.json` (run first by
 * `npm run build`) still emits `dist/**`: the library entry `dist/index.js`, its
 * declarations, and the modules tests and benchmarks import.
 *
 *   node build.mjs            (run by `npm run build`, after tsc)
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const ROOT = import.meta.dirname;
const OUT = join(ROOT, 'dist', 'cli');

// Chunk names carry a hash: clear the last build's, or they would pile up (and ship).
rmSync(OUT, { recursive: true, force: true });
const { metafile } = await build({
  absWorkingDir: ROOT,
  entryPoints: { main: join(ROOT, 'src', 'main.ts') },
  outdir: OUT,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Bundled CommonJS packages (undici, commander, cli-table3) call `require` for Node's
  // own modules, which an ES module does not have: esbuild's documented answer.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  chunkNames: 'chunk-[hash]',
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
});
// Which sources each chunk holds: tests read it to tell whether a command loaded a package
// (conf, undici) that the bundle inlined into a chunk. Not shipped (package.json `files`).
writeFileSync(join(ROOT, 'dist', 'cli', 'meta.json'), JSON.stringify(metafile));
