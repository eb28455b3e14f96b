/**
 * An internal crash (a bug: a TypeError thrown from a command) must never look like
 * success: `run` reports it as `error INTERNAL: <message>` and returns exit 1. A command
 * is made to crash through an injected dependency (its randomness throws), so the real
 * program, the real command and the one catch in main.ts are what is tested.
 */
import type { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ApiError, CliError, ExitCode, UsageError } from '../../src/errors.js';
import { reportError, run } from '../../src/main.js';
import { VERSION } from '../../src/version.js';
import { quietIO, runInProcess } from '../helpers/cli.js';

const crashing = () => {
  throw new TypeError("Cannot read properties of undefined (reading 'ref')");
};

describe('an internal error', () => {
  it('exits 1 with its own "error INTERNAL" line when a command throws a TypeError', async () => {
    const res = await runInProcess(
      ['order', 'create', '--product', 'prd_x', '--sku', 'sku_x', '--amount', '10', '--yes'],
      {
        env: { GIFTCODES_API_KEY: 'gk_test_internal_0001', GIFTCODES_BASE_URL: 'http://127.0.0.1:9' },
        deps: { random: crashing },
      },
    );
    expect(res.code).toBe(ExitCode.service);
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toBe("error INTERNAL: Cannot read properties of undefined (reading 'ref')\n");
  });

  it('is told apart from a CLI error by reportError (which keeps the CLI error its own code)', () => {
    const io = quietIO();
    let text = '';
    (io.stderr as PassThrough).on('data', (c) => {
      text += c;
    });
    expect(reportError(io, new TypeError('x is not a function'))).toBe(1);
    expect(reportError(io, 'a thrown string')).toBe(1);
    expect(reportError(io, new UsageError('bad flag'))).toBe(ExitCode.usage);
    expect(text).toBe(
      'error INTERNAL: x is not a function\nerror INTERNAL: a thrown string\nerror USAGE: bad flag\n',
    );
  });
});

function capture() {
  const io = quietIO();
  let err = '';
  let out = '';
  (io.stderr as PassThrough).on('data', (c) => {
    err += c;
  });
  (io.stdout as PassThrough).on('data', (c) => {
    out += c;
  });
  return { io, err: () => err, out: () => out };
}

describe('run and reportError', () => {
  it('prints the version for --version or -V alone', async () => {
    for (const flag of ['--version', '-V']) {
      const c = capture();
      expect(await run([flag], { io: c.io, env: {} })).toBe(0);
      expect(c.out()).toBe(`${VERSION}\n`);
    }
  });

  it('help exits 0, an unknown command exits 2 (commander printed the message)', async () => {
    expect((await runInProcess(['--help'])).code).toBe(0);
    const unknown = await runInProcess(['no-such-command']);
    expect(unknown.code).toBe(ExitCode.usage);
    expect(unknown.stderr).not.toContain('error INTERNAL');
  });

  it('an error that looks like a commander error but has no exit code is internal', () => {
    const c = capture();
    const fake = Object.assign(new Error('odd'), { code: 'commander.odd' });
    expect(reportError(c.io, fake)).toBe(1);
    expect(reportError(c.io, { code: 'commander.x', exitCode: 0 })).toBe(1);
    expect(c.err()).toBe('error INTERNAL: odd\nerror INTERNAL: [object Object]\n');
  });

  it('names the request id of a service error, on one line', () => {
    const c = capture();
    const api = new ApiError({
      status: 409,
      code: 'CONFLICT',
      message: 'two\nlines',
      requestId: 'req_7',
      exitCode: 1,
    });
    expect(reportError(c.io, api)).toBe(1);
    expect(c.err()).toBe('error CONFLICT: two^Jlines (request req_7)\n');
  });

  it('--debug adds the details of a CLI error and the stack of an internal one, and only then', () => {
    const detailed = new CliError('m', { exitCode: 1, code: 'X', details: { field: 'amount' } });
    const quiet = capture();
    reportError(quiet.io, detailed);
    reportError(quiet.io, new CliError('n', { exitCode: 1, code: 'Y' }), { debug: true });
    expect(quiet.err()).toBe('error X: m\nerror Y: n\n');
    const loud = capture();
    reportError(loud.io, detailed, { debug: true });
    expect(loud.err()).toContain('details: {\n  "field": "amount"\n}');
    const crash = capture();
    reportError(crash.io, new TypeError('boom'), { debug: true });
    expect(crash.err()).toMatch(/^error INTERNAL: boom\nTypeError: boom\n\s+at /);
  });
});
