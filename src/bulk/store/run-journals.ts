/**
 * A bulk run's journals held as one object: the journal beside --out and its copy in
 * the state directory, opened level (journal-files.ts, openJournals). Callers hand it
 * records and read its state; they never append a line nor fold a record. Every verb
 * that writes resolves only once its record is durable in every copy.
 */
import type { FileOps } from '../../io/safe-write.js';
import { applyAt, type JournalRecord, type JournalState, type OutputSummary } from './journal.js';
import { type BatchHeader, type JournalCopy, openJournals, type PlanStage } from './journal-files.js';
import { archiveJournal, JournalWriter, type OpenMode } from './journal-writer.js';

export type { BatchHeader } from './journal-files.js';
export type { OpenMode } from './journal-writer.js';

export class RunJournals {
  /** The run's state: the resumed journal's, or the plan's once committed. */
  private held: JournalState | undefined;

  private constructor(
    private readonly writer: JournalWriter,
    /** The journal beside --out (the staged plan's lines are read back from it). */
    readonly path: string,
  ) {}

  /**
   * The journal beside --out and its copy (when `copyPath` is given), opened so that both
   * hold the same records from here on: whichever is behind is first made a copy of the other.
   */
  static async open(
    journalPath: string,
    mode: OpenMode,
    copy: JournalCopy | undefined,
    copyPath: string | undefined,
    ops?: FileOps,
  ): Promise<RunJournals> {
    return new RunJournals(await openJournals(journalPath, mode, copy, copyPath, ops), journalPath);
  }

  /** A batch's journal alone, to record a codes file rebuilt after the run (`order export`). */
  static async append(journalPath: string): Promise<RunJournals> {
    return new RunJournals(await JournalWriter.open(journalPath, 'append'), journalPath);
  }

  /** Moves a journal of another batch aside (only with --force), keeping it for audit; says where. */
  static archive(journalPath: string, batch: string | undefined, now: number): Promise<string> {
    return archiveJournal(journalPath, batch, now);
  }

  /** Resumes the journaled plan: its state is the run's, and records fold into it. */
  resume(state: JournalState): JournalState {
    this.held = state;
    return state;
  }

  /**
   * Makes the staged plan the journal's (header, orders, then `planned`, durable in both
   * copies) and returns the run's state; its lines stay on disk (`disk`, closed by the caller).
   */
  async commitPlan(stage: PlanStage, header: BatchHeader): Promise<JournalState> {
    this.held = await stage.commit(this.writer, this.path, header);
    return this.held;
  }

  /** The run's state, as the records made so far left it. */
  state(): JournalState {
    if (!this.held) throw new Error('the journals hold no plan yet');
    return this.held;
  }

  /**
   * Records one step of an order (submit, created, refused, unknown, split...), durable
   * in both copies, then folds it in with its place in the journal: the order's outcome
   * is read back from there when needed, not kept in memory (order-book.ts).
   */
  async record(record: JournalRecord): Promise<void> {
    const place = await this.writer.append(record);
    if (this.held) applyAt(this.held, record, place);
  }

  /**
   * Records several steps at once, all durable in both copies in one write before it
   * resolves (a group commit), each folded in with its place, in the order given.
   */
  async recordAll(records: JournalRecord[]): Promise<void> {
    const places = await this.writer.appendAll(records);
    if (this.held) for (const [k, record] of records.entries()) applyAt(this.held, record, places[k]);
  }

  /** The codes file about to be renamed into place (its hash): it is the batch's own from now. */
  async recordOutputPending(sha256: string): Promise<void> {
    await this.writer.append({ t: 'output-pending', sha256 });
  }

  /** The codes file written; `complete` when it holds every order of the batch. */
  async recordOutput(sha256: string, complete?: OutputSummary): Promise<void> {
    await this.writer.append({ t: 'output', sha256, ...(complete ? { complete } : {}) });
  }

  /** Why the run stopped before every order was delivered or refused. */
  async recordStop(reason: string, at: number): Promise<void> {
    await this.writer.append({ t: 'stop', reason, at });
  }

  async close(): Promise<void> {
    await this.writer.close();
  }
}
