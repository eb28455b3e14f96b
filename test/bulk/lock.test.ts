/**
 * One bulk run per output at a time (issue 9, point 2). The lock module on its own in a
 * temporary directory (take, refuse, stale takeover, two takers racing, another host,
 * a corrupt lock, waiting on an injected clock), then two real processes of the built
 * binary against a real sandbox, the first kept holding its lock by a gate in front of
 * order creation that the test opens once it has seen what it came to see.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  acquireLock,
  HeldLock,
  isStale,
  type LockDeps,
  type LockEnv,
  type LockRecord,
  lockPathFor,
  lockWarning,
  readLock,
  takeOver,
} from '../../src/bulk/store/lock.js';
import { LockedError } from '../../src/errors.js';
import { BIN, cleanEnv, runBinary } from '../helpers/cli.js';
import { type GateProxy, startGateProxy } from '../helpers/gate-proxy.js';
import { withSandbox } from '../helpers/sandbox.js';
import { waitFor } from '../helpers/wait.js';
import { account, mixedRows, proveExactlyOnce, tempDir, unitsOf, writeCsv } from './support.js';

const T0 = Date.parse('2026-03-01T10:00:00Z');
const HOST = 'build-1';
const DEAD = 999_001;

/** An injected clock: sleeping moves time; `onSleep` sees each new time. */
function deps(opts: { env?: Partial<LockEnv>; onSleep?: (now: number) => void } = {}) {
  let now = T0;
  const notices: string[] = [];
  const d: LockDeps & { notices: string[] } = {
    now: () => now,
    sleep: async (ms) => {
      now += ms;
      opts.onSleep?.(now);
    },
    notice: (line) => notices.push(line),
    notices,
    env: { pid: 1000, host: HOST, isAlive: (pid) => pid !== DEAD, bootTimeMs: T0 - 86_400_000, ...opts.env },
  };
  return d;
}

function writeLock(path: string, record: Partial<LockRecord>): void {
  const full = {
    pid: 4242,
    host: HOST,
    startedAt: new Date(T0 - 65_000).toISOString(),
    token: 'x',
    ...record,
  };
  writeFileSync(path, `${JSON.stringify(full)}\n`, { mode: 0o600 });
}

async function refusal(promise: Promise<unknown>): Promise<LockedError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LockedError);
  expect((error as LockedError).exitCode).toBe(2);
  return error as LockedError;
}

describe('the lock module', () => {
  it('takes a free lock: a 0600 file naming pid, host, start and batch; release removes it', async () => {
    const dir = tempDir();
    const path = lockPathFor(join(dir, 'codes.csv'));
    const lock = await acquireLock(path, { batch: 'q4' }, deps());
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const record = JSON.parse(readFileSync(path, 'utf8'));
    expect(record).toMatchObject({
      pid: 1000,
      host: HOST,
      startedAt: new Date(T0).toISOString(),
      batch: 'q4',
    });
    // No temporary file or takeover guard is left beside it.
    expect(readdirSync(dir)).toEqual(['codes.csv.lock']);
    await lock.release();
    expect(existsSync(path)).toBe(false);
    await lock.release();
  });

  it('refuses a live holder at once (exit 2) naming pid, host, ISO start time and age', async () => {
    const path = lockPathFor(join(tempDir(), 'codes.csv'));
    writeLock(path, { pid: 4242, batch: 'q4' });
    const error = await refusal(acquireLock(path, {}, deps()));
    expect(error.code).toBe('LOCKED');
    expect(error.message).toContain(`another run holds ${path}`);
    expect(error.message).toContain(`pid 4242 on host "${HOST}" since 2026-03-01T09:58:55.000Z (1m 05s ago)`);
    expect(error.message).toContain('--wait-lock');
    // The holder's lock is untouched.
    expect(JSON.parse(readFileSync(path, 'utf8')).pid).toBe(4242);
  });

  it('takes over a lock whose process no longer exists, and says so', async () => {
    const path = lockPathFor(join(tempDir(), 'codes.csv'));
    writeLock(path, { pid: DEAD });
    const d = deps();
    const lock = await acquireLock(path, {}, d);
    expect(JSON.parse(readFileSync(path, 'utf8')).pid).toBe(1000);
    expect(d.notices).toEqual([
      expect.stringMatching(new RegExp(`^took over .*pid ${DEAD} .*no longer runs`)),
    ]);
    await lock.release();
  });

  it('a lock from before the machine started is stale even if its pid is in use again', () => {
    const env: LockEnv = { pid: 1, host: HOST, isAlive: () => true, bootTimeMs: T0 };
    const record = { pid: 4242, host: HOST, startedAt: new Date(T0 - 3_600_000).toISOString(), token: 'x' };
    expect(isStale(record, env)).toBe(true);
    expect(isStale({ ...record, startedAt: new Date(T0 + 1000).toISOString() }, env)).toBe(false);
  });

  it('never assumes a lock from another host is stale: refuses, and says to remove it by hand', async () => {
    const path = lockPathFor(join(tempDir(), 'codes.csv'));
    writeLock(path, { pid: DEAD, host: 'other-box' });
    const error = await refusal(acquireLock(path, {}, deps()));
    expect(error.message).toContain(`pid ${DEAD} on host "other-box"`);
    expect(error.message).toMatch(/another host, so it is never assumed to be gone/);
    expect(error.message).toContain(`remove ${path} by hand`);
    expect(JSON.parse(readFileSync(path, 'utf8')).host).toBe('other-box');
  });

  it('refuses a corrupt lock or a symlink in its place, naming the file', async () => {
    const dir = tempDir();
    const path = lockPathFor(join(dir, 'codes.csv'));
    writeFileSync(path, 'not json');
    let error = await refusal(acquireLock(path, {}, deps()));
    expect(error.message).toContain(`${path} does not hold a readable lock record`);
    expect(readFileSync(path, 'utf8')).toBe('not json');

    const target = join(dir, 'precious.txt');
    writeFileSync(target, 'keep me');
    const linked = lockPathFor(join(dir, 'other.csv'));
    symlinkSync(target, linked);
    error = await refusal(acquireLock(linked, {}, deps()));
    expect(error.message).toContain(`${linked} is a symbolic link`);
    expect(readFileSync(target, 'utf8')).toBe('keep me');
  });

  it('two takers of the same stale lock: exactly one wins, the other names the winner', async () => {
    for (let round = 0; round < 15; round++) {
      const path = lockPathFor(join(tempDir(), 'codes.csv'));
      writeLock(path, { pid: DEAD });
      const takers = [2001, 2002, 2003].map((pid) =>
        acquireLock(path, {}, deps({ env: { pid } })).then(
          (lock) => ({ pid, lock }),
          (error: unknown) => ({ pid, error }),
        ),
      );
      const results = await Promise.all(takers);
      const winners = results.filter((r) => 'lock' in r);
      expect(winners).toHaveLength(1);
      const winner = winners[0] as { pid: number; lock: HeldLock };
      expect(JSON.parse(readFileSync(path, 'utf8')).pid).toBe(winner.pid);
      for (const r of results) {
        if ('error' in r) {
          expect(r.error).toBeInstanceOf(LockedError);
          expect((r.error as Error).message).toContain(`pid ${winner.pid} on host`);
        }
      }
      await winner.lock.release();
    }
  });

  it('a taker that saw the stale lock after another replaced it leaves the new lock alone', async () => {
    const path = lockPathFor(join(tempDir(), 'codes.csv'));
    writeLock(path, { pid: DEAD });
    const seen = await readLock(path);
    if (seen.kind !== 'held') throw new Error('expected a lock');
    const env: LockEnv = { pid: 3001, host: HOST, isAlive: (pid) => pid !== DEAD, bootTimeMs: 0 };
    const mine = (pid: number): LockRecord => ({
      pid,
      host: HOST,
      startedAt: new Date(T0).toISOString(),
      token: `t${pid}`,
    });
    const first = await takeOver(path, seen, mine(3001), env);
    expect(first).toBeInstanceOf(HeldLock);
    // The late taker acts on what it read before: the lock is no longer that one.
    expect(await takeOver(path, seen, mine(3002), { ...env, pid: 3002 })).toBe('changed');
    expect(JSON.parse(readFileSync(path, 'utf8')).pid).toBe(3001);
    await (first as HeldLock).release();
  });

  it('release leaves a lock that is no longer its own', async () => {
    const path = lockPathFor(join(tempDir(), 'codes.csv'));
    const lock = await acquireLock(path, {}, deps());
    writeLock(path, { pid: 4242 });
    await lock.release();
    expect(JSON.parse(readFileSync(path, 'utf8')).pid).toBe(4242);
  });

  it('--wait-lock: says once who holds it, polls on the injected clock, takes it when released', async () => {
    const path = lockPathFor(join(tempDir(), 'codes.csv'));
    writeLock(path, { pid: 4242 });
    const d = deps({
      // The holder finishes three seconds in.
      onSleep: (now) => {
        if (now >= T0 + 3_000) rmSync(path, { force: true });
      },
    });
    const lock = await acquireLock(path, { waitMs: 60_000, pollMs: 500 }, d);
    expect(d.now() - T0).toBe(3_000);
    expect(d.notices).toEqual([
      expect.stringMatching(new RegExp(`^waiting up to 1m 00s for .*held by pid 4242 on host "${HOST}"`)),
    ]);
    await lock.release();
  });

  it('--wait-lock: when the wait ends first, refuses (exit 2) saying how long it waited', async () => {
    const path = lockPathFor(join(tempDir(), 'codes.csv'));
    writeLock(path, { pid: 4242 });
    const d = deps();
    const error = await refusal(acquireLock(path, { waitMs: 5_000, pollMs: 1_000 }, d));
    expect(error.message).toContain('pid 4242');
    expect(error.message).toContain('waited 5s with --wait-lock');
    expect(d.notices).toHaveLength(1);
  });

  it('a dry run only warns: held, stale or corrupt', async () => {
    const path = lockPathFor(join(tempDir(), 'codes.csv'));
    const env = { host: HOST, isAlive: (pid: number) => pid !== DEAD, bootTimeMs: 0 };
    expect(await lockWarning(path, T0, env)).toBeUndefined();
    writeLock(path, { pid: 4242 });
    expect(await lockWarning(path, T0, env)).toMatch(/another run holds .*pid 4242.*refuses \(exit 2\)/);
    writeLock(path, { pid: DEAD });
    expect(await lockWarning(path, T0, env)).toMatch(/no longer runs: a real run takes it over/);
    writeFileSync(path, '{');
    expect(await lockWarning(path, T0, env)).toMatch(/refuses until it is removed/);
  });
});

// Two real processes of the built binary.
const sb = withSandbox({ seed: 31 });
const children: ChildProcess[] = [];
const gates: GateProxy[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  for (const gate of gates.splice(0)) await gate.close();
});

interface Background {
  child: ChildProcess;
  stderr(): string;
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

function background(args: string[], env: Record<string, string>): Background {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: cleanEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (c: string) => {
    stdout += c;
  });
  child.stderr?.setEncoding('utf8').on('data', (c: string) => {
    stderr += c;
  });
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  return { child, stderr: () => stderr, done };
}

/**
 * Waits on what the runs leave on disk and at the gate. The deadline only stops a hung
 * test: two binaries starting on a loaded machine took more than the 20 s this was.
 */
function until(what: string, check: () => boolean): Promise<boolean> {
  return waitFor(check, { what, timeoutMs: HANG_MS });
}

/** Guards against a hang, never a duration: a test here waits on events only. */
const HANG_MS = 180_000;

function journalHas(out: string, marker: string): boolean {
  const path = `${out}.journal`;
  return existsSync(path) && readFileSync(path, 'utf8').includes(marker);
}

/**
 * A batch of several orders whose order creation goes through a gate: after the first
 * `pass` orders, each waits there until the test opens it, so a run holds its lock for
 * as long as the test needs.
 */
async function gatedBatch(pass = 0) {
  const gate = await startGateProxy(sb.url, { route: 'POST /b2b/orders', pass });
  gates.push(gate);
  const acc = await account(sb, { limits: { maxItemsPerOrder: 1 } });
  const env = { ...acc.env, GIFTCODES_BASE_URL: gate.url };
  const dir = tempDir();
  const lines = mixedRows(6);
  const input = writeCsv(dir, lines);
  const out = join(dir, 'codes.csv');
  const args = ['order', 'bulk', input, '--out', out, '--yes', '--concurrency', '1'];
  return { acc, env, gate, lines, out, args, lock: lockPathFor(out) };
}

describe('two real runs of the same batch and --out', () => {
  it(
    'the second refuses at once with exit 2 naming the holder; a dry run only warns; the first finishes',
    async () => {
      const { acc, env, gate, lines, out, args, lock } = await gatedBatch();
      const first = background(args, env);
      await until(
        'the first run to hold the lock, plan, and wait at the gate',
        () => existsSync(lock) && journalHas(out, '"t":"planned"') && gate.held > 0,
      );

      // Both while the first run holds the lock (its first order waits at the gate).
      const [second, dry] = await Promise.all([
        runBinary(args, { env }),
        runBinary([...args, '--dry-run'], { env }),
      ]);
      expect(second.code, second.stderr).toBe(2);
      expect(second.stderr).toContain('error LOCKED: another run holds');
      expect(second.stderr).toContain(`pid ${first.child.pid} on host "${hostname()}" since `);
      expect(second.stderr).toMatch(/since \d{4}-\d\d-\d\dT[\d:.]+Z \(\d+s ago\)/);

      expect(dry.code, dry.stderr).toBe(0);
      expect(dry.stdout + dry.stderr).toContain(`another run holds ${lock}`);

      gate.open();
      const done = await first.done;
      expect(done.code, done.stderr).toBe(0);
      expect(existsSync(lock)).toBe(false);
      // The refused run wrote nothing: one batch header in the journal, every order bought once.
      expect(readFileSync(`${out}.journal`, 'utf8').split('"t":"batch"').length - 1).toBe(1);
      await proveExactlyOnce(sb, acc.userId, out, { complete: true, inputUnits: unitsOf(lines) });
    },
    2 * HANG_MS,
  );

  it(
    '--wait-lock: the second says who holds it, waits, then resumes; nothing is bought twice',
    async () => {
      const { acc, env, gate, lines, out, args, lock } = await gatedBatch();
      const first = background(args, env);
      await until('the first run to hold the lock', () => existsSync(lock));
      const second = background([...args, '--wait-lock', '30m'], env);
      await until('the second run to say it waits', () => second.stderr().includes('waiting up to'));
      expect(second.stderr()).toContain(`held by pid ${first.child.pid} on host "${hostname()}"`);

      gate.open();
      const [one, two] = await Promise.all([first.done, second.done]);
      expect(one.code, one.stderr).toBe(0);
      expect(two.code, two.stderr).toBe(0);
      expect(two.stderr.match(/waiting up to/g)).toHaveLength(1);
      expect(existsSync(lock)).toBe(false);
      const { orders } = await proveExactlyOnce(sb, acc.userId, out, {
        complete: true,
        inputUnits: unitsOf(lines),
      });
      // The second run resumed the finished batch: one plan, one submission per order, all by the first.
      const journal = readFileSync(`${out}.journal`, 'utf8');
      expect(journal.split('"t":"batch"').length - 1).toBe(1);
      expect(journal.split('"t":"submit"').length - 1).toBe(orders.length);
      // The second found the batch finished and its codes file intact: it read no order and
      // left the file as the first wrote it (issue 25).
      expect(journal.split('"t":"output"').length - 1).toBe(1);
    },
    2 * HANG_MS,
  );

  it(
    'every way out releases the lock: refused input (exit 2), Ctrl-C (exit 130)',
    async () => {
      const { env, gate, out, args, lock } = await gatedBatch(1);
      const bad = writeCsv(join(out, '..'), ['productId,skuId,amount', 'prd_nope,sku_nope,5'], 'bad.csv');
      const refused = await runBinary(['order', 'bulk', bad, '--out', out, '--yes'], { env });
      expect(refused.code, refused.stderr).toBe(2);
      expect(existsSync(lock)).toBe(false);

      const run = background(args, env);
      await until(
        'the first order, and the second at the gate',
        () => journalHas(out, '"t":"created"') && gate.held > 0,
      );
      run.child.kill('SIGINT');
      const done = await run.done;
      expect(done.code, done.stderr).toBe(130);
      expect(existsSync(lock)).toBe(false);
    },
    2 * HANG_MS,
  );

  it(
    'a lock left by a SIGKILLed run is taken over by the next, which says so and finishes',
    async () => {
      const { acc, env, gate, lines, out, args, lock } = await gatedBatch(1);
      const first = background(args, env);
      await until(
        'the first run to create an order',
        () => journalHas(out, '"t":"created"') && gate.held > 0,
      );
      first.child.kill('SIGKILL');
      await first.done;
      const left = JSON.parse(readFileSync(lock, 'utf8'));
      expect(left).toMatchObject({ pid: first.child.pid, host: hostname() });

      // The order the killed run had in flight goes on to the service, as it would have.
      gate.open();
      const next = await runBinary(args, { env, timeoutMs: HANG_MS });
      expect(next.code, next.stderr).toBe(0);
      expect(next.stderr).toContain(`took over ${lock}: it was left by pid ${first.child.pid} on host`);
      expect(next.stderr).toContain('which no longer runs');
      expect(existsSync(lock)).toBe(false);
      await proveExactlyOnce(sb, acc.userId, out, { complete: true, inputUnits: unitsOf(lines) });
    },
    2 * HANG_MS,
  );
});
