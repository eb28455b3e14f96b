/**
 * Writing a batch's journal: appends made durable in every copy before they count
 * (group commit), a copy made byte for byte, and the small file operations around
 * them (sync a folder, set an old journal aside, sizes).
 */
import { type FileHandle, rename, stat } from 'node:fs/promises';
import { FileWriteError } from '../../errors.js';
import { type FileOps, fsyncDir, writeAll, writeFailure } from '../../io/safe-write.js';
import type { JournalRecord, RecordPlace } from './journal.js';
import { chunksOf, createExclusive, currentUid, openOwn } from './safe-files.js';

// The folder sync lives with the one safe writer; re-exported for the journal's callers.
export { fsyncDir } from '../../io/safe-write.js';

/** Moves a journal of another batch aside (only with --force), keeping it for audit. */
export async function archiveJournal(path: string, batch: string | undefined, now: number): Promise<string> {
  const target = `${path}.${batch ?? 'unknown'}.${now}.old`;
  await rename(path, target);
  return target;
}

export async function journalExists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

export type OpenMode = 'create' | 'truncate' | 'append';

/**
 * Appends with group commit: every append resolves only once its bytes are fsync'd
 * in every copy (the journal beside --out and, when given, its copy in the state
 * directory), so nothing is acted on that one copy lacks. Each append resolves with
 * where its records sit in the file, so the run can read an order's outcome back
 * from the journal instead of keeping it in memory.
 */
export class JournalWriter {
  private queue: Array<{ bytes: string | Buffer; resolve: () => void; reject: (e: unknown) => void }> = [];
  private flushing: Promise<void> | undefined;
  /** The byte the next record starts at: bytes are written in the order appends are made. */
  private end: number;
  /**
   * A write failed: what reached the file is not known, so nothing more is written
   * after it (a record after a torn one would leave a damaged journal) and no place
   * is told from here on.
   */
  private failure: { error: unknown } | undefined;

  private constructor(
    private readonly handles: FileHandle[],
    /** Each handle's file, to name the one a write failed in. */
    private readonly paths: string[],
    readonly path: string,
    start: number,
  ) {
    this.end = start;
  }

  /**
   * `create` starts a journal where none exists, `truncate` rewrites the user's own
   * torn one (a fresh plan), `append` resumes. None of them follows a link.
   */
  static async open(
    path: string,
    mode: OpenMode,
    copy?: { path: string; mode: OpenMode },
    ops?: FileOps,
  ): Promise<JournalWriter> {
    const handles: FileHandle[] = [];
    const paths: string[] = [];
    const sizes: number[] = [];
    try {
      for (const target of copy ? [{ path, mode }, copy] : [{ path, mode }]) {
        const handle =
          target.mode === 'create'
            ? await createExclusive(target.path, { ops })
            : await openOwn(target.path, target.mode, currentUid(), ops);
        handles.push(handle);
        paths.push(target.path);
        await handle.chmod(0o600);
        fsyncDir(target.path);
        sizes.push((await handle.stat()).size);
      }
    } catch (error) {
      await Promise.all(handles.map((h) => h.close()));
      throw error;
    }
    // Both copies hold the same bytes (openJournals makes sure); if not, places are not told.
    const start = sizes.every((size) => size === sizes[0]) ? (sizes[0] ?? 0) : Number.NaN;
    return new JournalWriter(handles, paths, path, start);
  }

  /** Appends one record; resolves with its place in the file once durable (undefined: not known). */
  async append(record: JournalRecord): Promise<RecordPlace | undefined> {
    return (await this.appendAll([record]))[0];
  }

  appendAll(records: JournalRecord[]): Promise<Array<RecordPlace | undefined>> {
    const lines = records.map((r) => `${JSON.stringify(r)}\n`);
    const places = lines.map((line) => {
      const len = Buffer.byteLength(line);
      const place = Number.isNaN(this.end) ? undefined : { at: this.end, len };
      this.end += len;
      return place;
    });
    return this.enqueue(lines.join(''), places);
  }

  /**
   * Appends whole records already serialized (JSON lines, each ending in a newline): the
   * plan staged before the confirmation is copied in so, never parsed again. Resolves with
   * the place of the whole chunk once durable (undefined: not known).
   */
  appendLines(bytes: Buffer): Promise<RecordPlace | undefined> {
    const place = Number.isNaN(this.end) ? undefined : { at: this.end, len: bytes.length };
    this.end += bytes.length;
    return this.enqueue(bytes, place);
  }

  private enqueue<T>(bytes: string | Buffer, value: T): Promise<T> {
    return new Promise((resolve, reject) => {
      this.queue.push({ bytes, resolve: () => resolve(value), reject });
      this.flushing ??= this.flush();
    });
  }

  private async flush(): Promise<void> {
    while (this.queue.length) {
      const batch = this.queue.splice(0);
      if (this.failure) {
        for (const b of batch) b.reject(this.failure.error);
        continue;
      }
      try {
        // One append alone (a staged plan's chunk) is written as it is: no copy of a megabyte.
        const only = batch.length === 1 ? batch[0]?.bytes : undefined;
        const text =
          only ??
          (batch.every((b) => typeof b.bytes === 'string')
            ? batch.map((b) => b.bytes).join('')
            : Buffer.concat(
                batch.map((b) => (typeof b.bytes === 'string' ? Buffer.from(b.bytes) : b.bytes)),
              ));
        await Promise.all(
          this.handles.map(async (handle, i) => {
            const path = this.paths[i] ?? this.path;
            await writeAll(handle, text, path);
            await handle.sync().catch((error: unknown) => {
              throw writeFailure(path, error);
            });
          }),
        );
        for (const b of batch) b.resolve();
      } catch (raw) {
        // The records that make a crash safe are missing: nothing more may be sent.
        const error =
          raw instanceof FileWriteError
            ? raw.withAdvice(
                'the journal that makes a crash safe is not whole, so the run stopped before sending anything more; free space and run the same command again',
              )
            : raw;
        this.failure = { error };
        for (const b of batch) b.reject(error);
      }
    }
    this.flushing = undefined;
  }

  async close(): Promise<void> {
    await this.flushing;
    await Promise.all(this.handles.map((h) => h.close()));
  }
}

/**
 * Makes `to` a byte-for-byte copy of the journal at `from` (a new file, or the
 * user's own rewritten in place), fsync'd, so both copies continue from the same
 * records. Streams: a large journal is never one buffer.
 */
export async function copyJournal(from: string, to: string): Promise<void> {
  const source = await openOwn(from, 'read');
  let target: FileHandle | undefined;
  try {
    target = (await journalExists(to)) ? await openOwn(to, 'truncate') : await createExclusive(to);
    await target.chmod(0o600);
    for await (const chunk of chunksOf(source)) await writeAll(target, chunk, to);
    await target.sync();
  } finally {
    await source.close();
    await target?.close();
  }
  fsyncDir(to);
}

/** Size in bytes of the file at `path`, or -1 when there is none. */
export async function journalSize(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return -1;
  }
}
