#!/usr/bin/env node
/**
 * `npm run mutation [-- --group <name>[,<name>...]] [stryker options]`: runs Stryker once
 * per group, one after another (the groups' test lists differ, so they cannot share a
 * run). Without --group, every group. Exits non-zero if any run failed to complete.
 */
import { spawnSync } from 'node:child_process';
import { GROUPS } from './groups.mjs';

const args = process.argv.slice(2);
const names = [];
const rest = [];
for (let i = 0; i < args.length; i++) {
  const arg = args[i];
  if (arg === '--group') names.push(...(args[++i] ?? '').split(','));
  else if (arg.startsWith('--group=')) names.push(...arg.slice('--group='.length).split(','));
  else rest.push(arg);
}
const chosen = names.length ? names : Object.keys(GROUPS);
const unknown = chosen.filter((name) => !(name in GROUPS));
if (unknown.length) {
  console.error(`unknown group ${unknown.join(', ')}; groups: ${Object.keys(GROUPS).join(', ')}`);
  process.exit(2);
}
let failed = 0;
for (const name of chosen) {
  console.error(`\n== mutation group ${name}: ${GROUPS[name].what}`);
  const res = spawnSync('npx', ['stryker', 'run', 'stryker.config.mjs', ...rest], {
    stdio: 'inherit',
    env: { ...process.env, GIFTCODES_MUTATION_GROUP: name },
  });
  if (res.status !== 0) failed += 1;
}
process.exit(failed ? 1 : 0);
