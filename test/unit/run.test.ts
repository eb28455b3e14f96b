/**
 * `run(argv, deps)` in this process, as a script sees it: the exit code, the one JSON
 * error object under --json on stdout, the one line on stderr, the code of a run a stop
 * signal ended, what is never printed (secrets typed on the command line), and the
 * streams and the command tree a command is handed. The binary tests show the same end
 * to end; these run the source itself, which is what the errors mutation group mutates.
 */
import { createServer } from 'node:http';
import type { Socket } from 'node:net';
import type { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { CliError, ExitCode } from '../../src/errors.js';
import { printJson } from '../../src/io/output.js';
import { type ErrorJson, reportError, stopOnSignals } from '../../src/main.js';
import { signatureHeader } from '../../src/webhooks/signature.js';
import { quietIO, runInProcess } from '../helpers/cli.js';
import { withSandbox } from '../helpers/sandbox.js';
import { json, listenOnLoopback, startServer, type TestServer } from '../helpers/server.js';
import { tempDirFor } from '../helpers/temp.js';
import { waitFor } from '../helpers/wait.js';

const sb = withSandbox({ seed: 31 });

const KEY = 'gk_live_typed_key_7Hq2';
const SECRET = 'whsec_typed_secret_9Zk4';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Stdout as the one JSON error object it must be, every key present and in order. */
function errorOf(stdout: string): ErrorJson['error'] {
  const parsed = JSON.parse(stdout) as ErrorJson;
  expect(Object.keys(parsed)).toEqual(['error']);
  expect(Object.keys(parsed.error)).toEqual(['code', 'message', 'exitCode', 'requestId', 'details']);
  return parsed.error;
}

/** An environment that reaches `url` with a key, and a config directory of its own. */
function envFor(url: string, key: string | undefined = KEY): Record<string, string | undefined> {
  return {
    GIFTCODES_BASE_URL: url,
    GIFTCODES_API_KEY: key,
    GIFTCODES_CONFIG_DIR: tempDirFor('giftcodes-run-'),
  };
}

describe('a usage error commander found', () => {
  it('under --json: commander’s own line on stderr, the error object on stdout, exit 2', async () => {
    const res = await runInProcess(['nosuch', '--json']);
    expect(res.code).toBe(ExitCode.usage);
    expect(res.stderr).toBe("error: unknown command 'nosuch'\n");
    expect(errorOf(res.stdout)).toEqual({
      code: 'USAGE',
      message: "unknown command 'nosuch'",
      exitCode: 2,
      requestId: null,
      details: { reason: 'unknownCommand' },
    });
  });

  it('a message on two lines is one line in the object, without the "error:" prefix', async () => {
    const res = await runInProcess(['order', 'bulk', 'orders.csv', '--otu', 'codes.csv', '--json']);
    expect(res.code).toBe(ExitCode.usage);
    expect(res.stderr).toBe("error: unknown option '--otu'\n(Did you mean --out?)\n");
    expect(errorOf(res.stdout)).toEqual({
      code: 'USAGE',
      message: "unknown option '--otu' (Did you mean --out?)",
      exitCode: 2,
      requestId: null,
      details: { reason: 'unknownOption' },
    });
  });

  it('a command group without its subcommand: the help on stderr, the object says what is missing', async () => {
    const res = await runInProcess(['order', '--json']);
    expect(res.code).toBe(ExitCode.usage);
    expect(res.stderr).toMatch(/^Usage: giftcodes order /);
    expect(res.stderr).not.toMatch(/^error/m);
    expect(errorOf(res.stdout)).toEqual({
      code: 'USAGE',
      message: 'a subcommand is required (the help on stderr lists them)',
      exitCode: 2,
      requestId: null,
      details: { reason: 'help' },
    });
  });

  it('without --json, or with --json after `--` (an operand there), stdout stays empty', async () => {
    for (const argv of [['nosuch'], ['nosuch', '--', '--json']]) {
      const res = await runInProcess(argv);
      expect(res.code).toBe(ExitCode.usage);
      expect(res.stdout).toBe('');
      expect(res.stderr).toBe("error: unknown command 'nosuch'\n");
    }
  });

  it('an empty word is not --version', async () => {
    const res = await runInProcess(['']);
    expect(res.code).toBe(ExitCode.usage);
    expect(res.stdout).toBe('');
    expect(res.stderr).toBe("error: unknown command ''\n");
  });
});

describe('a failure once the command runs', () => {
  const refusal = {
    'GET /b2b/balance': (_req: unknown, res: import('node:http').ServerResponse) =>
      json(
        res,
        401,
        { error: { code: 'UNAUTHORIZED', message: 'Invalid API key', details: { keyPrefix: '--' } } },
        { 'x-request-id': 'req_run_401' },
      ),
  };

  it('under --json: the service’s code, request id and details in the object, the line on stderr', async () => {
    server = await startServer(refusal);
    const res = await runInProcess(['balance', '--json'], { env: envFor(server.url) });
    expect(res.code).toBe(ExitCode.service);
    const error = errorOf(res.stdout);
    expect(error).toEqual({
      code: 'UNAUTHORIZED',
      message: expect.stringMatching(/^Invalid API key\. Next: check the API key /),
      exitCode: 1,
      requestId: 'req_run_401',
      details: { keyPrefix: '--' },
    });
    expect(res.stderr).toBe(`error UNAUTHORIZED: ${error.message} (request req_run_401)\n`);
  });

  it('--json or --debug taken as another flag’s value (`--api-key --json`) asks for neither', async () => {
    server = await startServer(refusal);
    for (const word of ['--json', '--debug']) {
      // No key in the environment: commander takes the next word as the key.
      const res = await runInProcess(['balance', '--api-key', word], { env: envFor(server.url, undefined) });
      expect(res.code).toBe(ExitCode.service);
      expect(res.stdout).toBe('');
      expect(res.stderr).toMatch(
        /^error UNAUTHORIZED: Invalid API key\. Next: [^\n]* \(request req_run_401\)\n$/,
      );
    }
    expect(server.hits('/b2b/balance').map((r) => r.headers['x-api-key'])).toEqual(['--json', '--debug']);
    // Asked for, --debug shows the details.
    const debug = await runInProcess(['balance', '--debug'], { env: envFor(server.url) });
    expect(debug.stderr).toContain('details: {\n  "keyPrefix": "--"\n}');
  });

  it('a profile asked for that does not exist: a usage error, as JSON only under --json', async () => {
    const env = envFor('http://127.0.0.1:9');
    const plain = await runInProcess(['balance', '--profile', 'nope'], { env });
    expect(plain.code).toBe(ExitCode.usage);
    expect(plain.stdout).toBe('');
    expect(plain.stderr).toMatch(/^error USAGE: no profile "nope" \(from --profile\): /);
    const asJson = await runInProcess(['balance', '--json', '--profile', 'nope'], { env });
    expect(asJson.code).toBe(ExitCode.usage);
    expect(errorOf(asJson.stdout)).toEqual({
      code: 'USAGE',
      message: expect.stringMatching(/^no profile "nope" \(from --profile\): /),
      exitCode: 2,
      requestId: null,
      details: null,
    });
  });
});

describe('an internal error', () => {
  /** `order create` draws its ref first: the randomness is where the crash is injected. */
  async function crashWith(error: unknown) {
    const res = await runInProcess(
      ['order', 'create', '--product', 'prd_x', '--sku', 'sku_x', '--amount', '10', '--yes'],
      {
        env: envFor('http://127.0.0.1:9'),
        deps: {
          random: () => {
            throw error;
          },
        },
      },
    );
    expect(res.code).toBe(ExitCode.service);
    expect(res.stdout).toBe('');
    return res.stderr;
  }

  it('a system error says its call, its file and the errno in words', async () => {
    const denied = Object.assign(new Error('EACCES: permission denied, open /x/y'), {
      code: 'EACCES',
      syscall: 'open',
      path: '/x/y',
    });
    expect(await crashWith(denied)).toBe('error INTERNAL: open /x/y failed: permission denied\n');
    const refused = Object.assign(new Error('connect ECONNREFUSED'), {
      code: 'ECONNREFUSED',
      syscall: 'connect',
    });
    expect(await crashWith(refused)).toBe('error INTERNAL: connect failed: the connection was refused\n');
  });

  it('an error without both an errno and a call keeps its own message', async () => {
    const undici = Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
    expect(await crashWith(undici)).toBe('error INTERNAL: other side closed\n');
    const noCode = Object.assign(new Error('odd failure'), { syscall: 'open', path: '/x/y' });
    expect(await crashWith(noCode)).toBe('error INTERNAL: odd failure\n');
  });
});

describe('a run a stop signal ended', () => {
  const body = '{"id":"evt_1","type":"order.completed"}';
  const now = 1_700_000_000_000;
  const verify = (header: string) => [
    ...['webhook', 'verify', '--secret', SECRET, '--header', header, '--now', String(now)],
  ];
  const valid = signatureHeader({ secrets: [SECRET], timestamp: now, payload: body });
  const forged = `t=${now},v1=${'0'.repeat(64)}`;

  it('a command that ends non-zero without throwing keeps its code', async () => {
    const res = await runInProcess(verify(forged), { input: body });
    expect(res.code).toBe(ExitCode.service);
    expect(res.stdout).toMatch(/^invalid: /);
  });

  it('stopped, a run that did not end 0 exits 128 + the signal’s number', async () => {
    for (const [signal, code] of [
      ['SIGINT', ExitCode.interrupted],
      ['SIGTERM', ExitCode.terminated],
    ] as const) {
      const res = await runInProcess(verify(forged), { input: body, deps: { stoppedBy: () => signal } });
      expect(res.code).toBe(code);
    }
  });

  it('stopped after its work was done, a run still ends 0', async () => {
    const res = await runInProcess(verify(valid), { input: body, deps: { stoppedBy: () => 'SIGINT' } });
    expect(res.code).toBe(ExitCode.ok);
    expect(res.stdout).toBe('valid\n');
  });

  it('SIGTERM while the request is out: INTERRUPTED, and 143 in the exit code and the object', async () => {
    const controller = new AbortController();
    let by: 'SIGTERM' | undefined;
    server = await startServer({
      // The answer never comes: only the signal ends the run.
      'GET /b2b/balance': () => {
        by = 'SIGTERM';
        controller.abort();
      },
    });
    const res = await runInProcess(['balance', '--json'], {
      env: envFor(server.url),
      deps: { signal: controller.signal, stoppedBy: () => by },
    });
    expect(res.code).toBe(ExitCode.terminated);
    expect(errorOf(res.stdout)).toEqual({
      code: 'INTERRUPTED',
      message: 'interrupted',
      exitCode: ExitCode.terminated,
      requestId: null,
      details: null,
    });
    expect(res.stderr).toBe('error INTERRUPTED: interrupted\n');
  });

  it('stopOnSignals: the first SIGINT or SIGTERM aborts the signal and is the one named', () => {
    const names = ['SIGINT', 'SIGTERM'] as const;
    const before = new Set(names.flatMap((name) => process.listeners(name)));
    /** The listeners stopOnSignals added for `name`, called as the process calls them on that signal. */
    const deliver = (name: (typeof names)[number]) => {
      for (const listener of process.listeners(name)) if (!before.has(listener)) listener(name);
    };
    try {
      const stop = stopOnSignals();
      expect(stop.signal.aborted).toBe(false);
      expect(stop.stoppedBy()).toBeUndefined();
      deliver('SIGTERM');
      expect(stop.signal.aborted).toBe(true);
      expect(stop.stoppedBy()).toBe('SIGTERM');
    } finally {
      for (const name of names)
        for (const listener of process.listeners(name))
          if (!before.has(listener)) process.off(name, listener);
    }
    try {
      const stop = stopOnSignals();
      deliver('SIGINT');
      expect(stop.signal.aborted).toBe(true);
      expect(stop.stoppedBy()).toBe('SIGINT');
    } finally {
      for (const name of names)
        for (const listener of process.listeners(name))
          if (!before.has(listener)) process.off(name, listener);
    }
  });
});

describe('what a run never prints', () => {
  it('a secret typed as --secret=... is masked in commander’s own error and the object', async () => {
    const res = await runInProcess(['balance', `--secret=${SECRET}`, '--json']);
    expect(res.code).toBe(ExitCode.usage);
    expect(res.stderr).toBe("error: unknown option '--secret=****9Zk4'\n");
    expect(errorOf(res.stdout).message).toBe("unknown option '--secret=****9Zk4'");
    expect(res.stdout + res.stderr).not.toContain(SECRET);
  });

  it('the word after --api-key or --secret is a secret wherever it lands (here, operands)', async () => {
    for (const [flag, secret, masked] of [
      ['--api-key', KEY, '****7Hq2'],
      ['--secret', SECRET, '****9Zk4'],
    ]) {
      const res = await runInProcess(['help', '--', flag as string, secret as string]);
      expect(res.code).toBe(ExitCode.usage);
      expect(res.stderr).toBe(
        `error USAGE: no help for "${flag} ${masked}": try \`giftcodes help\`, or the topic \`giftcodes help exit-codes\`\n`,
      );
    }
  });
});

describe('what a command is handed', () => {
  it('--no-color turns colour off for the command on a terminal that has it', async () => {
    const { env } = sb.account({ balanceUsd: 10 });
    const coloured = await runInProcess(['account'], { env, color: true });
    expect(coloured.code, coloured.stderr).toBe(0);
    expect(coloured.stdout).toContain('\u001b[1mtier\u001b[22m');
    const plain = await runInProcess(['account', '--no-color'], { env, color: true });
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).not.toContain('\u001b[');
    expect(plain.stdout).toMatch(/^tier: /);
  });

  it('completion is made from the whole command tree, not only the nouns typed', async () => {
    const res = await runInProcess(['completion', 'bash']);
    expect(res.code, res.stderr).toBe(0);
    for (const word of ['order', 'bulk', 'webhook', 'verify', 'deposit']) expect(res.stdout).toContain(word);
  });

  it('a run closes its connections before it returns', async () => {
    let socket: Socket | undefined;
    let closed = false;
    const http = createServer((_req, res) => {
      socket = res.socket ?? undefined;
      socket?.once('close', () => {
        closed = true;
      });
      // Keep-alive for ten minutes on both sides: only the CLI closing its client ends it.
      res.writeHead(404, { 'content-type': 'application/json', 'keep-alive': 'timeout=600' });
      res.end(JSON.stringify({ error: { code: 'NOT_FOUND', message: 'no such order' } }));
    });
    http.keepAliveTimeout = 600_000;
    const loopback = await listenOnLoopback(http);
    try {
      const res = await runInProcess(['order', 'get', 'chk_1'], { env: envFor(loopback.url) });
      expect(res.code).toBe(ExitCode.service);
      expect(socket).toBeDefined();
      await waitFor(() => closed, { what: 'the CLI to close its connection', timeoutMs: 5_000 });
    } finally {
      await loopback.close();
    }
  });
});

describe('reportError with details too deep to print', () => {
  const deep = (levels: number): unknown => {
    let value: unknown = 'bottom';
    for (let i = 0; i < levels; i++) value = { inner: value };
    return value;
  };

  function capture() {
    const io = quietIO();
    let out = '';
    let err = '';
    (io.stdout as PassThrough).on('data', (c) => {
      out += c;
    });
    (io.stderr as PassThrough).on('data', (c) => {
      err += c;
    });
    return { io, out: () => out, err: () => err };
  }

  it('the error still comes out, saying why its details do not', () => {
    const error = new CliError('refused', { exitCode: ExitCode.service, code: 'X', details: deep(300) });
    const c = capture();
    expect(reportError(c.io, error, { json: true, debug: true })).toBe(ExitCode.service);
    const why = '(not shown: unexpected response: nested deeper than 200 levels; refusing to process it)';
    expect(c.err()).toBe(`error X: refused\ndetails: ${why}\n`);
    expect(errorOf(c.out())).toEqual({
      code: 'X',
      message: 'refused',
      exitCode: ExitCode.service,
      requestId: null,
      details: why,
    });
  });

  it('JSON printed on other streams earlier in the process does not hold back this error object', () => {
    // The test process outlives a file (isolate: false): what one test's streams printed
    // must not decide what a later test's streams print.
    printJson(quietIO(), { earlier: true });
    const c = capture();
    const error = new CliError('refused', { exitCode: ExitCode.service, code: 'X' });
    expect(reportError(c.io, error, { json: true })).toBe(ExitCode.service);
    expect(errorOf(c.out()).message).toBe('refused');
  });
});
