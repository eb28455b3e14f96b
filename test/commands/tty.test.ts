/**
 * The CLI in a real pseudo-terminal, against the sandbox: the guided `login` (base URL and
 * key typed, the key hidden, the profile saved 0600), and colour only on a terminal.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from '@lydell/node-pty';
import { afterEach, describe, expect, it } from 'vitest';
import { maskSecret } from '../../src/io/format.js';
import { BIN, cleanEnv, runBinary, runInProcess, tempConfigDir } from '../helpers/cli.js';
import { withSandbox } from '../helpers/sandbox.js';
import { KEYS, startTerminal, type Terminal } from '../helpers/terminal.js';

const sb = withSandbox({ seed: 3 });
const terminals: Terminal[] = [];
afterEach(() => {
  for (const t of terminals.splice(0)) t.kill();
});

describe('guided login on a terminal', () => {
  it('asks for the base URL and the key (hidden), verifies it and saves the profile with mode 0600', async () => {
    const dir = tempConfigDir();
    const term = startTerminal(['login'], { GIFTCODES_CONFIG_DIR: dir, NO_COLOR: '1' });
    terminals.push(term);

    await term.waitFor('Service base URL');
    term.type(sb.url);
    await term.waitFor(sb.url);
    term.type(KEYS.enter);

    const beforeKey = (await term.waitFor('API key (input hidden)')).length;
    // Typed a character at a time, as a person would: no echo at any point.
    for (const ch of sb.apiKey) term.type(ch);
    term.type(KEYS.enter);
    await term.waitFor(/saved to profile "[^"]+"/, { from: beforeKey });
    expect(await term.exited).toBe(0);

    const screen = term.screen();
    expect(screen).not.toContain(sb.apiKey);
    // Not even a recognisable piece of it: the only trace is the masked form (last 4).
    expect(screen).not.toContain(sb.apiKey.slice(0, 12));
    expect(screen).toContain(`key ${maskSecret(sb.apiKey)} works: tier `);
    // The hidden prompt echoes a mask, never characters of the key.
    expect(screen).toMatch(/API key \(input hidden\)[^\n]*\*{4,}/);

    const file = join(dir, 'config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    expect(JSON.stringify(saved)).toContain(sb.apiKey);
    expect(JSON.stringify(saved)).toContain(sb.url);

    // The saved profile is what later commands use: no flags, no environment.
    const balance = await runInProcess(['balance', '--json'], { env: { GIFTCODES_CONFIG_DIR: dir } });
    expect(balance.code).toBe(0);
    expect(JSON.parse(balance.stdout)).toMatchObject({ currency: 'USD' });
  });
});

/** The raw bytes a command writes to a terminal (escape sequences kept). */
function rawTerminalOutput(args: string[], env: Record<string, string | undefined>): Promise<string> {
  return new Promise((resolve) => {
    const pty = spawn(process.execPath, [BIN, ...args], {
      name: 'xterm-256color',
      cols: 160,
      rows: 60,
      env: cleanEnv({ TERM: 'xterm-256color', NO_COLOR: undefined, ...env }),
    });
    let raw = '';
    pty.onData((chunk) => {
      raw += chunk;
    });
    pty.onExit(() => resolve(raw));
  });
}

describe('colour only on a terminal', () => {
  const env = () => ({ GIFTCODES_BASE_URL: sb.url, GIFTCODES_API_KEY: sb.apiKey });
  // An SGR (colour) escape sequence: ESC [ n ; ... m.
  const SGR = new RegExp(`${String.fromCharCode(27)}\\[\\d+(;\\d+)*m`);

  it('catalog: coloured table header on a TTY; none with NO_COLOR; none through a pipe', async () => {
    // Three independent processes, run side by side.
    const [tty, noColor, piped] = await Promise.all([
      rawTerminalOutput(['catalog'], env()),
      rawTerminalOutput(['catalog'], { ...env(), NO_COLOR: '1' }),
      runBinary(['catalog'], { env: env() }),
    ]);
    expect(tty).toContain('prd_amazon_us');
    expect(tty).toMatch(SGR);

    expect(noColor).toContain('prd_amazon_us');
    expect(noColor).not.toMatch(SGR);

    expect(piped.code).toBe(0);
    expect(piped.stdout).toContain('prd_amazon_us');
    expect(piped.stdout + piped.stderr).not.toContain('\u001b');
  });
});
