/** `giftcodes demo`: the whole bulk job against an in-process sandbox, in one command. */
import { invoke } from '../invoke.js';
import type { Register } from '../types.js';

export const registerDemo: Register = (program, contextFor) => {
  program
    .command('demo')
    .description(
      'start a local sandbox, fund an account, bulk-buy fixtures/demo-orders.csv, write demo-codes.csv',
    )
    .option('--out <path>', 'where to write the codes', 'demo-codes.csv')
    .option('--input <csv>', 'the order file (default: the bundled fixtures/demo-orders.csv)')
    .action(async (opts, command) => {
      const { runDemo } = await import('./run.js');
      await invoke(contextFor(command), runDemo, opts);
    });
};
