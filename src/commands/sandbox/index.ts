/** `giftcodes sandbox`: the local emulation of the whole service. */
import { SANDBOX_FLAGS } from '../../sandbox/flag-spec.js';
import { invoke } from '../invoke.js';
import { collect } from '../parse.js';
import type { Register } from '../types.js';

export const registerSandbox: Register = (program, contextFor) => {
  const command = program
    .command('sandbox')
    .description('run a local, stateful emulation of the service (for rehearsals and tests; no money moves)');
  for (const flag of SANDBOX_FLAGS) {
    if (flag.repeatable) command.option(flag.flags, flag.description, collect);
    else command.option(flag.flags, flag.description);
  }
  command.action(async (opts, cmd) => {
    const { runSandbox } = await import('./run.js');
    await invoke(contextFor(cmd), runSandbox, opts);
  });
};
