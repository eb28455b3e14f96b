#!/usr/bin/env node
// The bundled CLI (build.mjs): a few chunks to read at start-up instead of every module.
import('../dist/cli/main.js').then((m) => m.runFromProcess());
