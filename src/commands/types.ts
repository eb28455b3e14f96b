/** The context factory the registry hands each command's action. */
import type { Command } from 'commander';
import type { Context } from '../context.js';

/** Builds the context for the command being run, from its own and the global flags. */
export type ContextFor = (command: Command) => Context;
