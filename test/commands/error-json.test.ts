/**
 * Errors as JSON (issue 33): under --json a failing command prints
 * `{"error": {code, message, exitCode, requestId, details}}` on stdout, keeps its line on
 * stderr, and exits with the code the object names. A usage error (commander's own), a
 * service error with its request id and details, a network error, and a run stopped by
 * Ctrl-C or SIGTERM; the details go through the output guard like any --json value; a
 * command that printed its result before failing keeps stdout to that one value.
 */
import type { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { CliError, ExitCode } from '../../src/errors.js';
import { OutputGuard } from '../../src/io/guard.js';
import { type ErrorJson, reportError } from '../../src/main.js';
import { quietIO, runBinary, runInProcess, startBinary } from '../helpers/cli.js';
import { instantClock } from '../helpers/clock.js';
import { withSandbox } from '../helpers/sandbox.js';

const sb = withSandbox({ seed: 93 });

/** Stdout as the one JSON error object it must be, every key present. */
function errorOf(stdout: string): ErrorJson['error'] {
  const parsed = JSON.parse(stdout) as ErrorJson;
  expect(Object.keys(parsed)).toEqual(['error']);
  expect(Object.keys(parsed.error)).toEqual(['code', 'message', 'exitCode', 'requestId', 'details']);
  return parsed.error;
}

describe('a usage error under --json', () => {
  it('an unknown flag beside a missing required one: reported as unknown, with the nearest flag', async () => {
    const res = await runBinary(['order', 'bulk', 'orders.csv', '--otu', 'codes.csv', '--json']);
    expect(res.code).toBe(ExitCode.usage);
    expect(errorOf(res.stdout)).toEqual({
      code: 'USAGE',
      message: "unknown option '--otu' (Did you mean --out?)",
      exitCode: 2,
      requestId: null,
      details: { reason: 'unknownOption' },
    });
    // Commander's own lines stay on stderr, and never the missing --out instead.
    expect(res.stderr).toContain("error: unknown option '--otu'\n(Did you mean --out?)");
    expect(res.stderr).not.toContain('required option');
  });

  it('without --json stdout stays empty; a missing required flag alone is still named', async () => {
    const res = await runBinary(['order', 'bulk', 'orders.csv']);
    expect(res.code).toBe(ExitCode.usage);
    expect(res.stdout).toBe('');
    expect(res.stderr).toContain("error: required option '--out <path>' not specified");
  });

  it('a missing argument, and a CLI usage error of the command', async () => {
    const missing = await runBinary(['order', 'get', '--json']);
    expect(errorOf(missing.stdout)).toMatchObject({
      code: 'USAGE',
      message: "missing required argument 'checkoutId'",
      details: { reason: 'missingArgument' },
    });
    const own = await runBinary(['api', 'GET', 'https://evil.example/', '--json'], {
      env: { GIFTCODES_BASE_URL: sb.url, GIFTCODES_API_KEY: sb.apiKey },
    });
    expect(own.code).toBe(ExitCode.usage);
    expect(errorOf(own.stdout)).toMatchObject({ code: 'USAGE', exitCode: 2, requestId: null, details: null });
    expect(own.stderr).toMatch(/^error USAGE: <path> /m);
  });
});

describe('a service error under --json', () => {
  it('carries the request id and the details, with the exit code of its class', async () => {
    const acc = sb.account({ balanceUsd: 500 });
    await sb.operator.patchAccount(acc.userId, { limits: { maxQuantityPerItem: 1 } });
    const res = await runBinary(
      [
        ...['order', 'create', '--product', 'prd_amazon_us', '--sku', 'sku_amazon_us_25'],
        ...['--amount', '25', '--quantity', '3', '--yes', '--json'],
      ],
      { env: acc.env },
    );
    expect(res.code).toBe(ExitCode.stoppedResumable);
    const error = errorOf(res.stdout);
    expect(error).toMatchObject({
      code: 'B2B_LIMIT_EXCEEDED',
      exitCode: 4,
      details: { limit: 'maxQuantityPerItem', limitValue: 1, requested: 3 },
    });
    expect(error.requestId).toMatch(/^req_/);
    expect(res.stderr).toContain(`error B2B_LIMIT_EXCEEDED: ${error.message} (request ${error.requestId})`);
  });

  it('a 404 of a read: exit 1, and the id the service gave', async () => {
    const res = await runBinary(['order', 'get', 'chk_none', '--json'], { env: sb.account().env });
    expect(res.code).toBe(ExitCode.service);
    expect(errorOf(res.stdout)).toMatchObject({
      code: 'NOT_FOUND',
      exitCode: 1,
      requestId: expect.stringMatching(/^req_/),
    });
  });
});

describe('a network error under --json', () => {
  it('a refused connection: NETWORK, exit 1, in words', async () => {
    const res = await runInProcess(['balance', '--json'], {
      env: { GIFTCODES_BASE_URL: 'http://127.0.0.1:9', GIFTCODES_API_KEY: 'gk_test_network_0001' },
      deps: { clock: instantClock() },
    });
    expect(res.code).toBe(ExitCode.service);
    const error = errorOf(res.stdout);
    expect(error).toMatchObject({ code: 'NETWORK', exitCode: 1, requestId: null, details: null });
    expect(error.message).toBe('connection to 127.0.0.1:9 failed: the connection was refused');
    expect(res.stderr).toBe(`error NETWORK: ${error.message}\n`);
  });
});

describe('a run stopped by a signal under --json', () => {
  it.each([
    ['SIGINT', ExitCode.interrupted],
    ['SIGTERM', ExitCode.terminated],
  ] as const)(
    '%s while the request is out: INTERRUPTED, and the exit code the process ends with',
    async (signal, code) => {
      const acc = sb.account();
      // The service holds the answer: only the signal can end the run.
      await sb.operator.setFaults({
        routes: { 'GET /b2b/balance': { script: ['delay_after'], delayMs: 600_000 } },
      });
      const run = startBinary(['balance', '--json', '--debug'], acc.env);
      await run.stderrShows('> GET ');
      run.kill(signal);
      const res = await run.done;
      await sb.operator.setFaults({});
      expect(res.code).toBe(code);
      expect(errorOf(res.stdout)).toMatchObject({ code: 'INTERRUPTED', exitCode: code, requestId: null });
      expect(res.stderr).toMatch(/^error INTERRUPTED: interrupted$/m);
    },
  );
});

describe('what the error object may show', () => {
  it('details go through the guard: codes masked unless --reveal, the key never', () => {
    const io = { ...quietIO(), guard: new OutputGuard() };
    io.guard.addSecret('gk_live_secret_key_4242');
    let out = '';
    (io.stdout as PassThrough).on('data', (chunk) => {
      out += chunk;
    });
    const error = new CliError('refused', {
      exitCode: ExitCode.service,
      code: 'X',
      details: { cardCode: 'CODE-1234-5678-ABCD', echoed: 'key gk_live_secret_key_4242' },
    });
    expect(reportError(io, error, { json: true })).toBe(ExitCode.service);
    expect(errorOf(out).details).toEqual({ cardCode: '****ABCD', echoed: 'key ****4242' });
  });

  it('a command that printed its result before failing keeps stdout to that one value', async () => {
    const acc = sb.account();
    const made = await sb.api('POST', '/b2b/deposits', {
      apiKey: acc.apiKey,
      body: { amount: 50, paymentCurrency: 'USD' },
    });
    expect(made.status, made.text).toBe(201);
    const id = (made.body.depositId ?? made.body.deposit?.depositId) as string;
    // Nobody pays: the wait runs out (in no real time) and prints the deposit as last read.
    const res = await runInProcess(['deposit', 'get', id, '--wait', '--wait-timeout', '5s', '--json'], {
      env: acc.env,
      deps: { clock: instantClock() },
    });
    expect(res.code).toBe(ExitCode.stoppedResumable);
    const printed = JSON.parse(res.stdout);
    expect(printed.error).toBeUndefined();
    expect(printed.deposit.depositId).toBe(id);
    expect(res.stderr).toMatch(/^error WAIT_TIMEOUT: /m);
  });
});
