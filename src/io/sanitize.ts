/**
 * Terminal safety for text the CLI does not own (gh's answer to the same problem).
 * A product name, an error message, a webhook payload or a CSV cell may carry
 * control characters that set the title, clear the screen, move the cursor, rewrite
 * an earlier line with a carriage return or plant an OSC 8 hyperlink. Every sink in
 * src/io/ passes its text through `renderForTerminal`, which shows such characters
 * visibly (`^[`, `^M`, `\u009b`) instead of emitting them.
 *
 * The CLI's own colours must survive that pass, and text from outside must not be
 * able to fake them. So the styler never writes ESC: it writes a marker made of a
 * private-use character and a per-process random nonce, which no outside string can
 * know. The sink escapes every control character first and only then turns the
 * markers into SGR sequences (colour on) or drops them (colour off).
 */
import { randomBytes } from 'node:crypto';

// Matching control characters is this module's job, hence the lint exemptions below.
/**
 * Unicode format and separator characters that change how text is shown without being
 * seen: the Arabic letter mark (U+061C), the Mongolian vowel separator (U+180E),
 * zero-width spaces and joiners and the LRM/RLM marks (U+200B-U+200F), the line and
 * paragraph separators (U+2028, U+2029), the bidi embeddings and overrides
 * (U+202A-U+202E) and isolates (U+2066-U+2069), and the BOM / zero-width no-break space
 * (U+FEFF). A right-to-left override makes `gpj.exe` read `exe.jpg`; a zero-width space
 * inside a code makes the copied code wrong. Shown as `\u202e` like a C1 control.
 */
const FORMAT = '\u061c\u180e\u200b-\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff';
/** C0 except tab (ESC is U+001B, a C0), DEL, C1 (U+0080-U+009F) and the format characters above. */
const CONTROLS = new RegExp(`[\\u0000-\\u0008\\u000a-\\u001f\\u007f-\\u009f${FORMAT}]`, 'g');
/** The same, newline kept: a block of lines, a table cell. */
const CONTROLS_KEEP_NEWLINE = new RegExp(`[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f${FORMAT}]`, 'g');
/** What a mask leaves out besides controls: a masked code shows four characters one can see. */
export const INVISIBLE_CHARS = new RegExp(`[${FORMAT}]`, 'g');
/** Every control character, tab and newline included: what a mask drops, what a file cell guards. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the characters to find
export const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/g;

function visible(char: string): string {
  const code = char.charCodeAt(0);
  if (code < 0x20) return `^${String.fromCharCode(code + 0x40)}`;
  if (code === 0x7f) return '^?';
  return `\\u${code.toString(16).padStart(4, '0')}`;
}

export interface SanitizeOptions {
  /** Keep `\n` (a multi-line block, a table cell); single-line text shows it as `^J`. */
  newlines?: boolean;
}

/** Every control character shown visibly; tab (and newline, when allowed) kept. Idempotent. */
export function sanitize(text: string, opts: SanitizeOptions = {}): string {
  return text.replace(opts.newlines === false ? CONTROLS : CONTROLS_KEEP_NEWLINE, visible);
}

/** The marker: a private-use character and this process's nonce. */
const MARK = `\ue000${Array.from(randomBytes(8), (b) => b.toString(36)).join('')}`;
const MARKED = new RegExp(`${MARK}([0-9;]*)m`, 'g');
// biome-ignore lint/suspicious/noControlCharactersInRegex: ESC starts the sequences to mark
const SGR = /\u001b\[([0-9;]*)m/g;

/** The CLI's own SGR sequence `ESC [ params m`, as a marker only a sink turns into bytes. */
export function sgrMarker(params: string): string {
  return `${MARK}${params}m`;
}

/**
 * Text the CLI drew itself with real SGR sequences (a QR code, a rendered table whose
 * every cell was already sanitized): its sequences become markers, so it can flow on
 * to a sink like any styled string. Never call it on text that came from outside.
 */
export function markOwnAnsi(text: string): string {
  return text.replace(SGR, (_, params: string) => sgrMarker(params));
}

/** What a sink writes: controls escaped, then the CLI's markers as colour or nothing. */
export function renderForTerminal(text: string, color: boolean, opts: SanitizeOptions = {}): string {
  return sanitize(text, opts).replace(MARKED, (_, params: string) => (color ? `\u001b[${params}m` : ''));
}

/**
 * JSON for a terminal or a pipe. JSON.stringify escapes C0 but leaves DEL and C1 raw;
 * `\u009b` is still valid JSON for the same string, so the data round-trips exactly.
 */
export function safeJson(value: unknown, indent?: number): string {
  const text = JSON.stringify(value, null, indent) ?? 'null';
  return text.replace(/[\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
