/**
 * `node --import ./signal-log.mjs ...`: appends a line to the file named by SIGNAL_LOG
 * for every SIGINT and SIGTERM the process receives, its own echoes included, so a test
 * can count them. Only a listener: what the process does with each signal is unchanged
 * (the CLI listens for both anyway). Used by test/commands/config-conf.test.ts.
 */
import { appendFileSync } from 'node:fs';

const log = process.env.SIGNAL_LOG;
if (log)
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => appendFileSync(log, `${signal}\n`));
