/**
 * What a bulk run is given and what it hands back: its options, the I/O it is given
 * (HTTP client, clock, confirmation, progress, the insufficient-balance hook), and
 * its result. Shared by every stage of the run (see engine.ts for the pipeline).
 */
import type { HttpClient } from '../api/http.js';
import type { FileOps } from '../io/safe-write.js';
import type { Account } from '../schemas/account.js';
import type { Product } from '../schemas/catalog.js';
import type { Rates } from '../schemas/rates.js';
import type { BulkFlags } from './options.js';
import type { InputSummary } from './plan/parse.js';
import type { Tally } from './records.js';
import type { AdaptiveLimit } from './run/submit.js';
import type { JournalState } from './store/index.js';
import type {
  BalanceShortfall,
  BoughtSoFar,
  OutputFormat,
  PlanEstimate,
  PlanLimits,
  RunMoney,
} from './types.js';

/**
 * What a run is given: `order bulk`'s flags as parsed (options.ts), the output format
 * resolved, and where the journal's copy is kept and for which account.
 */
export type BulkOptions = Omit<BulkFlags, 'format' | 'seal' | 'force'> & {
  format: OutputFormat;
  /** --seal and --force as the journal records them (absent: false). */
  seal: boolean;
  force: boolean;
  /**
   * A short hash of the base URL and API key. A journal written for one account is never
   * resumed with another key: its unsubmitted orders would be bought a second time elsewhere.
   */
  accountFingerprint?: string;
  /**
   * Where the copy of the journal is kept (`<stateDir>/batches/`), so a lost or deleted
   * journal beside --out never means buying again. The command always passes one;
   * without it (engine tests) there is no copy.
   */
  stateDir?: string;
};

/** How fast a run reads orders back, and how much of the plan it holds: tests set them. */
export interface BulkTuning {
  /** The first read of an order after its create (default 300 ms), then x1.5 up to `pollMaxMs`. */
  pollFirstMs?: number;
  pollMaxMs?: number;
  /** Orders of the plan the scheduler holds at a time (default 1,000; see `OrderWindow`). */
  windowOrders?: number;
}

export interface BulkStats {
  rows: number;
  orders: number;
  units: number;
  submitted: number;
  created: number;
  finished: number;
  codes: number;
  failedUnits: number;
  retries: number;
  startedAt: number;
}

export interface BulkDeps {
  http: HttpClient;
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  signal: AbortSignal;
  limit: AdaptiveLimit;
  /** Notices for the person running it (stderr). Never given codes. */
  notice(line: string): void;
  /** Called whenever the counters move; the command renders it on a TTY. */
  progress?(stats: BulkStats): void;
  /** Asked once before money moves; false cancels (nothing spent). */
  confirm(report: PlanReport): Promise<boolean>;
  /**
   * Hook for the interactive top-up (issue 5): called when the service refuses an
   * order for insufficient balance. Resolve true once the balance was topped up to
   * resume the run; false (or no hook) stops it with exit 4.
   */
  onInsufficientBalance?(shortfall: BalanceShortfall): Promise<boolean>;
  /** Counters shared with the HTTP client's retry hook. */
  stats?: Partial<BulkStats>;
  /** This run's id in the journal (`paidBy`); default: a random UUID. */
  runId?: string;
  /**
   * Waiting for a spend cap to reset (--continue-after-reset): called when the wait
   * begins and then every minute of it, with the time it ends.
   */
  onCapWait?(wait: { window: string; until: number; leftMs: number }): void;
  /** A stopping error ends the run before its summary: what it charged, to say before the error. */
  onStoppedByError?(money: RunMoney): void;
  /** How the run opens the files it writes (journal, output); tests inject failing ones. */
  files?: FileOps;
  tuning?: BulkTuning;
}

export interface PlanReport {
  batch: string;
  resumed: boolean;
  total: PlanEstimate;
  /** What is still to be bought (all of it on a first run). */
  pending: PlanEstimate;
  limits: PlanLimits;
  balanceUsd: number;
  dailyRemainingUsd?: number;
  monthlyRemainingUsd?: number;
  warnings: string[];
  /** Set when --force starts over on an output whose batch bought: what would be bought a second time. */
  rebuy?: BoughtSoFar;
  /** --max-spend: the most this run may charge, USD. */
  maxSpendUsd?: number;
}

export type Outcome = 'done' | 'failed-items' | 'stopped' | 'interrupted' | 'dry-run' | 'cancelled';

export interface BulkResult {
  outcome: Outcome;
  batch: string;
  report: PlanReport;
  /** Delivered and failed units per product, and the first failures by row. */
  tally: Tally;
  stats: BulkStats;
  stopReason?: string;
  shortfall?: BalanceShortfall;
  /** Orders with failed units: the refund command targets these. */
  refundable: Array<{ checkoutId: string; status: string }>;
  products: Map<string, Product>;
  outputSha256?: string;
  /** What the finished orders cost, per productId, in the item's costCurrency. */
  spent?: Map<string, { currency: string; amount: number }>;
  /** What the batch's orders charged, by this run and by earlier ones, summed from the journal (accounting.ts). */
  money?: RunMoney;
  /** The most orders the scheduler held at once (queued, awaiting a read, in flight). */
  heldPeak?: number;
}

/** The input file, read once: its hash, the rows that did not parse, and the batch id. */
export type ParsedInput = InputSummary & { batch: string };

/** What the service says now: catalog, account (and its limits), rates and balance. */
export interface Live {
  products: Map<string, Product>;
  account: Account;
  limits: PlanLimits;
  rates: Rates;
  balanceUsd: number;
}

export interface JournalChoice {
  journalPath: string;
  /** The journal to resume; undefined: plan afresh. */
  journal?: JournalState;
  /** The journal to resume is the copy (the journal beside --out is gone or behind). */
  fromCopy: boolean;
  /** Another batch's journal that --force replaces: moved aside only once money may move. */
  displaced?: string;
  /** What the batch that --force displaces bought: a new batch has new refs, so it buys those rows again. */
  rebuy?: BoughtSoFar;
  /** The batch's journal copy in the state directory (none without one). */
  copyPath?: string;
}

/** How the buying ended, for the last stage (output and summary). */
export interface RunnerOutcome {
  stopReason?: string;
  interrupted: boolean;
  waitTimedOut: boolean;
  shortfall?: BalanceShortfall;
}
