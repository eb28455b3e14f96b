/** `giftcodes completion bash|zsh|fish`: prints the script for the command tree this binary has. */
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { outOwn } from '../../io/streams.js';
import { bashScript, fishScript, zshScript } from './scripts.js';
import { describeTree } from './tree.js';

export type Shell = 'bash' | 'zsh' | 'fish';

export interface CompletionOptions {
  shell: Shell;
  /** The program's command tree (the action hands over the root it belongs to). */
  program: Command;
}

const SCRIPTS: Record<Shell, typeof bashScript> = { bash: bashScript, zsh: zshScript, fish: fishScript };

export async function runCompletion(ctx: Context, opts: CompletionOptions): Promise<void> {
  outOwn(ctx.io, SCRIPTS[opts.shell](describeTree(opts.program)));
}
