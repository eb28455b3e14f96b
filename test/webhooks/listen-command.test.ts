/** `giftcodes webhook listen` as a process: lines on stdout, notes on stderr, Ctrl-C exits 0. */
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { signatureHeader } from '../../src/index.js';
import { json, startServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { type RunningListener, spawnListen } from './spawn-listen.js';

const SECRET = 'whsec_listen_cmd_secret_01';

let running: RunningListener | undefined;
let app: TestServer | undefined;
afterEach(async () => {
  if (running && running.child.exitCode === null) await running.stop();
  await app?.close();
  running = undefined;
  app = undefined;
});

async function deliver(url: string, id: string, secret = SECRET) {
  const body = JSON.stringify({
    id,
    type: 'order.completed',
    createdAt: Date.now(),
    data: { checkoutId: 'chk_77' },
  });
  const res = await request(url, {
    method: 'POST',
    body,
    headers: {
      'content-type': 'application/json',
      'x-service-signature': signatureHeader({ secrets: [secret], timestamp: Date.now(), payload: body }),
      'x-service-event': 'order.completed',
      'x-service-delivery': id,
    },
  });
  await res.body.dump();
  return { status: res.statusCode, body };
}

/** Waits for what the listener shows; a timeout names its stderr. */
function until(test: () => boolean | undefined) {
  return waitFor(test, { what: `the listener; stderr:\n${running?.stderr()}` });
}

describe('webhook listen (binary)', () => {
  it('prints one line per event with time, type, delivery, checkout and verdict; forwards; exits 0 on Ctrl-C', async () => {
    app = await startServer({ 'POST /app': (_req, res) => json(res, 204, {}) });
    running = await spawnListen(['--secret', SECRET, '--forward-to', `${app.url}/app`]);
    expect((await deliver(running.url, 'whd_l1')).status).toBe(200);
    const line = await running.waitForLine((l) => l.includes('whd_l1'));
    expect(line).toMatch(/^\d{4}-\d\d-\d\dT\S+Z\s+order\.completed\s+whd_l1\s+chk_77\s+verified\s+-> 204$/);
    await deliver(running.url, 'whd_l1');
    expect((await deliver(running.url, 'whd_l2', 'whsec_not_mine_at_all')).status).toBe(400);
    await until(() => running?.stderr().includes('rejected: no matching signature'));
    expect(running.stdoutLines.filter((l) => l.includes('whd_l1'))).toHaveLength(1);
    expect(running.stdoutLines.join('\n')).not.toContain('whd_l2');
    expect(app.hits('/app')).toHaveLength(1);
    expect(running.stderr()).toContain('duplicate delivery whd_l1');
    expect(await running.stop()).toBe(0);
  });

  it('refuses a signed body replayed under another delivery header, and says so (issue 22)', async () => {
    app = await startServer({ 'POST /app': (_req, res) => json(res, 204, {}) });
    running = await spawnListen(['--secret', SECRET, '--forward-to', `${app.url}/app`]);
    const first = await deliver(running.url, 'whd_r1');
    await running.waitForLine((l) => l.includes('whd_r1'));
    const replay = await request(running.url, {
      method: 'POST',
      body: first.body,
      headers: {
        'x-service-signature': signatureHeader({
          secrets: [SECRET],
          timestamp: Date.now(),
          payload: first.body,
        }),
        'x-service-event': 'order.completed',
        'x-service-delivery': 'whd_r2',
      },
    });
    await replay.body.dump();
    expect(replay.statusCode).toBe(400);
    await until(() =>
      running
        ?.stderr()
        .includes('rejected: delivery header mismatch for delivery whd_r1 (answered 400, not forwarded)'),
    );
    expect(running.stdoutLines.join('\n')).not.toContain('whd_r2');
    expect(app.hits('/app')).toHaveLength(1);
  });

  it('--json prints one JSON object per line', async () => {
    running = await spawnListen(['--json'], { GIFTCODES_WEBHOOK_SECRET: SECRET });
    await deliver(running.url, 'whd_j1');
    const line = await running.waitForLine((l) => l.includes('whd_j1'));
    expect(JSON.parse(line)).toMatchObject({
      type: 'order.completed',
      deliveryId: 'whd_j1',
      checkoutId: 'chk_77',
      verified: true,
      duplicate: false,
    });
  });
});

describe('webhook listen with a secret: unverified requests (issue 12)', () => {
  // What any web page can send to a loopback port without a preflight: a "simple" POST.
  const hostile = JSON.stringify({
    id: 'whd_evil\u001b[2J',
    type: 'order.completed\u001b]0;pwned\u0007',
    data: { checkoutId: 'chk_$(touch /tmp/x)' },
  });
  const sendHostile = async (url: string) => {
    const res = await request(url, {
      method: 'POST',
      body: hostile,
      headers: { 'content-type': 'text/plain', cookie: 'session=s3cret', authorization: 'Bearer tok' },
    });
    await res.body.dump();
    return res.statusCode;
  };

  it('answers 400, forwards nothing and prints one sanitized "rejected" line', async () => {
    app = await startServer({ 'POST /app': (_req, res) => json(res, 204, {}) });
    running = await spawnListen(['--secret', SECRET, '--forward-to', `${app.url}/app`]);
    expect(await sendHostile(running.url)).toBe(400);
    await until(() => running?.stderr().includes('rejected: malformed header'));
    // A real delivery afterwards proves the listener went on, and that nothing came before it.
    await deliver(running.url, 'whd_after');
    await running.waitForLine((l) => l.includes('whd_after'));
    expect(app.hits('/app')).toHaveLength(1);
    expect(app.hits('/app')[0]?.headers.cookie).toBeUndefined();
    const printed = running.stdoutLines.join('\n') + running.stderr();
    for (const raw of ['whd_evil', 'pwned', 'touch', '\u001b']) expect(printed).not.toContain(raw);
  });

  it('--forward-unverified is an explicit, loudly unsafe opt-in', async () => {
    app = await startServer({ 'POST /app': (_req, res) => json(res, 204, {}) });
    running = await spawnListen([
      '--secret',
      SECRET,
      '--forward-to',
      `${app.url}/app`,
      '--forward-unverified',
    ]);
    await until(() => /--forward-unverified: .*unsafe/.test(running?.stderr() ?? ''));
    expect(await sendHostile(running.url)).toBe(200);
    await until(() => (app?.hits('/app').length ?? 0) > 0);
    expect(app.hits('/app')[0]?.body).toBe(hostile);
  });
});
