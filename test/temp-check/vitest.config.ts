import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: new URL('../..', import.meta.url).pathname,
    include: ['test/temp-check/leaks.ts'],
    globalSetup: ['test/global-setup.ts'],
    // No results cache: test/unit/temp-check.test.ts runs two of these at once, and the
    // outer run owns the cache file.
    cache: false,
  },
});
