/** Progress without a terminal: one line at most every 10 s of the injected clock, none without a clock. */
import { describe, expect, it } from 'vitest';
import { SCRIPT_PROGRESS_MS, startProgress } from '../../src/io/progress.js';
import { quietIO } from '../helpers/cli.js';

function captured() {
  const io = quietIO();
  let text = '';
  io.stderr.on('data', (c: Buffer) => {
    text += c.toString('utf8');
  });
  return { io, text: () => text };
}

describe('startProgress without a TTY', () => {
  it('writes the latest text every 10 s of the injected clock, however often it is updated', async () => {
    const { io, text } = captured();
    let now = 1_000_000;
    const progress = await startProgress(io, 'starting', { now: () => now });
    for (let second = 1; second <= 35; second++) {
      now += 1_000;
      progress.update(`done ${second}`);
    }
    await new Promise((r) => setImmediate(r));
    expect(text()).toBe('done 10\ndone 20\ndone 30\n');
    expect(SCRIPT_PROGRESS_MS).toBe(10_000);
  });

  it('a long gap between updates gives the next one at once', async () => {
    const { io, text } = captured();
    let now = 0;
    const progress = await startProgress(io, 'x', { now: () => now });
    now = 60_000;
    progress.update('after a minute');
    now = 61_000;
    progress.update('a second later');
    await new Promise((r) => setImmediate(r));
    expect(text()).toBe('after a minute\n');
  });

  it('without a clock, nothing but the outcome lines', async () => {
    const { io, text } = captured();
    const progress = await startProgress(io, 'x');
    progress.update('ignored');
    progress.succeed('finished');
    await new Promise((r) => setImmediate(r));
    expect(text()).toBe('finished\n');
  });
});
