/**
 * One bulk run per output at a time: an exclusive lock file
 * `<out>.lock`, taken before the run reads its journal or writes anything, and
 * recording who holds it (pid, host, start time) so that a refusal can name the holder.
 * Node has no flock in core; a file that says who holds it also serves the messages.
 *
 * - Taking: the record is written to a private temporary file (O_EXCL, O_NOFOLLOW,
 *   0600), then hard-linked to `<out>.lock`. link() fails with EEXIST when the name
 *   exists (a symlink included, which it never follows), so the lock appears whole or
 *   not at all: a second run never reads a half-written lock.
 * - Stale: on this host, its pid no longer exists (or the machine restarted since it
 *   started). A lock from another host is never assumed stale.
 * - Takeover: only the process that creates `<out>.lock.takeover-<id of that stale
 *   lock>` (O_EXCL) may remove it; it re-reads the lock, removes it only if it is still
 *   that same stale lock, and then takes the lock like anyone else. Two takers that saw
 *   the same stale lock cannot both win: one fails the O_EXCL create, and a lock's id
 *   (a hash of its bytes, which hold a random token) is never seen again once removed.
 * - Release: only a lock that is still ours is removed. An 'exit' hook removes it when
 *   the process ends without unwinding (a second Ctrl-C); after SIGKILL it stays, and the
 *   next run takes it over as stale.
 */
import { createHash, randomBytes } from 'node:crypto';
import { constants, readFileSync, unlinkSync } from 'node:fs';
import { type FileHandle, link, open, rm, unlink } from 'node:fs/promises';
import { hostname, uptime } from 'node:os';
import { InterruptedError, LockedError, UsageError } from '../../errors.js';
import { failureWords } from '../../io/errno.js';
import { formatDuration } from '../../io/format.js';

export interface LockRecord {
  pid: number;
  host: string;
  /** ISO time the holder took the lock. */
  startedAt: string;
  batch?: string;
  /** Random: makes every lock's bytes, and so its id, unique. */
  token: string;
}

export type LockState =
  | { kind: 'free' }
  | { kind: 'held'; record: LockRecord; id: string }
  | { kind: 'corrupt'; reason: string };

/** Who this process is, and how it judges another's liveness; injectable for tests. */
export interface LockEnv {
  pid: number;
  host: string;
  isAlive(pid: number): boolean;
  /** When this machine started (ms): a lock older than that cannot have a live holder. */
  bootTimeMs: number;
}

export interface LockDeps {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  signal?: AbortSignal;
  notice(line: string): void;
  env?: Partial<LockEnv>;
}

export interface AcquireOptions {
  batch?: string;
  /** Wait this long for a live holder to finish; without it a held lock refuses at once. */
  waitMs?: number;
  /** How often to look again while waiting. */
  pollMs?: number;
}

export function lockPathFor(out: string): string {
  return `${out}.lock`;
}

/** A lock older than boot by more than this is stale (uptime is only to the second). */
const BOOT_MARGIN_MS = 60_000;
/** Tries while another process is in the middle of a takeover (a few ms each). */
const BUSY_TRIES = 200;
const EXCL = constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | constants.O_NOFOLLOW;

function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user. Only ESRCH proves it is gone.
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

function lockEnv(given: Partial<LockEnv> = {}): LockEnv {
  return {
    pid: process.pid,
    host: hostname(),
    isAlive: pidExists,
    bootTimeMs: Date.now() - uptime() * 1000,
    ...given,
  };
}

function idOf(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

function errno(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

function parseRecord(text: string): LockRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!value || typeof value !== 'object') return undefined;
  const r = value as Partial<LockRecord>;
  if (!Number.isInteger(r.pid) || (r.pid as number) <= 0) return undefined;
  if (typeof r.host !== 'string' || !r.host) return undefined;
  if (typeof r.startedAt !== 'string' || Number.isNaN(Date.parse(r.startedAt))) return undefined;
  return r as LockRecord;
}

/** What is at `path` now, read without following a symlink. */
export async function readLock(path: string): Promise<LockState> {
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = errno(error);
    if (code === 'ENOENT') return { kind: 'free' };
    if (code === 'ELOOP') return { kind: 'corrupt', reason: 'is a symbolic link, not a lock file' };
    return { kind: 'corrupt', reason: `cannot be read (${failureWords(error)})` };
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) return { kind: 'corrupt', reason: 'is not a regular file' };
    if (info.size > 64 * 1024) return { kind: 'corrupt', reason: 'is too large to be a lock file' };
    const text = await handle.readFile('utf8');
    const record = parseRecord(text);
    if (!record) return { kind: 'corrupt', reason: 'does not hold a readable lock record' };
    return { kind: 'held', record, id: idOf(text) };
  } catch (error) {
    return { kind: 'corrupt', reason: `cannot be read (${failureWords(error)})` };
  } finally {
    await handle.close();
  }
}

/** Stale: this host, and its holder cannot be running. Another host's lock never is. */
export function isStale(record: LockRecord, env: LockEnv): boolean {
  if (record.host !== env.host) return false;
  // This very process (a lock it took and has not released) is alive whatever its clock said.
  if (record.pid === env.pid) return false;
  if (Date.parse(record.startedAt) < env.bootTimeMs - BOOT_MARGIN_MS) return true;
  return !env.isAlive(record.pid);
}

/** `pid 123 on host db1 since 2026-01-02T03:04:05Z (5m 02s ago)` */
export function describeHolder(record: LockRecord, now: number): string {
  const since = Date.parse(record.startedAt);
  return (
    `pid ${record.pid} on host ${JSON.stringify(record.host)} since ${new Date(since).toISOString()} ` +
    `(${formatDuration(now - since)} ago)${record.batch ? `, batch ${record.batch}` : ''}`
  );
}

function heldMessage(path: string, record: LockRecord, env: LockEnv, now: number): string {
  const who = describeHolder(record, now);
  const head = `another run holds ${path}: ${who}; nothing was done.`;
  if (record.host !== env.host)
    return (
      `${head} It runs on another host, so it is never assumed to be gone: wait for it (--wait-lock), ` +
      `or, if you are sure that run is over, remove ${path} by hand`
    );
  return (
    `${head} Wait for it with --wait-lock [duration], or run again once it is over ` +
    `(if pid ${record.pid} is not a giftcodes run, its pid was reused: remove ${path} by hand)`
  );
}

/** For --dry-run, which takes no lock: what a real run would meet, or undefined when free. */
export async function lockWarning(
  path: string,
  now: number,
  envIn: Partial<LockEnv> = {},
): Promise<string | undefined> {
  const env = lockEnv(envIn);
  const seen = await readLock(path);
  if (seen.kind === 'free') return undefined;
  if (seen.kind === 'corrupt') return `${path} ${seen.reason}: a real run refuses until it is removed`;
  if (isStale(seen.record, env))
    return `${path} was left by ${describeHolder(seen.record, now)}, which no longer runs: a real run takes it over`;
  return `another run holds ${path} (${describeHolder(seen.record, now)}): a real run now refuses (exit 2), or waits with --wait-lock`;
}

/** A lock this process holds. */
export class HeldLock {
  private released = false;
  private readonly onExit = () => this.releaseSync();

  constructor(
    readonly path: string,
    readonly id: string,
    readonly record: LockRecord,
  ) {
    process.on('exit', this.onExit);
  }

  /** Removes the lock if it is still ours (someone may have removed it by hand and another run taken it). */
  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    process.off('exit', this.onExit);
    const now = await readLock(this.path);
    if (now.kind === 'held' && now.id === this.id) await rm(this.path, { force: true });
  }

  private releaseSync(): void {
    if (this.released) return;
    this.released = true;
    try {
      if (idOf(readFileSync(this.path, 'utf8')) === this.id) unlinkSync(this.path);
    } catch {
      // Exiting: a lock left behind is taken over as stale by the next run.
    }
  }
}

/** Writes `text` through a new file's handle, synced, and closes it. */
async function fill(handle: FileHandle, text: string): Promise<void> {
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Creates the lock whole, or returns undefined when the name is taken. */
async function tryCreate(path: string, record: LockRecord): Promise<HeldLock | undefined> {
  const text = `${JSON.stringify(record)}\n`;
  const tmp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  let handle: FileHandle;
  try {
    handle = await open(tmp, EXCL, 0o600);
  } catch (error) {
    throw new UsageError(`cannot create the lock file beside ${path}: ${failureWords(error)}`);
  }
  await fill(handle, text);
  try {
    await link(tmp, path);
  } catch (error) {
    const code = errno(error);
    if (code === 'EEXIST') return undefined;
    // A file system without hard links: create the name itself (a reader may then
    // briefly see it empty, and refuses rather than guesses).
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP' || code === 'ENOSYS') {
      return tryCreateInPlace(path, record, text);
    }
    throw new UsageError(`cannot create ${path}: ${failureWords(error)}`);
  } finally {
    await rm(tmp, { force: true });
  }
  return new HeldLock(path, idOf(text), record);
}

async function tryCreateInPlace(path: string, record: LockRecord, text: string) {
  let handle: FileHandle;
  try {
    handle = await open(path, EXCL, 0o600);
  } catch (error) {
    if (errno(error) === 'EEXIST') return undefined;
    throw new UsageError(`cannot create ${path}: ${failureWords(error)}`);
  }
  await fill(handle, text);
  return new HeldLock(path, idOf(text), record);
}

export type TakeOver = HeldLock | 'busy' | 'changed';

/**
 * Replaces the stale lock `seen` by ours, if no one else does. 'busy': another process
 * is taking it over right now; 'changed': the lock is no longer `seen`. Either way the
 * caller looks again.
 */
export async function takeOver(
  path: string,
  seen: { id: string; record: LockRecord },
  mine: LockRecord,
  env: LockEnv,
): Promise<TakeOver> {
  const guard = `${path}.takeover-${seen.id}`;
  let handle: FileHandle;
  try {
    handle = await open(guard, EXCL, 0o600);
  } catch (error) {
    if (errno(error) !== 'EEXIST') throw new UsageError(`cannot create ${guard}: ${failureWords(error)}`);
    let taker: Partial<LockRecord> | undefined;
    try {
      taker = JSON.parse(readFileSync(guard, 'utf8'));
    } catch {
      // Being written, or removed meanwhile: busy either way.
    }
    if (taker?.host === env.host && typeof taker.pid === 'number' && !env.isAlive(taker.pid))
      throw new LockedError(
        `${path} is stale (${describeHolder(seen.record, Date.now())} no longer runs) but a takeover of it by pid ${taker.pid} did not finish: ` +
          `remove ${path} and ${guard} by hand`,
      );
    return 'busy';
  }
  try {
    try {
      await handle.writeFile(JSON.stringify({ pid: env.pid, host: env.host }));
    } finally {
      await handle.close();
    }
    const again = await readLock(path);
    if (again.kind !== 'held' || again.id !== seen.id) return 'changed';
    // Only the holder of this guard may remove the lock with this id, and that id never returns.
    await unlink(path).catch((error) => {
      if (errno(error) !== 'ENOENT') throw error;
    });
    return (await tryCreate(path, mine)) ?? 'changed';
  } finally {
    await rm(guard, { force: true });
  }
}

/**
 * Takes the lock at `path` for this run: at once when free, by takeover when stale
 * (said on stderr), after waiting up to `waitMs` when held; otherwise a LockedError
 * (exit 2) naming the holder.
 */
export async function acquireLock(path: string, opts: AcquireOptions, deps: LockDeps): Promise<HeldLock> {
  const env = lockEnv(deps.env);
  const started = deps.now();
  const deadline = opts.waitMs === undefined ? undefined : started + opts.waitMs;
  const pollMs = opts.pollMs ?? 500;
  let announced: string | undefined;
  let busy = 0;
  const pause = async (ms: number) => {
    try {
      await deps.sleep(ms, deps.signal);
    } catch (error) {
      if (deps.signal?.aborted)
        throw new InterruptedError('interrupted while waiting for the lock; nothing was done');
      throw error;
    }
  };
  for (;;) {
    if (deps.signal?.aborted)
      throw new InterruptedError('interrupted while waiting for the lock; nothing was done');
    const mine: LockRecord = {
      pid: env.pid,
      host: env.host,
      startedAt: new Date(deps.now()).toISOString(),
      ...(opts.batch ? { batch: opts.batch } : {}),
      token: randomBytes(8).toString('hex'),
    };
    const lock = await tryCreate(path, mine);
    if (lock) return lock;
    const seen = await readLock(path);
    if (seen.kind === 'free') continue;
    if (seen.kind === 'corrupt')
      throw new LockedError(
        `${path} ${seen.reason}, so it cannot be told whether another run holds it; nothing was done. ` +
          `If no other run uses this --out, remove ${path} by hand`,
      );
    if (isStale(seen.record, env)) {
      const took = await takeOver(path, seen, mine, env);
      if (took instanceof HeldLock) {
        deps.notice(
          `took over ${path}: it was left by ${describeHolder(seen.record, deps.now())}, which no longer runs`,
        );
        return took;
      }
      if (took === 'busy') {
        if (++busy > BUSY_TRIES)
          throw new LockedError(`${path} is stale but another process keeps taking it over; try again`);
        await pause(25);
      }
      continue;
    }
    const now = deps.now();
    if (deadline === undefined) throw new LockedError(heldMessage(path, seen.record, env, now));
    if (now >= deadline)
      throw new LockedError(
        `${heldMessage(path, seen.record, env, now)} (waited ${formatDuration(now - started)} with --wait-lock)`,
      );
    if (announced !== seen.id) {
      announced = seen.id;
      deps.notice(
        `waiting up to ${formatDuration(deadline - now)} for ${path}: held by ${describeHolder(seen.record, now)}`,
      );
    }
    await pause(Math.max(1, Math.min(pollMs, deadline - now)));
  }
}
