/**
 * What the operator tests share: the CLI run in process on an instant clock (retries and
 * waits cost no real time), and the next step an error line tells the person to run.
 */
import { expect } from 'vitest';
import { runInProcess } from '../helpers/cli.js';
import { instantClock } from '../helpers/clock.js';

/** The CLI in process with `env`, its sleeps and waits on an instant clock. */
export function cli(env: Record<string, string>, args: string[]) {
  return runInProcess(args, { env, deps: { clock: instantClock() } });
}

/** The command the error line tells the person to run, as words (the tests use no quoting). */
export function advisedCommand(stderr: string): string[] {
  const command = /: giftcodes (.+)$/m.exec(stderr)?.[1];
  expect(command, stderr).toBeDefined();
  return (command as string).split(' ');
}
