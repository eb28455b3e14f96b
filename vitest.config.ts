import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Builds dist/ once when missing or stale: the end-to-end tests spawn the real binary.
    globalSetup: ['test/global-setup.ts'],
    // The helpers' after-hooks (temp directories, children, scripted-server surprises), per file.
    setupFiles: ['test/setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Processes, not threads: tests spawn the binary, drive pseudo-terminals and send signals.
    pool: 'forks',
    // Two files at a time even on two cores (vitest's default there is one): much of a
    // test's time is spent waiting on sockets and child processes, not on the CPU.
    maxWorkers: 2,
    // The files of a worker share its module graph: importing src/ and the helpers afresh
    // for every file was a third of the suite's CPU time. Safe because nothing a file sets
    // up outlives it: the helpers' hooks are registered per file (test/setup.ts), the CLI
    // takes its environment and streams as arguments, and no test mocks a module or
    // patches a global.
    isolate: false,
  },
});
