/**
 * Runs TypeScript in a worker thread with hard V8 resource limits. Node 20 cannot load
 * TypeScript itself, and vitest's module runner does not reach into a worker, so the
 * entry is bundled first with esbuild (the build's own bundler, build.mjs) into one ES
 * module in a temp directory. The worker posts one message, its result; a worker that
 * exceeds its heap is ended by V8 and the promise rejects with ERR_WORKER_OUT_OF_MEMORY.
 */
import { join } from 'node:path';
import { type ResourceLimits, Worker } from 'node:worker_threads';
import { build } from 'esbuild';
import { tempDirFor } from './temp.js';

export interface TsWorkerOptions {
  /** The folder the entry's relative imports are resolved from. */
  resolveDir: string;
  workerData?: unknown;
  resourceLimits: ResourceLimits;
}

/**
 * Bundles `entry` (TypeScript source whose last act is `parentPort.postMessage(result)`)
 * and runs it; resolves with the posted result, rejects with the worker's error.
 */
export async function runTsWorker<T>(entry: string, options: TsWorkerOptions): Promise<T> {
  const outfile = join(tempDirFor('giftcodes-ts-worker-'), 'entry.mjs');
  await build({
    stdin: { contents: entry, resolveDir: options.resolveDir, loader: 'ts', sourcefile: 'worker-entry.ts' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    logLevel: 'silent',
    // Bundled CommonJS dependencies call require: give the ES module one.
    banner: {
      js: "import { createRequire as __tsWorkerRequire } from 'node:module';\nconst require = __tsWorkerRequire(import.meta.url);",
    },
  });
  const worker = new Worker(outfile, {
    workerData: options.workerData,
    resourceLimits: options.resourceLimits,
  });
  return new Promise<T>((resolve, reject) => {
    let result: { value: T } | undefined;
    worker.once('message', (value: T) => {
      result = { value };
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (result) resolve(result.value);
      else reject(new Error(`the worker exited (${code}) without a result`));
    });
  });
}
