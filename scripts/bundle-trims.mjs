/**
 * What the bundle (build.mjs) leaves out of packages, or loads later than they ask: each
 * a part of a package the CLI never uses that would cost every run its loading
 * (issue 25, bench/README.md "Start-up"). Behaviour is unchanged for what the CLI uses.
 */
import { dirname, join } from 'node:path';

const FAST_WIDTH = join(import.meta.dirname, 'string-width-fast.cjs');

/**
 * zod's namespace (`z`) re-exports every locale, half of its bundled size, which V8 would
 * parse on every run; the CLI speaks English only, so the locales index offers `en` alone
 * (zod's default, loaded by its schemas directly).
 */
export const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) => {
      if (!args.importer.includes('/node_modules/zod/')) return undefined;
      return { path: join(dirname(args.importer), '..', 'locales', 'index.js'), namespace: 'zod-locales' };
    });
    b.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
      contents: 'export { default as en } from "./en.js";',
      resolveDir: dirname(args.path),
      loader: 'js',
    }));
  },
};

/**
 * undici's HTTP/2 client requires `node:http2` when it loads, inside a try: without it
 * (a runtime that lacks http2) undici carries on with HTTP/1.1 alone. The CLI never asks
 * for HTTP/2 (no `allowH2` on any Agent), and loading node:http2 (with tls and crypto)
 * cost 10-12 ms of CPU and 2 MB on every command that calls the service. In the bundle,
 * undici's `require('node:http2')` throws, as on such a runtime.
 */
export const undiciWithoutHttp2 = {
  name: 'undici-without-http2',
  setup(b) {
    b.onResolve({ filter: /^node:http2$/ }, (args) =>
      args.importer.includes('/node_modules/undici/')
        ? { path: 'http2', namespace: 'undici-no-http2' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'undici-no-http2' }, () => ({
      contents: "throw new Error('node:http2 is left out of the giftcodes bundle (build.mjs)');",
      loader: 'js',
    }));
  },
};

/**
 * commander requires `node:child_process` when it loads, for executable subcommands
 * (`program.command('x', 'description')`), which the CLI does not declare; loading it
 * cost ~2 ms of every run, `--help` included. In the bundle commander gets it on first use.
 */
export const commanderLazyChildProcess = {
  name: 'commander-lazy-child-process',
  setup(b) {
    b.onResolve({ filter: /^node:child_process$/ }, (args) =>
      args.importer.includes('/node_modules/commander/')
        ? { path: 'child_process', namespace: 'commander-child-process' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'commander-child-process' }, () => ({
      contents: "module.exports = new Proxy({}, { get: (_, key) => require('node:child_process')[key] });",
      loader: 'js',
    }));
  },
};

/**
 * cli-table3's string-width, answered without its regular expressions for plain text
 * (scripts/string-width-fast.cjs): a 12-row table drew in ~8 ms less.
 */
export const cliTableFastStringWidth = {
  name: 'cli-table3-fast-string-width',
  setup(b) {
    b.onResolve({ filter: /^string-width$/ }, async (args) => {
      if (!args.importer.includes('/node_modules/cli-table3/')) return undefined;
      const real = await b.resolve('string-width', { kind: 'require-call', resolveDir: args.resolveDir });
      if (real.errors.length) return { errors: real.errors };
      return { path: real.path, namespace: 'cli-table3-string-width' };
    });
    b.onLoad({ filter: /.*/, namespace: 'cli-table3-string-width' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(FAST_WIDTH)})(require(${JSON.stringify(args.path)}));`,
      resolveDir: dirname(args.path),
      loader: 'js',
    }));
  },
};
