import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The slowest files, slowest first, as measured on a fresh clone: most of them spawn the
 * binary or drive a pseudo-terminal again and again. They start before everything else.
 * Vitest itself starts the longest files first, but only by the durations it recorded on
 * earlier runs; a fresh clone (CI) has none, and then it starts the larger files first,
 * which put the small slow ones last: one of them kept a worker busy for 10 s and more
 * while the other had nothing left to run. A file not listed runs in vitest's order.
 */
const SLOWEST = [
  'test/bulk/crash.test.ts',
  'test/bulk/lock.test.ts',
  // The store contract's million-order case: 15-30 s of one worker thread.
  'test/bulk/store-contract.test.ts',
  'test/operator/guided-deposit.test.ts',
  // Every command that prints a table, twice through the binary (a pipe, then a terminal).
  'test/commands/tables-fit.test.ts',
  'test/bulk/streaming.test.ts',
  'test/bulk/history-free.test.ts',
  'test/bulk/faults.test.ts',
  'test/operator/deposit.test.ts',
  'test/commands/foundation-cli.test.ts',
  'test/bulk/commands.test.ts',
  'test/bulk/topup-tty.test.ts',
  'test/commands/tty.test.ts',
  'test/webhooks/tty-confirm.test.ts',
  'test/bulk/guards.test.ts',
  'test/commands/sandbox-command.test.ts',
  'test/webhooks/sandbox-e2e.test.ts',
  'test/commands/config-login.test.ts',
  'test/commands/sandbox-write-env.test.ts',
  'test/unit/temp-check.test.ts',
  'test/commands/security.test.ts',
];

class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const i = SLOWEST.findIndex((path) => file.moduleId.endsWith(`/${path}`));
      return i === -1 ? SLOWEST.length : i;
    };
    // A stable sort: the files not listed keep vitest's order among themselves.
    return sorted
      .map((file, i) => ({ file, i }))
      .sort((a, b) => rank(a.file) - rank(b.file) || a.i - b.i)
      .map(({ file }) => file);
  }
}

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
    sequence: { sequencer: SlowestFirst },
  },
});
