#!/usr/bin/env node
/**
 * Writes docs/commands.md from the commands' declarations (src/commands/reference.ts,
 * compiled to dist/). `npm run docs` builds first; test/commands/reference.test.ts
 * fails when the committed file differs from what this writes.
 */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const { commandReference } = await import(join(ROOT, 'dist', 'commands', 'reference.js'));
const path = join(ROOT, 'docs', 'commands.md');
writeFileSync(path, await commandReference());
console.error(`wrote ${path}`);
