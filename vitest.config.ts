import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Builds dist/ once when missing or stale: command tests spawn the real binary.
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Tests spawn the real binary and start loopback servers; two cores here.
    pool: 'forks',
  },
});
