#!/usr/bin/env node
// The bundled CLI (build.mjs).
import module from 'node:module';
import { setFlagsFromString } from 'node:v8';

// Node 22.1+ caches the code it compiles (in the OS temp folder): a later start skips
// compiling the bundle. Node 20 has no such cache.
module.enableCompileCache?.();
// Node writes that cache once more as it tears down, after its signal handlers are gone;
// a profile write (src/config/conf.ts) leaves SIGXFSZ with its default action by then, so
// under a file size limit that last write would kill the process (exit 153, not the
// run's own code). Written here instead, while the failed write is still only an error.
process.once('exit', () => module.flushCompileCache?.());
// On Node 20, V8 recompiles the hot function of undici's HTTP parser (llhttp, WebAssembly)
// with TurboFan in every process that makes a request; Liftoff's code alone parses the
// few hundred bytes of an answer as well. Measured (bench/README.md, "Start-up"):
// `catalog` and `balance` about 30 % less CPU on Node 20; on Node 24 no gain, so not set.
if (process.versions.node.startsWith('20.')) setFlagsFromString('--liftoff-only');
const { runFromProcess } = await import('../dist/cli/main.js');
runFromProcess();
