// @ts-check
/**
 * Mutation testing of the money-critical modules, one group at a time (mutation/groups.mjs).
 * Not part of `npm test` or CI: it is slow on two cores. Run it with
 *   npm run mutation                      every group, one after another
 *   npm run mutation -- --group signature one group (names in mutation/groups.mjs)
 * Extra arguments go to Stryker (e.g. `--concurrency 2`). Reports land in
 * reports/mutation/<group>.{html,json}; survivors judged equivalent are listed with a
 * reason in mutation/EQUIVALENT.md; the latest scores are in bench/README.md.
 */
import { currentGroup } from './mutation/groups.mjs';

const group = currentGroup();

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: {
    configFile: 'mutation/vitest.config.mjs',
    // The command registry imports commands lazily: "related" finds no test for them and
    // reports every mutant as surviving without running anything.
    related: false,
  },
  coverageAnalysis: 'perTest',
  mutate: group.mutate,
  // The shared machine has two cores: one mutant at a time unless told otherwise.
  concurrency: 1,
  timeoutMS: 10_000,
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
  // dist/ is copied: a group's test file may drive the built binary in a terminal (the
  // errors group's hostile-output test), which no mutant reaches but which must still run.
  ignorePatterns: ['coverage', 'reports', '.giftcodes-tmp', '.stryker-tmp'],
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: `reports/mutation/${group.name}.html` },
  jsonReporter: { fileName: `reports/mutation/${group.name}.json` },
  thresholds: { high: 90, low: 85, break: null },
};
