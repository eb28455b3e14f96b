/** `giftcodes doctor`: one line per fact about the setup, ok/warn/fail. */
import { invoke } from '../invoke.js';
import type { Register } from '../types.js';

export const registerDoctor: Register = (program, contextFor) => {
  program
    .command('doctor')
    .description(
      'check the setup: profile, base URL, key source, config file mode, service, key, scopes, account, clock (exit 1 on any fail)',
    )
    .action(async (_opts, command) => {
      const { runDoctor } = await import('./run.js');
      await invoke(contextFor(command), runDoctor, {});
    });
};
