/**
 * Prompts bound to the injected streams (Vercel CLI's pattern), so a test can type
 * answers through a pseudo-terminal and a script never waits on input that cannot
 * come: without a TTY every prompt fails with a usage error naming the flag to pass.
 */
import { Writable } from 'node:stream';
import { InterruptedError, MissingInputError } from '../errors.js';
import { renderForTerminal } from './sanitize.js';
import { type IO, shown } from './streams.js';

export interface Choice<T> {
  name: string;
  value: T;
  description?: string;
  disabled?: boolean | string;
}

export interface Prompter {
  /** `flag` names what a script passes instead; it appears in the non-TTY error. */
  input(opts: {
    message: string;
    flag: string;
    default?: string;
    validate?: (v: string) => true | string;
  }): Promise<string>;
  password(opts: { message: string; flag: string; validate?: (v: string) => true | string }): Promise<string>;
  select<T>(opts: { message: string; flag: string; choices: Choice<T>[]; default?: T }): Promise<T>;
  /** Confirmation for a write; scripts pass `--yes`. */
  confirm(opts: { message: string; flag?: string; default?: boolean }): Promise<boolean>;
}

/**
 * Inquirer ends its output stream when a prompt closes. Ending process.stderr is
 * harmless, but an injected stream (a test's buffer, a wrapper) would be closed for
 * every later write, so anything that is not the process's own stderr is shielded.
 */
function promptOutput(stream: Writable): Writable {
  if (stream === process.stderr) return stream;
  const shield = new Writable({
    write(chunk, encoding, callback) {
      stream.write(chunk, encoding, callback);
    },
  });
  const size = stream as Partial<NodeJS.WriteStream>;
  Object.assign(shield, { columns: size.columns, rows: size.rows, isTTY: size.isTTY });
  return shield;
}

export function canPrompt(io: IO): boolean {
  return io.stdinIsTTY && io.stderrIsTTY;
}

export function createPrompter(io: IO, signal?: AbortSignal): Prompter {
  // Prompts draw on stderr so stdout stays clean for data.
  const context = { input: io.stdin, output: promptOutput(io.stderr), signal, clearPromptOnDone: false };

  // Messages, defaults, choices and validation answers may quote outside text (a product
  // name, a stored URL): sanitized like every other sink, colour markers resolved.
  const show = (text: string) => shown(io, text, { newlines: false });
  const showOpt = (text: string | undefined) => (text === undefined ? undefined : show(text));
  // A default is also the answer when the user presses Enter: not guarded (a redacted
  // URL would be saved as typed), only made safe for the terminal as before.
  const showDefault = (text: string | undefined) =>
    text === undefined ? undefined : renderForTerminal(text, io.color, { newlines: false });
  const checked =
    (validate: ((v: string) => true | string) | undefined) =>
    (value: string): true | string => {
      const verdict = validate ? validate(value) : true;
      return verdict === true ? true : show(verdict);
    };

  async function guarded<T>(flag: string, what: string, ask: () => Promise<T>): Promise<T> {
    if (!canPrompt(io)) throw new MissingInputError(flag, what);
    try {
      return await ask();
    } catch (error) {
      const name = (error as Error | undefined)?.name;
      if (name === 'ExitPromptError' || name === 'AbortPromptError') throw new InterruptedError();
      throw error;
    }
  }

  return {
    input: (opts) =>
      guarded(opts.flag, opts.message, async () => {
        const { input } = await import('@inquirer/prompts');
        return input(
          {
            message: show(opts.message),
            default: showDefault(opts.default),
            validate: checked(opts.validate),
          },
          context,
        );
      }),
    password: (opts) =>
      guarded(opts.flag, opts.message, async () => {
        const { password } = await import('@inquirer/prompts');
        return password(
          { message: show(opts.message), mask: '*', validate: checked(opts.validate) },
          context,
        );
      }),
    select: (opts) =>
      guarded(opts.flag, opts.message, async () => {
        const { select } = await import('@inquirer/prompts');
        const choices = opts.choices.map((c) => ({
          ...c,
          name: show(c.name),
          description: showOpt(c.description),
          disabled: typeof c.disabled === 'string' ? show(c.disabled) : c.disabled,
        }));
        return select({ message: show(opts.message), choices, default: opts.default }, context);
      }),
    confirm: (opts) =>
      guarded(opts.flag ?? '--yes', 'confirmation', async () => {
        const { confirm } = await import('@inquirer/prompts');
        return confirm({ message: show(opts.message), default: opts.default ?? false }, context);
      }),
  };
}
