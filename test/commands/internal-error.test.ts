/**
 * An internal crash (a bug: a TypeError thrown from a command) must never look like
 * success: `run` reports it as `error INTERNAL: <message>` and returns exit 1. A command
 * is made to crash through an injected dependency (its randomness throws), so the real
 * program, the real command and the one catch in main.ts are what is tested.
 */
import type { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ExitCode, UsageError } from '../../src/errors.js';
import { reportError } from '../../src/main.js';
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
    expect(reportError(io, new TypeError('x is not a function'), false)).toBe(1);
    expect(reportError(io, 'a thrown string', false)).toBe(1);
    expect(reportError(io, new UsageError('bad flag'), false)).toBe(ExitCode.usage);
    expect(text).toBe(
      'error INTERNAL: x is not a function\nerror INTERNAL: a thrown string\nerror USAGE: bad flag\n',
    );
  });
});
