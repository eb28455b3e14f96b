/**
 * The scheduler on its own: fake steps that record what ran, a clock the test moves,
 * and a sleep that returns at once. What it promises the runner: due reads first (taking
 * turns with ready submissions), the anchor rule (`maySubmit`), stop and interruption,
 * the wait timeout, and never more steps in flight than the adaptive limit allows.
 */
import { describe, expect, it } from 'vitest';
import { Scheduler, type Steps } from '../../../src/bulk/run/scheduler.js';
import { AdaptiveLimit } from '../../../src/bulk/run/submit.js';
import type { PlanOrder } from '../../../src/bulk/store/index.js';
import { InterruptedError } from '../../../src/errors.js';

let orderNumber = 0;
const order = (ref: string): PlanOrder => ({ index: orderNumber++, ref, lines: [], part: false });

/** A turn of the event loop: lets the other workers run. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

interface Harness {
  scheduler: Scheduler;
  log: string[];
  clock: { t: number };
  sleeps: number[];
  controller: AbortController;
  limit: AdaptiveLimit;
}

/** What a test's fake steps do beyond recording that they ran. */
interface FakeSteps {
  maySubmit?: Steps['maySubmit'];
  onSubmit?(o: PlanOrder, h: Harness): Promise<void> | void;
  onPoll?(o: PlanOrder, attempt: number, h: Harness): Promise<void> | void;
}

function harness(
  steps: FakeSteps,
  opts: { concurrency?: number; limit?: number; waitTimeoutMs?: number; now?: () => number } = {},
): Harness {
  const clock = { t: 1_000 };
  const sleeps: number[] = [];
  const log: string[] = [];
  const controller = new AbortController();
  const now = opts.now ?? (() => clock.t);
  const limit = new AdaptiveLimit(opts.limit ?? 4, now);
  const h = { log, clock, sleeps, controller, limit } as Harness;
  h.scheduler = new Scheduler(
    {
      now,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
      signal: controller.signal,
      limit,
    },
    { concurrency: opts.concurrency ?? 1, waitTimeoutMs: opts.waitTimeoutMs ?? 60_000 },
    {
      maySubmit: steps.maySubmit ?? (() => true),
      submit: async (o) => {
        log.push(`submit ${o.ref}`);
        await steps.onSubmit?.(o, h);
      },
      poll: async (o, attempt) => {
        log.push(`poll ${o.ref}#${attempt}`);
        await steps.onPoll?.(o, attempt, h);
      },
    },
  );
  return h;
}

describe('Scheduler', () => {
  it('runs due reads before submissions, and a read not yet due after them', async () => {
    const h = harness({
      onSubmit: (o, { clock }) => {
        // The second submission moves the clock past the later read's due time.
        if (o.ref === 'B') clock.t = 2_000;
      },
    });
    h.scheduler.submitLater(order('A'));
    h.scheduler.submitLater(order('B'));
    h.scheduler.pollAt(order('late'), 0, 1_500);
    h.scheduler.pollAt(order('due'), 3, 900);
    await h.scheduler.run();
    expect(h.log).toEqual(['poll due#3', 'submit A', 'submit B', 'poll late#0']);
    expect(h.scheduler.stopReason).toBeUndefined();
    expect(h.scheduler.waitTimedOut).toBe(false);
  });

  it('takes turns between due reads and submissions: a resume buys while it reads back (issue 25)', async () => {
    const h = harness({}, { concurrency: 1 });
    // Orders an earlier run created, all due for a read now, and orders never sent.
    for (const ref of ['old1', 'old2', 'old3']) h.scheduler.pollAt(order(ref), 0, 0);
    for (const ref of ['new1', 'new2']) h.scheduler.submitLater(order(ref));
    await h.scheduler.run();
    expect(h.log).toEqual(['poll old1#0', 'submit new1', 'poll old2#0', 'submit new2', 'poll old3#0']);
  });

  it('reads in due order whatever order they were scheduled in', async () => {
    const h = harness({});
    h.scheduler.pollAt(order('third'), 0, 300);
    h.scheduler.pollAt(order('first'), 0, 100);
    h.scheduler.pollAt(order('second'), 0, 200);
    await h.scheduler.run();
    expect(h.log).toEqual(['poll first#0', 'poll second#0', 'poll third#0']);
  });

  it('holds every other order back while maySubmit says no (the anchor goes alone)', async () => {
    let anchorAnswered = false;
    const asked: string[] = [];
    let seenDuringAnchor: string[] = [];
    const h = harness(
      {
        maySubmit: (o) => {
          asked.push(o.ref);
          return o.ref === 'anchor' || anchorAnswered;
        },
        onSubmit: async (o, { log }) => {
          if (o.ref !== 'anchor') return;
          // Give the two other workers time to look at the queue while the anchor is in flight.
          for (let i = 0; i < 5; i++) await turn();
          seenDuringAnchor = [...log];
          anchorAnswered = true;
        },
      },
      { concurrency: 3 },
    );
    for (const ref of ['anchor', 'B', 'C']) h.scheduler.submitLater(order(ref));
    await h.scheduler.run();
    expect(seenDuringAnchor).toEqual(['submit anchor']);
    // The other workers asked about B while the anchor was in flight, and were told to wait.
    expect(asked.filter((r) => r === 'B').length).toBeGreaterThanOrEqual(2);
    expect(h.log).toEqual(['submit anchor', 'submit B', 'submit C']);
  });

  it('submits nothing more after stop(), but reads go on; the first reason is kept', async () => {
    const h = harness({
      onSubmit: (o, { scheduler }) => {
        scheduler.pollAt(o, 0, 0);
        if (o.ref === 'B') {
          scheduler.stop('daily cap');
          scheduler.stop('a later reason');
        }
      },
      onPoll: (o, attempt, { scheduler }) => {
        if (attempt === 0) scheduler.pollAt(o, 1, 0);
      },
    });
    for (const ref of ['A', 'B', 'C', 'D']) h.scheduler.submitLater(order(ref));
    await h.scheduler.run();
    // A due read and a submission take turns; after the stop only reads run.
    expect(h.log).toEqual(['submit A', 'poll A#0', 'submit B', 'poll A#1', 'poll B#0', 'poll B#1']);
    expect(h.scheduler.stopReason).toBe('daily cap');
    expect(h.scheduler.interrupted).toBe(false);
  });

  it('resume() after a stop carries on with the queue', async () => {
    const h = harness({
      onSubmit: (o, { scheduler }) => {
        if (o.ref === 'A') scheduler.stop('balance');
      },
    });
    for (const ref of ['A', 'B']) h.scheduler.submitLater(order(ref));
    await h.scheduler.run();
    expect(h.log).toEqual(['submit A']);
    h.scheduler.resume();
    expect(h.scheduler.stopReason).toBeUndefined();
    await h.scheduler.run();
    expect(h.log).toEqual(['submit A', 'submit B']);
  });

  it('submitNext puts orders at the head of the queue, submitLater at its tail', async () => {
    const h = harness({
      onSubmit: (o, { scheduler }) => {
        if (o.ref === 'A') {
          scheduler.submitLater(order('Z'));
          scheduler.submitNext(order('A.1'), order('A.2'));
        }
      },
    });
    for (const ref of ['A', 'B']) h.scheduler.submitLater(order(ref));
    await h.scheduler.run();
    expect(h.log).toEqual(['submit A', 'submit A.1', 'submit A.2', 'submit B', 'submit Z']);
  });

  it('an InterruptedError from a step marks the run interrupted and ends it', async () => {
    const h = harness({
      onSubmit: (o) => {
        if (o.ref === 'B') throw new InterruptedError();
      },
    });
    for (const ref of ['A', 'B', 'C']) h.scheduler.submitLater(order(ref));
    h.scheduler.pollAt(order('later'), 0, 5_000);
    await h.scheduler.run();
    expect(h.log).toEqual(['submit A', 'submit B']);
    expect(h.scheduler.interrupted).toBe(true);
    expect(h.scheduler.fatal).toBeUndefined();
  });

  it('an aborted signal interrupts the run before its next step', async () => {
    const h = harness({
      onSubmit: (o, { controller }) => {
        if (o.ref === 'A') controller.abort();
      },
    });
    for (const ref of ['A', 'B']) h.scheduler.submitLater(order(ref));
    await h.scheduler.run();
    expect(h.log).toEqual(['submit A']);
    expect(h.scheduler.interrupted).toBe(true);
    expect(h.scheduler.fatal).toBeUndefined();
  });

  it('any other error from a step becomes fatal (the first one) and ends the run', async () => {
    const boom = new Error('credentials');
    const h = harness({
      onPoll: () => {
        throw boom;
      },
    });
    h.scheduler.pollAt(order('P'), 0, 0);
    for (const ref of ['A', 'B']) h.scheduler.submitLater(order(ref));
    await h.scheduler.run();
    expect(h.log).toEqual(['poll P#0']);
    expect(h.scheduler.fatal).toBe(boom);
    expect(h.scheduler.interrupted).toBe(false);
  });

  it('--wait-timeout ends the wait for reads once nothing is left to submit', async () => {
    // Each look at the clock moves it 1 s on, so the wait is measured without real time.
    let t = 0;
    const now = () => {
      t += 1_000;
      return t;
    };
    const h = harness(
      {
        onPoll: (o, attempt, { scheduler }) => {
          // Still being fulfilled: read it again a little later.
          scheduler.pollAt(o, attempt + 1, t + 1_500);
        },
      },
      { waitTimeoutMs: 2_500, now },
    );
    h.scheduler.pollAt(order('slow'), 0, 0);
    const started = Date.now();
    await h.scheduler.run();
    expect(h.scheduler.waitTimedOut).toBe(true);
    expect(h.log[0]).toBe('poll slow#0');
    expect(h.log.length).toBeLessThan(5);
    expect(h.scheduler.stopReason).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('the wait timeout does not run while orders are still being submitted', async () => {
    let t = 0;
    const now = () => {
      t += 1_000;
      return t;
    };
    const h = harness(
      {
        onPoll: (o, attempt, { scheduler }) => {
          if (attempt < 2) scheduler.pollAt(o, attempt + 1, 0);
        },
      },
      { waitTimeoutMs: 10, now },
    );
    for (const ref of ['A', 'B', 'C', 'D', 'E']) h.scheduler.submitLater(order(ref));
    h.scheduler.pollAt(order('P'), 0, 0);
    await h.scheduler.run();
    expect(h.log.filter((l) => l.startsWith('submit'))).toHaveLength(5);
    expect(h.log.filter((l) => l.startsWith('poll'))).toEqual(['poll P#0', 'poll P#1', 'poll P#2']);
    expect(h.scheduler.waitTimedOut).toBe(false);
  });

  it('never has more steps in flight than the limit allows, with more workers than that', async () => {
    let inFlight = 0;
    let most = 0;
    const step = async () => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      for (let i = 0; i < 3; i++) await turn();
      inFlight -= 1;
    };
    const h = harness(
      {
        onSubmit: async (o, { scheduler }) => {
          await step();
          scheduler.pollAt(o, 0, 0);
        },
        onPoll: step,
      },
      // A limit of 4 starts at half (2), and these steps never report an answer to grow it.
      { concurrency: 6, limit: 4 },
    );
    expect(h.limit.value).toBe(2);
    for (let i = 0; i < 8; i++) h.scheduler.submitLater(order(`O${i}`));
    await h.scheduler.run();
    expect(h.log.filter((l) => l.startsWith('submit'))).toHaveLength(8);
    expect(h.log.filter((l) => l.startsWith('poll'))).toHaveLength(8);
    expect(most).toBe(2);
  });

  it('follows the limit down after a 429 and waits out its pace through the injected sleep', async () => {
    let inFlight = 0;
    const most: number[] = [];
    const h = harness(
      {
        onSubmit: async (o, { limit }) => {
          inFlight += 1;
          most.push(inFlight);
          if (o.ref === 'O0') {
            limit.onSuccess();
            limit.onRateLimited();
          }
          for (let i = 0; i < 3; i++) await turn();
          inFlight -= 1;
        },
      },
      { concurrency: 4, limit: 4 },
    );
    for (let i = 0; i < 12; i++) h.scheduler.submitLater(order(`O${i}`));
    await h.scheduler.run();
    expect(h.limit.value).toBe(2);
    expect(h.log).toHaveLength(12);
    // The last submissions started under the halved limit, each after a paced wait.
    expect(Math.max(...most.slice(-4))).toBeLessThanOrEqual(2);
    expect(h.sleeps.length).toBeGreaterThan(0);
    expect(h.sleeps.every((ms) => ms > 0)).toBe(true);
  });
});
