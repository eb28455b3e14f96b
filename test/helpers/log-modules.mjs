/**
 * `node --import ./log-modules.mjs ...`: writes every module the process loads, one URL
 * or path a line, to the file named by LOG_MODULES. ES modules are seen by a resolve hook
 * (it runs on the loader thread: this same file, registered by itself); CommonJS modules
 * are read from the require cache when the process exits. Used by
 * test/commands/startup-modules.test.ts.
 */
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { isMainThread } from 'node:worker_threads';

const log = process.env.LOG_MODULES;

export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  if (log) appendFileSync(log, `${result.url}\n`);
  return result;
}

if (isMainThread && log) {
  register(import.meta.url);
  const cache = createRequire(import.meta.url).cache;
  process.on('exit', () => appendFileSync(log, `${Object.keys(cache).join('\n')}\n`));
}
