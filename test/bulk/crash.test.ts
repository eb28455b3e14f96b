/**
 * kill -9 at many points of a real run (the built binary as a child), then run the
 * same command again until it ends: the money proof must hold every time.
 * `npm run build` first: the binary runs dist/.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJournal } from '../../src/bulk/store/journal.js';
import { BIN, cleanEnv, runBinary, runInProcess } from '../helpers/cli.js';
import { withSandbox } from '../helpers/sandbox.js';
import { account, mixedRows, proveExactlyOnce, tempDir, unitsOf, writeCsv } from './support.js';

const sb = withSandbox({ seed: 23 });

/**
 * Guards against a hang, never a duration: every kill lands on an event in the journal,
 * and a loaded machine spends seconds starting each of the dozen binaries a test runs.
 */
const HANG_MS = 180_000;

type Counts = { submit: number; created: number; planned: number; pending: number };

function counts(path: string): Counts {
  const text = existsSync(path) ? readFileSync(path, 'utf8') : '';
  const n = (marker: string) => text.split(marker).length - 1;
  return {
    submit: n('"t":"submit"'),
    created: n('"t":"created"'),
    planned: n('"t":"planned"'),
    pending: n('"t":"output-pending"'),
  };
}

/**
 * Start the binary and SIGKILL it once `when` holds for the journal (checked every
 * few ms) relative to the journal at the start: the kill lands at a chosen step of
 * the run, not at a guessed time. Resolves with the exit code, or null if killed.
 */
function runAndKill(
  args: string[],
  env: Record<string, string>,
  journal: string,
  when: (now: Counts, before: Counts, elapsedMs: number) => boolean,
): Promise<number | null> {
  const before = counts(journal);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: cleanEnv(env),
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    const timer = setInterval(() => {
      if (when(counts(journal), before, Date.now() - started)) child.kill('SIGKILL');
    }, 3);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearInterval(timer);
      resolve(code);
    });
  });
}

/** A fingerprint of how far the journal got: which phase the kill landed in. */
function journalPhase(path: string): string {
  if (!existsSync(path)) return 'no journal';
  const text = readFileSync(path, 'utf8');
  const { state } = parseJournal(text);
  if (!state.planComplete) return 'plan being written';
  const counts = { submit: 0, created: 0, output: 0 };
  for (const line of text.split('\n')) {
    if (line.includes('"t":"submit"')) counts.submit++;
    if (line.includes('"t":"created"')) counts.created++;
    if (line.includes('"t":"output"')) counts.output++;
  }
  return `submit ${counts.submit} created ${counts.created} output ${counts.output}`;
}

describe('crash safety of the real binary', () => {
  it(
    'SIGKILL at many points, re-run until done: one charge per order, every code once',
    async () => {
      await sb.operator.setFaults({ latencyMs: 40 });
      const acc = await account(sb, { limits: { maxItemsPerOrder: 2 } });
      const dir = tempDir();
      const lines = mixedRows(24, { partial: true });
      const input = writeCsv(dir, lines);
      const out = join(dir, 'codes.csv');
      const args = ['order', 'bulk', input, '--out', out, '--yes', '--concurrency', '2'];
      const journal = `${out}.journal`;
      type When = Parameters<typeof runAndKill>[3];
      const points: Array<[string, When]> = [
        // Once the run holds its lock (it has started; its plan is not written yet): an
        // event, not a guessed 120 ms that a loaded machine spends starting Node.
        ['during start-up and preflight', () => existsSync(`${out}.lock`)],
        ['right after the plan is durable', (n) => n.planned > 0],
        ['between a journaled submit and its response', (n, b) => n.submit > b.submit],
        ['mid-submission', (n, b) => n.created >= b.created + 2],
        ['mid-submission, later', (n, b) => n.created >= b.created + 3],
        ['mid-poll', (n, b) => n.created >= b.created + 4],
        ['mid-poll, later', (n, b) => n.created >= b.created + 6],
        ['while the output is written', (n, b) => n.pending > b.pending],
        ['after a resumed submit', (n, b) => n.submit > b.submit],
        ['mid-poll of a resumed run', (n, b) => n.created >= b.created + 2],
      ];
      const phases = new Set<string>();
      for (const [, when] of points) {
        const code = await runAndKill(args, acc.env, journal, when);
        phases.add(journalPhase(journal));
        if (code !== null) break;
      }
      let final = await runBinary(args, { env: acc.env, timeoutMs: HANG_MS });
      for (let i = 0; i < 3 && final.code === 4; i++)
        final = await runBinary(args, { env: acc.env, timeoutMs: HANG_MS });
      expect(final.code, final.stderr).toBe(3);
      await proveExactlyOnce(sb, acc.userId, out, { complete: true, inputUnits: unitsOf(lines) });
      // The kills landed in several different places of the run.
      expect(phases.size).toBeGreaterThanOrEqual(4);
      await sb.operator.setFaults({});
    },
    4 * HANG_MS,
  );

  it(
    'Ctrl-C mid-run exits 130 with a consistent journal; the same command resumes',
    async () => {
      await sb.operator.setFaults({ latencyMs: 40 });
      const acc = await account(sb, { limits: { maxItemsPerOrder: 2 } });
      const dir = tempDir();
      const lines = mixedRows(16);
      const input = writeCsv(dir, lines);
      const out = join(dir, 'codes.csv');
      const journal = `${out}.journal`;
      const args = ['order', 'bulk', input, '--out', out, '--yes', '--concurrency', '2'];
      // No GIFTCODES_TIMEOUT: the config store loads, and with it `when-exit`, which echoes
      // SIGINT back to the process. The echo must not count as a second Ctrl-C.
      const env = { ...acc.env, GIFTCODES_TIMEOUT: undefined };
      const result = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
        const child = spawn(process.execPath, [BIN, ...args], {
          env: cleanEnv(env),
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        let stderr = '';
        child.stderr.setEncoding('utf8').on('data', (c) => {
          stderr += c;
        });
        let sent = false;
        const timer = setInterval(() => {
          if (!sent && counts(journal).created >= 2) {
            sent = true;
            child.kill('SIGINT');
          }
        }, 3);
        child.on('error', reject);
        child.on('exit', (code) => {
          clearInterval(timer);
          resolve({ code, stderr });
        });
      });
      expect(result.code, result.stderr).toBe(130);
      expect(result.stderr).toMatch(/interrupted/);
      await proveExactlyOnce(sb, acc.userId, out, { complete: false });
      const again = await runBinary(args, { env: acc.env, timeoutMs: HANG_MS });
      expect(again.code, again.stderr).toBe(0);
      await proveExactlyOnce(sb, acc.userId, out, { complete: true, inputUnits: unitsOf(lines) });
      await sb.operator.setFaults({});
    },
    2 * HANG_MS,
  );

  // The crash is written into the journal and the folder, not made: both runs are in-process.
  it('a crash while the output was being replaced leaves a file the next run recognises as its own', async () => {
    const acc = await account(sb, { limits: { maxItemsPerOrder: 3 } });
    const dir = tempDir();
    const input = writeCsv(dir, mixedRows(6));
    const out = join(dir, 'codes.csv');
    const args = ['order', 'bulk', input, '--out', out, '--yes'];
    expect((await runInProcess(args, { env: acc.env })).code).toBe(0);
    // As if killed after the rename but before the final journal record, with a stale temp file.
    const journal = readFileSync(`${out}.journal`, 'utf8').split('\n');
    const withoutLastOutput = journal.filter(
      (l, i) => !(l.includes('"t":"output"') && i === journal.length - 2),
    );
    writeFileSync(`${out}.journal`, withoutLastOutput.join('\n'));
    // Temporary outputs have random names in the output's folder (issue 12).
    writeFileSync(`${out}.0123456789abcdef.tmp`, 'half written');
    const again = await runInProcess(args, { env: acc.env });
    expect(again.code, again.stderr).toBe(0);
    await proveExactlyOnce(sb, acc.userId, out, { complete: true });
    expect(existsSync(`${out}.0123456789abcdef.tmp`)).toBe(false);
  });
});
