/**
 * The helpers' after-hooks, registered for every test file (a vitest `setupFiles` entry,
 * evaluated again before each file). They are registered here rather than when a helper
 * module is first imported: test files share one module graph per worker
 * (`isolate: false`), so a helper's top level runs once per worker, not once per file.
 *
 * After-hooks run in reverse order of registration, and a file's own hooks (closing its
 * sandbox or servers) run before these: children still running are killed before the
 * temp directories they write to are removed.
 */
import { afterAll, afterEach } from 'vitest';
import { killRunningChildren } from './helpers/cli.js';
import { reportSurprises } from './helpers/server.js';
import { removeTempDirs } from './helpers/temp.js';

// The run's one compile cache (test/global-setup.ts), for the binaries the tests start.
if (process.env.GIFTCODES_TEST_COMPILE_CACHE)
  process.env.NODE_COMPILE_CACHE = process.env.GIFTCODES_TEST_COMPILE_CACHE;

afterAll(removeTempDirs);
afterAll(killRunningChildren);
afterEach(reportSurprises);
afterAll(reportSurprises);
