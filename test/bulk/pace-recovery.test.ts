/**
 * Issue 32, item 5: a long run through a period of faults (answers that come too late,
 * 5xx, cut bodies) comes back to its full pace within 10 s of the faults clearing. The
 * run's pace (`AdaptiveLimit`) against a simulated service on an injected clock: a
 * token bucket (the service's rate limit counts every request that reaches it, failed
 * ones too) and, in a window of the run, faults. No real time.
 */
import { describe, expect, it } from 'vitest';
import { AdaptiveLimit } from '../../src/bulk/run/submit.js';
import { seeded } from '../helpers/random.js';

interface Fault {
  from: number;
  to: number;
  /** Share of requests answered 5xx at once, and share that time out after `timeoutMs`. */
  errors: number;
  timeouts: number;
  timeoutMs: number;
}

/**
 * `concurrency` workers paced by an AdaptiveLimit send requests for `durationMs`; each is
 * answered `latencyMs` later by a bucket of `burst` tokens refilled at `perSecond` (a
 * 429 when empty), or, inside the fault window, fails. As the HTTP client does, a 5xx or
 * a timeout is retried by the same worker after `retryDelayMs` (not paced by the limit,
 * which hears of it through `onFault`), a 429 goes back to the run (`onRateLimited`) and
 * is sent again when the limit allows. Returns when each success was sent.
 */
function simulate(opts: {
  perSecond: number;
  burst: number;
  concurrency: number;
  latencyMs: number;
  durationMs: number;
  retryDelayMs: number;
  fault: Fault;
  seed: number;
}): number[] {
  const random = seeded(opts.seed);
  let now = 0;
  const limit = new AdaptiveLimit(opts.concurrency, () => now);
  const events: Array<{ at: number; seq: number; run: () => void }> = [];
  let seq = 0;
  const at = (time: number, run: () => void) => {
    events.push({ at: time, seq: seq++, run });
    events.sort((a, b) => a.at - b.at || a.seq - b.seq);
  };
  let tokens = opts.burst;
  let updatedAt = 0;
  const okAt: number[] = [];
  let inflight = 0;
  const start = () => {
    while (inflight < limit.value && now < opts.durationMs) {
      inflight += 1;
      send(now + limit.delayBeforeNext());
    }
  };
  const send = (sendAt: number) => {
    at(sendAt, () => {
      const arrive = sendAt + opts.latencyMs / 2;
      tokens = Math.min(opts.burst, tokens + ((arrive - updatedAt) / 1000) * opts.perSecond);
      updatedAt = arrive;
      const limited = tokens < 1;
      if (!limited) tokens -= 1;
      const inFault = arrive >= opts.fault.from && arrive < opts.fault.to;
      const roll = random();
      const kind = limited
        ? 'limited'
        : inFault && roll < opts.fault.errors
          ? 'error'
          : inFault && roll < opts.fault.errors + opts.fault.timeouts
            ? 'timeout'
            : 'ok';
      const doneAt = sendAt + (kind === 'timeout' ? opts.fault.timeoutMs : opts.latencyMs);
      at(doneAt, () => {
        if (kind === 'error' || kind === 'timeout') {
          // The client's own retry: the same worker, not paced by the limit.
          limit.onFault();
          send(now + opts.retryDelayMs);
          return;
        }
        inflight -= 1;
        if (kind === 'ok') {
          limit.onSuccess();
          okAt.push(sendAt);
        } else limit.onRateLimited(1000);
        start();
      });
    });
  };
  start();
  const poll = () => {
    if (now >= opts.durationMs && inflight === 0) return;
    start();
    at(now + 50, poll);
  };
  at(50, poll);
  while (events.length) {
    const next = events.shift() as (typeof events)[number];
    now = next.at;
    next.run();
  }
  return okAt;
}

const perTenSeconds = (okAt: number[], durationMs: number) =>
  Array.from({ length: Math.ceil(durationMs / 10_000) }, (_, k) =>
    Math.round(okAt.filter((t) => t >= k * 10_000 && t < (k + 1) * 10_000).length / 10),
  );

describe('the pace after a period of faults', () => {
  it.each([1, 2, 3])('seed %i: back at full pace within 10 s of the faults clearing', (seed) => {
    const fault = { from: 30_000, to: 60_000, errors: 0.3, timeouts: 0.2, timeoutMs: 2_000 };
    const okAt = simulate({
      perSecond: 27,
      burst: 5,
      concurrency: 8,
      latencyMs: 40,
      retryDelayMs: 20,
      durationMs: 100_000,
      fault,
      seed,
    });
    const rates = perTenSeconds(okAt, 100_000);
    const before = rates[2] as number;
    // The 10 s from the faults' end: back within them; the next 10 s at full pace.
    expect(before, JSON.stringify(rates)).toBeGreaterThanOrEqual(24);
    expect(rates[7], JSON.stringify(rates)).toBeGreaterThanOrEqual(before * 0.9);
    expect(rates[8], JSON.stringify(rates)).toBeGreaterThanOrEqual(before * 0.9);
  });
});
