import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: new URL('../..', import.meta.url).pathname,
    include: ['test/temp-check/leaks.ts'],
    globalSetup: ['test/global-setup.ts'],
  },
});
