/**
 * Vitest as Stryker runs it: only the current group's test files (mutation/groups.mjs),
 * the same per-file hooks as the suite, and no global setup (it builds dist/, which no
 * test of a group uses). Stryker sets the pool and workers itself.
 */
import { defineConfig } from 'vitest/config';
import { currentGroup } from './groups.mjs';

export default defineConfig({
  test: {
    include: currentGroup().tests,
    setupFiles: ['test/setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
