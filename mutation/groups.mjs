/**
 * The mutation-testing groups: the modules where a bug costs money or codes, each with
 * the test files that exercise it in-process (the tests that spawn the binary run the
 * compiled dist/, which a mutant never reaches, so they are left out: they would only
 * cost time). Run one with `npm run mutation -- --group <name>`.
 */
import { readFileSync } from 'node:fs';

/**
 * main.ts up to `runFromProcess`: that function (signals, EPIPE, the process's exit code)
 * runs only in the binary, on dist/, which no mutant reaches; the binary tests cover it.
 */
function mainBeforeRunFromProcess() {
  const lines = readFileSync(new URL('../src/main.ts', import.meta.url), 'utf8').split('\n');
  const at = lines.findIndex((line) => line.startsWith('export async function runFromProcess'));
  return at > 0 ? `src/main.ts:1-${at}` : 'src/main.ts';
}

export const GROUPS = {
  signature: {
    what: 'webhook signature and verification',
    mutate: ['src/webhooks/signature.ts', 'src/webhooks/verify.ts'],
    tests: [
      'test/webhooks/signature.test.ts',
      'test/webhooks/signature-edges.test.ts',
      'test/webhooks/vectors.test.ts',
    ],
  },
  money: {
    what: 'money arithmetic and the balance shortfall',
    mutate: ['src/money.ts', 'src/bulk/run/shortfall.ts'],
    tests: [
      'test/unit/money.test.ts',
      'test/bulk/shortfall.test.ts',
      'test/bulk/stages/preflight-shortfall.test.ts',
    ],
  },
  accounting: {
    what: "a run's money summed from its journal, the money reader and the SKU grid",
    mutate: ['src/bulk/accounting.ts', 'src/decimal.ts', 'src/sku-grid.ts'],
    tests: [
      'test/bulk/accounting.test.ts',
      'test/bulk/stages/finish.test.ts',
      'test/bulk/stages/runner.test.ts',
      'test/unit/money-input.test.ts',
      'test/unit/sku-grid.test.ts',
      'test/unit/format.test.ts',
    ],
  },
  refs: {
    what: 'refs, the plan, the anchor rule and resume',
    mutate: [
      'src/bulk/plan/refs.ts',
      'src/bulk/plan/plan.ts',
      'src/bulk/run/anchor-gate.ts',
      'src/bulk/run/resume.ts',
    ],
    tests: [
      'test/bulk/golden-refs.test.ts',
      'test/bulk/plan.test.ts',
      'test/bulk/packer.test.ts',
      'test/bulk/shortfall.test.ts',
      'test/bulk/stages/planning.test.ts',
      'test/bulk/stages/resume.test.ts',
      'test/bulk/stages/runner.test.ts',
      // order rebuy's replacement refs (refs.ts), through the command in-process.
      'test/bulk/rebuy.test.ts',
    ],
  },
  submit: {
    what: 'submit classification and retry',
    mutate: ['src/bulk/run/submit.ts', 'src/api/retry.ts'],
    tests: [
      'test/bulk/submit-edges.test.ts',
      'test/bulk/units.test.ts',
      'test/bulk/poll-schedule.test.ts',
      'test/bulk/stages/runner.test.ts',
      'test/bulk/stages/scheduler.test.ts',
      'test/unit/retry.test.ts',
      'test/unit/http-client.test.ts',
    ],
  },
  errors: {
    what: 'error to write outcome and exit code',
    mutate: ['src/errors.ts', mainBeforeRunFromProcess()],
    tests: [
      'test/unit/errors-edges.test.ts',
      // run() in-process: the JSON error object, stop-signal codes, typed secrets, the streams.
      'test/unit/run.test.ts',
      'test/unit/exit-codes.test.ts',
      'test/unit/api-errors.test.ts',
      'test/unit/write-outcome.test.ts',
      'test/unit/http-client.test.ts',
      'test/bulk/units.test.ts',
      'test/commands/internal-error.test.ts',
      'test/commands/hostile-output.test.ts',
      // Echoed and typed secrets redacted, typedSecrets' own contract.
      'test/commands/side-doors.test.ts',
      'test/operator/interrupted-write.test.ts',
      'test/operator/lost-outcome.test.ts',
    ],
  },
};

/** The group named by GIFTCODES_MUTATION_GROUP (set by mutation/run.mjs). */
export function currentGroup() {
  const name = process.env.GIFTCODES_MUTATION_GROUP;
  const group = name ? GROUPS[name] : undefined;
  if (!group)
    throw new Error(
      `GIFTCODES_MUTATION_GROUP must name a group (${Object.keys(GROUPS).join(', ')}): run "npm run mutation -- --group <name>"`,
    );
  return { name, ...group };
}
