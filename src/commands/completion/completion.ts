/** `giftcodes completion bash|zsh|fish`: prints the script for the command tree this binary has. */
import type { Context } from '../../context.js';
import { type DeclaredValues, defineCommand } from '../../flags/define.js';
import { outOwn } from '../../io/streams.js';

const args = {
  shell: { usage: '<shell>', description: 'bash, zsh or fish', choices: ['bash', 'zsh', 'fish'] },
} as const;

export default defineCommand({
  command: 'completion',
  description: 'print a shell completion script (commands, flags, fixed values)',
  args,
  examples: [
    '# bash: this shell; add the line to ~/.bashrc to keep it',
    'source <(giftcodes completion bash)',
    '# zsh: this shell; add the line to ~/.zshrc (after compinit)',
    'source <(giftcodes completion zsh)',
    '# fish',
    'giftcodes completion fish > ~/.config/fish/completions/giftcodes.fish',
  ],
  run: runCompletion,
});

export async function runCompletion(ctx: Context, opts: DeclaredValues<typeof args>): Promise<void> {
  const [{ bashScript, fishScript, zshScript }, { describeTree }] = await Promise.all([
    import('./scripts.js'),
    import('./tree.js'),
  ]);
  // The whole tree: the one being run holds only the commands of the nouns typed.
  const program = await ctx.commandTree();
  const scripts = { bash: bashScript, zsh: zshScript, fish: fishScript };
  outOwn(ctx.io, scripts[opts.shell](describeTree(program)));
}
