/**
 * A full disk never cuts the codes file and never leaves a run without its journal
 * (issue 22, point 6). The fault is injected through the run's `files` seam (short
 * writes, then ENOSPC) and, where the machine allows it, made real with a tiny tmpfs.
 * The oracle is the sandbox's ledger: after space is freed, a re-run completes with
 * every order charged once and every code written once.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileWriteError } from '../../src/errors.js';
import { runInProcess } from '../helpers/cli.js';
import { fillingDisk } from '../helpers/disk.js';
import { withSandbox } from '../helpers/sandbox.js';
import { account, inProcessEngine, mixedRows, proveExactlyOnce, tempDir, writeCsv } from './support.js';

const sb = withSandbox({ seed: 22 });

const engine = inProcessEngine(sb, { concurrency: 2 });

async function failure(run: Promise<unknown>): Promise<FileWriteError> {
  const error = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FileWriteError);
  return error as FileWriteError;
}

describe('a full disk under order bulk (injected)', () => {
  it('the codes file: short writes then ENOSPC stop the run, name the file, leave no cut file; a re-run writes it whole', async () => {
    const acc = await account(sb);
    const dir = tempDir();
    const input = writeCsv(dir, mixedRows(10));
    const out = join(dir, 'codes.csv');
    // Only the codes file's temporary file fills up: 300 bytes is past its header, short of its end.
    const disk = fillingDisk(
      300,
      (path) => /^\.[0-9a-f]{16}\.tmp$/.test(path.slice(out.length)) && path.startsWith(out),
    );
    const error = await failure(engine(acc.apiKey, { input, out }, { files: disk }));
    expect(disk.faulted.length).toBeGreaterThan(0);
    expect(error.message).toBe(
      `cannot write ${out} whole: no space left on the device (ENOSPC); no codes file was written (an earlier ${out}, if any, is unchanged); free space and run the same command again: it writes the file from the journal without buying again`,
    );
    expect(error.exitCode).not.toBe(0);
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);

    // Space again: the same command writes every code once, buying nothing twice.
    const charged = (await sb.operator.ledger(acc.userId)).entries.filter(
      (e) => e.type === 'order_charge',
    ).length;
    const { result: again } = await engine(acc.apiKey, { input, out });
    expect(again.outcome).toBe('done');
    const proof = await proveExactlyOnce(sb, acc.userId, out, { complete: true });
    expect(proof.charges.length).toBe(charged);
  });

  it.each<[string, (out: string, stateDir: string) => (path: string) => boolean, RegExp]>([
    [
      'beside --out',
      (out) => (path) => path === `${out}.journal`,
      /^cannot write \S+codes\.csv\.journal whole/,
    ],
    [
      'its copy in the state directory',
      (_out, stateDir) => (path) => path.startsWith(join(stateDir, 'batches')) && path.endsWith('.journal'),
      /^cannot write \S+\/batches\/\S+\.journal whole/,
    ],
  ])(
    'the journal %s: a record cut by ENOSPC stops the run before anything more is sent, never exit 0',
    async (_where, which, names) => {
      const acc = await account(sb);
      const dir = tempDir();
      const input = writeCsv(dir, mixedRows(10));
      const out = join(dir, 'codes.csv');
      const stateDir = join(dir, 'state');
      // The plan goes in whole; the first order's "created" record is cut, then the disk is full.
      const disk = fillingDisk(10, which(out, stateDir), '"t":"created"');
      const error = await failure(engine(acc.apiKey, { input, out, stateDir }, { files: disk }));
      expect(disk.faulted.length).toBeGreaterThan(0);
      expect(error.message).toMatch(names);
      expect(error.message).toMatch(
        / whole: no space left on the device \(ENOSPC\); the journal that makes a crash safe is not whole, so the run stopped before sending anything more; free space and run the same command again$/,
      );
      expect(error.exitCode).not.toBe(0);
      expect(existsSync(out)).toBe(false);
      // The anchor goes alone: its record was the first to fail, so nothing else was sent.
      const { orders } = await sb.operator.orders(acc.userId);
      expect(orders).toHaveLength(1);

      const { result: again } = await engine(acc.apiKey, { input, out, stateDir });
      expect(again.outcome).toBe('done');
      await proveExactlyOnce(sb, acc.userId, out, { complete: true });
    },
  );
});

/** A real tmpfs of a few pages, when this process may mount one (root in a container); else skipped. */
function mountTmpfs(dir: string, size: string): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const mounted: string[] = [];
afterEach(() => {
  // Lazy: a descriptor a failed run left open must not keep the mount (and the temp dir) behind.
  for (const dir of mounted.splice(0)) execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
});

describe('a full disk under order bulk (a real tmpfs)', () => {
  it('exits non-zero naming the file, never "codes written", and a re-run after space is freed completes', async ({
    skip,
  }) => {
    const acc = await account(sb);
    const dir = tempDir();
    const input = writeCsv(dir, mixedRows(40));
    const small = join(dir, 'small');
    mkdirSync(small);
    if (!mountTmpfs(small, '64k')) skip('cannot mount a tmpfs here (needs root)');
    mounted.push(small);
    // Leave only a few KB free: the run fails somewhere in the journal, parts or output.
    const filler = join(small, 'filler');
    writeFileSync(filler, Buffer.alloc(52 * 1024));
    const out = join(small, 'codes.csv');
    const env = { ...acc.env, GIFTCODES_STATE_DIR: join(dir, 'state') };
    const args = ['order', 'bulk', input, '--out', out, '--yes'];
    const first = await runInProcess(args, { env, deps: { clock: sb.clock() } });
    expect(first.code, first.stderr).toBe(4);
    expect(first.stderr).toMatch(
      new RegExp(`cannot write ${small}/codes\\.csv\\S* whole: no space left on the device \\(ENOSPC\\)`),
    );
    expect(first.stdout + first.stderr).not.toContain('codes written');
    expect(existsSync(out)).toBe(false);

    rmSync(filler);
    const second = await runInProcess(args, { env, deps: { clock: sb.clock() } });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout + second.stderr).toContain(`codes written to ${out}`);
    await proveExactlyOnce(sb, acc.userId, out, { complete: true });
  });
});
