import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Builds dist/ once when missing or stale: the end-to-end tests spawn the real binary.
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Processes, not threads: tests spawn the binary, drive pseudo-terminals and send signals.
    pool: 'forks',
    // Two files at a time even on two cores (vitest's default there is one): much of a
    // test's time is spent waiting on sockets and child processes, not on the CPU.
    maxWorkers: 2,
  },
});
