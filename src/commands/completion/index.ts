/** `giftcodes completion bash|zsh|fish`: a shell completion script made from the command tree. */
import { Argument } from 'commander';
import { invoke } from '../invoke.js';
import type { Register } from '../types.js';

export const registerCompletion: Register = (program, contextFor) => {
  program
    .command('completion')
    .description('print a shell completion script (commands, flags, fixed values)')
    .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(['bash', 'zsh', 'fish']))
    .action(async (shell: string, _opts, command) => {
      const [{ runCompletion }, { rootOf }] = await Promise.all([import('./run.js'), import('./tree.js')]);
      await invoke(contextFor(command), runCompletion, { shell: shell as 'bash', program: rootOf(command) });
    });
};
