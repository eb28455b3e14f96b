/** How command files declare themselves: flags and help here, work in a lazily loaded run module. */
import type { Command } from 'commander';
import type { Context } from '../context.js';

/** Builds the context for the command being run, from its own and the global flags. */
export type ContextFor = (command: Command) => Context;

export type Register = (program: Command, contextFor: ContextFor) => void;
