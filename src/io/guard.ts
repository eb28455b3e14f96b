/**
 * The one step between what a command prints and the terminal or a pipe: every sink in
 * src/io/ (and the error line, `--debug`, commander's output) passes its text or its JSON
 * value through the run's `OutputGuard` (`io.guard`) before it is written, so no command
 * can forget it and a new command is covered without doing anything.
 *
 * - Codes: the spec's code fields (fulfillment `cardCode`, `cardPin`, `cardUrl`, in
 *   orders, checkouts, payments and webhook payloads) are masked by key in every JSON
 *   value printed, unless the command was given `--reveal`. `giftCardId` is not masked:
 *   the spec calls it an id, it is what a sealed delivery carries *instead of* the code,
 *   and the reveal link is `cardUrl`, which is masked. The code values the service sent
 *   during the run are also looked for in every line of text (an error message or a
 *   `--debug` line that quotes one) and masked there; values shorter than
 *   `MIN_NOTED_LENGTH` (a 4-digit PIN) are left to the key and to the renderers
 *   (`showSecret`): looking for `1234` in free text would mask amounts and dates.
 * - Secrets: every secret the run holds (the API key it uses, from flag, environment or
 *   profile; webhook secrets from `--secret` or the environment) is masked (`****` and its
 *   last four characters) in any text or JSON string, whatever printed it and even with
 *   `--reveal`: a service, a proxy or a file that echoes the key cannot make the CLI print it.
 * - URLs: a `user:password@` part is replaced by `***@` (redact-url.ts).
 *
 * The codes FILE (`order bulk --out`, `order export --out`) is not printed through here:
 * holding the codes is its purpose.
 */
import { ResponseTooDeepError } from '../errors.js';
import { maskSecret } from './format.js';
import { redactUrls } from './redact-url.js';

/** The fields the spec defines as a code, a PIN or a code URL (spec §3 fulfillments, §6 payloads). */
export const CODE_FIELDS: readonly string[] = ['cardCode', 'cardPin', 'cardUrl'];

/** Far beyond any real response (a checkout is about six levels deep), far below the stack. */
export const MAX_RESPONSE_DEPTH = 200;

/** Shorter code values are masked by key and by the renderers only (see above). */
export const MIN_NOTED_LENGTH = 8;
/** A secret shorter than this is not a credential worth looking for (and would mask words). */
const MIN_SECRET_LENGTH = 8;
/**
 * Code values noted for the text search, at most: a bulk run reads hundreds of thousands
 * of codes and its memory must not grow per order. Past the cap the key-based masking
 * (JSON) and the renderers still hold; only the search in free text stops growing.
 */
const MAX_NOTED_CODES = 2048;
const MAX_NOTED_LENGTH = 512;

/**
 * Throws when `value` nests deeper than `limit`. Iterative, so a hostile response
 * 100,000 levels deep is measured without recursion and refused with a clear error.
 */
export function assertDepth(value: unknown, limit = MAX_RESPONSE_DEPTH): void {
  const stack: Array<[unknown, number]> = [[value, 0]];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const [node, depth] = next;
    if (node === null || typeof node !== 'object') continue;
    if (depth >= limit) throw new ResponseTooDeepError(limit);
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A copy of `value` with every code field masked (unless `reveal`) and every other string
 * passed through `text`. Recursive: callers check the depth first (`assertDepth`).
 */
export function maskCodeFields(
  value: unknown,
  reveal: boolean,
  text: (s: string) => string = (s) => s,
): unknown {
  const walk = (node: unknown): unknown => {
    if (typeof node === 'string') return text(node);
    if (Array.isArray(node)) return node.map(walk);
    if (!isPlainRecord(node)) return node;
    const copy: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(node)) {
      copy[key] =
        !reveal && CODE_FIELDS.includes(key) && typeof child === 'string' && child !== ''
          ? maskSecret(child)
          : walk(child);
    }
    return copy;
  };
  return walk(value);
}

/**
 * The non-empty code fields' values in a JSON value, at any depth. Iterative, so a hostile
 * body nested deeper than the stack is walked whole.
 */
export function* codeValues(value: unknown): Generator<string> {
  const stack: unknown[] = [value];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (node === null || typeof node !== 'object') continue;
    for (const [key, child] of Object.entries(node)) {
      if (typeof child === 'string') {
        if (child !== '' && !Array.isArray(node) && CODE_FIELDS.includes(key)) yield child;
      } else if (child !== null && typeof child === 'object') stack.push(child);
    }
  }
}

function escapeRegExp(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** One pattern for many literal values, longest first (a code that contains another). */
function literals(values: Iterable<string>): RegExp | undefined {
  const sorted = [...values].sort((a, b) => b.length - a.length);
  return sorted.length === 0 ? undefined : new RegExp(sorted.map(escapeRegExp).join('|'), 'g');
}

export class OutputGuard {
  private readonly secrets = new Set<string>();
  private readonly codes = new Set<string>();
  private secretPattern: RegExp | undefined;
  private codePattern: RegExp | undefined;
  private dirty = false;
  private revealed = false;
  private printedJson = false;

  /** The command was given `--reveal`: codes are shown in full (secrets never are). */
  revealCodes(): void {
    this.revealed = true;
  }

  get reveal(): boolean {
    return this.revealed;
  }

  /** A JSON value went to stdout (`printJson`): under --json a failure then prints no second one. */
  noteJsonPrinted(): void {
    this.printedJson = true;
  }

  get jsonPrinted(): boolean {
    return this.printedJson;
  }

  /** A secret this run holds (API key, webhook secret): masked wherever it shows up. */
  addSecret(value: string | undefined | null): void {
    if (typeof value !== 'string' || value.length < MIN_SECRET_LENGTH || this.secrets.has(value)) return;
    this.secrets.add(value);
    this.secretPattern = literals(this.secrets);
  }

  /** Notes the code values in a body the service sent (any shape: an order, a list, an error's details). */
  noteCodes(body: unknown): void {
    for (const code of codeValues(body)) this.noteCode(code);
  }

  private noteCode(value: string): void {
    if (value.length < MIN_NOTED_LENGTH || value.length > MAX_NOTED_LENGTH) return;
    if (this.codes.size >= MAX_NOTED_CODES || this.codes.has(value)) return;
    this.codes.add(value);
    this.dirty = true;
  }

  /** A line (or block) of text as it may be shown: secrets and noted codes masked, URL credentials gone. */
  text(value: string): string {
    let shown = value;
    if (this.secretPattern) shown = shown.replace(this.secretPattern, (s) => maskSecret(s));
    if (!this.revealed) {
      if (this.dirty) {
        this.codePattern = literals(this.codes);
        this.dirty = false;
      }
      if (this.codePattern) shown = shown.replace(this.codePattern, (s) => maskSecret(s));
    }
    return redactUrls(shown);
  }

  /**
   * A value as `--json` may print it: its depth checked (the JSON printer recurses), code
   * fields masked unless revealed, every string passed through `text`.
   */
  json(value: unknown): unknown {
    assertDepth(value);
    return maskCodeFields(value, this.revealed, (s) => this.text(s));
  }
}

/** For IO built without a guard (a unit test's buffers): codes masked, nothing else known. */
export const DEFAULT_GUARD: OutputGuard = new OutputGuard();

/** The guard of these streams. */
export function guardOf(io: { guard?: OutputGuard }): OutputGuard {
  return io.guard ?? DEFAULT_GUARD;
}
