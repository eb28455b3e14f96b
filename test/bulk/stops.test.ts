/**
 * Issue 32: every stop says what happened, and a disk condition is a stop, never a crash
 * nor a silent exit 0. A seeded schedule of faults over every file a run writes (the
 * plan's temporary files, the journal and its copy, the codes file) injects each error
 * (EACCES, EROFS, ENOSPC, EFBIG, EDQUOT, EIO) at an open, a write or a sync; a real file
 * size limit (RLIMIT_FSIZE, through `prlimit`) does the same to the built binary. Each
 * run ends with exit 4 naming the file, or finishes; the next run completes, and the
 * sandbox's ledger shows every order charged once.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExitCode, FileWriteError } from '../../src/errors.js';
import type { FileOps } from '../../src/io/safe-write.js';
import { BIN, cleanEnv } from '../helpers/cli.js';
import { seeded } from '../helpers/random.js';
import { withSandbox } from '../helpers/sandbox.js';
import { journalState } from './journal-view.js';
import { account, inProcessEngine, mixedRows, proveExactlyOnce, tempDir, writeCsv } from './support.js';

const sb = withSandbox({ seed: 32 });

const ERRNOS = ['EACCES', 'EROFS', 'ENOSPC', 'EFBIG', 'EDQUOT', 'EIO'] as const;

/**
 * Files opened through the run's seam fail with `errno` at their `at`-th operation (an
 * open, a write or a sync, counted across every file), once: what a folder turned
 * read-only, a full disk or a quota does to a run.
 */
function faultAt(at: number, errno: string): FileOps & { hit: string[] } {
  let count = 0;
  const hit: string[] = [];
  const step = (path: string) => {
    count += 1;
    if (count !== at) return;
    hit.push(path);
    throw Object.assign(new Error(`${errno}: injected, ${path}`), { code: errno, path });
  };
  return {
    hit,
    async open(path, flags, mode) {
      step(path);
      const handle = await open(path, flags, mode);
      return new Proxy(handle, {
        get(target, key) {
          const value = Reflect.get(target, key, target);
          if (key === 'write' || key === 'sync')
            return (...args: unknown[]) => {
              step(path);
              return (value as (...a: unknown[]) => unknown).apply(target, args);
            };
          return typeof value === 'function' ? value.bind(target) : value;
        },
      }) as FileHandle;
    },
  };
}

const engine = inProcessEngine(sb, { concurrency: 3 });

describe('a seeded schedule of disk faults over every file a run writes', () => {
  it.each(Array.from({ length: Number(process.env.FAULT_SEEDS ?? 12) }, (_, k) => 100 + k))(
    'seed %i: the run stops with exit 4 naming the file (or finishes), never 0 or 3 early, never INTERNAL; the next run buys each order once',
    async (seed) => {
      const random = seeded(seed);
      const acc = await account(sb, { limits: { maxItemsPerOrder: 2 } });
      const dir = tempDir();
      const input = writeCsv(dir, mixedRows(8));
      const out = join(dir, 'codes.csv');
      const opts = {
        input,
        out,
        stateDir: join(dir, 'state'),
        accountFingerprint: `${seed}abcdef0123`.slice(0, 12),
      };
      // Somewhere among the run's first ~60 file operations: the plan, the appends, the codes file.
      const disk = faultAt(
        1 + Math.floor(random() * 60),
        ERRNOS[Math.floor(random() * ERRNOS.length)] as string,
      );
      const first = await engine(acc.apiKey, opts, { files: disk }).then(
        ({ result }) => ({ result }),
        (error: unknown) => ({ error }),
      );
      if ('error' in first) {
        expect(first.error, String(first.error)).toBeInstanceOf(FileWriteError);
        const error = first.error as FileWriteError;
        expect(error.exitCode).toBe(ExitCode.stoppedResumable);
        // Named as the person knows it: a plan's temporary file by the journal it becomes.
        const named = (path: string) => path.replace(/\.[0-9a-f]{16}\.tmp$/, '');
        expect(disk.hit.map(named)).toEqual([named(error.path)]);
        expect(error.message).toMatch(
          /^cannot write \S+ whole: .*\((EACCES|EROFS|ENOSPC|EFBIG|EDQUOT|EIO)\)/,
        );
      } else {
        // Finished: the fault fell past the run's last operation.
        expect(disk.hit).toEqual([]);
        expect(['done', 'failed-items']).toContain(first.result.outcome);
      }
      const { result: again } = await engine(acc.apiKey, opts);
      expect(['done', 'failed-items']).toContain(again.outcome);
      await proveExactlyOnce(sb, acc.userId, out, { complete: true });
    },
    60_000,
  );
});

const hasPrlimit = spawnSync('prlimit', ['--version']).status === 0;

/** The built binary with RLIMIT_FSIZE at `bytes`: every write past it fails with EFBIG. */
function limited(bytes: number, env: Record<string, string>, args: string[]) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn('prlimit', [`--fsize=${bytes}`, '--', process.execPath, BIN, ...args], {
      env: cleanEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => {
      stdout += c;
    });
    child.stderr.on('data', (c) => {
      stderr += c;
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe.skipIf(!hasPrlimit)('a real file size limit (prlimit --fsize) on the built binary', () => {
  it.each([600, 2_500, 5_000, 12_000])(
    'the plan plus %i bytes: exit 4 naming the file that cannot grow, never 0 with nothing said; the next run finishes exactly once',
    async (extra) => {
      const acc = await account(sb, { limits: { maxItemsPerOrder: 2 } });
      const dir = tempDir();
      const input = writeCsv(dir, mixedRows(40));
      const out = join(dir, 'codes.csv');
      const env = { ...acc.env, GIFTCODES_STATE_DIR: join(dir, 'state') };
      const args = ['order', 'bulk', input, '--out', out, '--yes'];
      // The plan's size: a dry run writes nothing, so plan it in another folder first.
      const probeDir = tempDir();
      const probeOut = join(probeDir, 'codes.csv');
      const other = await account(sb, { limits: { maxItemsPerOrder: 2 } });
      const probe = await limited(1 << 30, { ...other.env, GIFTCODES_STATE_DIR: join(probeDir, 'state') }, [
        'order',
        'bulk',
        input,
        '--out',
        probeOut,
        '--yes',
      ]);
      expect(probe.code, probe.stderr).toBe(0);
      const planBytes = planSize(`${probeOut}.journal`);
      const first = await limited(planBytes + extra, env, args);
      expect(first.code, first.stderr).toBe(ExitCode.stoppedResumable);
      expect(first.stderr).toMatch(
        /cannot write \S+ whole: the file is larger than this process may write \(EFBIG\)/,
      );
      const again = await limited(1 << 30, env, args);
      expect(again.code, again.stderr).toBe(0);
      await proveExactlyOnce(sb, acc.userId, out, { complete: true });
    },
    60_000,
  );
});

/** Bytes of a journal up to its `planned` record: what a new plan writes before the first order is sent. */
function planSize(path: string): number {
  const state = journalState(path);
  expect(state.planComplete).toBe(true);
  const text = readFileSync(path, 'utf8');
  const end = text.indexOf('\n', text.indexOf('"t":"planned"'));
  expect(end).toBeGreaterThan(0);
  expect(statSync(path).size).toBeGreaterThan(end);
  return Buffer.byteLength(text.slice(0, end + 1));
}
