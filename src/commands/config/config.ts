/** `giftcodes login`, `giftcodes logout` and `giftcodes config set|get|list|unset|use`. */
import { invoke } from '../invoke.js';
import type { Register } from '../types.js';

export const registerConfig: Register = (program, contextFor) => {
  program
    .command('login')
    .description(
      'store a base URL and API key in a profile: asks on a terminal (the key hidden), checks the key, and asks before replacing a stored one',
    )
    .option('--key-stdin', 'read the API key from stdin (for scripts)')
    .option('--no-verify', 'save without checking the key against the service')
    .option('-y, --yes', 'replace the stored base URL or key of the profile without asking')
    .action(async (opts, command) => {
      const { runLogin } = await import('./login.js');
      await invoke(contextFor(command), runLogin, {
        keyStdin: Boolean(opts.keyStdin),
        verify: opts.verify !== false,
        yes: Boolean(opts.yes),
      });
    });
  program
    .command('logout')
    .description("remove the profile's API key (its base URL is kept)")
    .option('-y, --yes', 'do not ask for confirmation (needed without a terminal)')
    .action(async (opts, command) => {
      const { runLogout } = await import('./login.js');
      await invoke(contextFor(command), runLogout, { yes: Boolean(opts.yes) });
    });

  const config = program.command('config').description('read and write stored profiles (for scripts)');

  config
    .command('set <key> <value>')
    .description('set base-url, api-key or timeout in the profile; use "-" as value to read it from stdin')
    .action(async (key: string, value: string, _opts, command) => {
      const { runConfigSet } = await import('./edit.js');
      await invoke(contextFor(command), (ctx, o) => runConfigSet(ctx, o.key, o.value), { key, value });
    });

  config
    .command('get <key>')
    .description('print one setting of the profile (the API key masked)')
    .action(async (key: string, _opts, command) => {
      const { runConfigGet } = await import('./edit.js');
      await invoke(contextFor(command), (ctx, o) => runConfigGet(ctx, o.key), { key });
    });

  config
    .command('unset <key>')
    .description('remove one setting from the profile')
    .action(async (key: string, _opts, command) => {
      const { runConfigUnset } = await import('./edit.js');
      await invoke(contextFor(command), (ctx, o) => runConfigUnset(ctx, o.key), { key });
    });

  config
    .command('list')
    .description('every profile and its settings (API keys masked), and the file they live in')
    .action(async (_opts, command) => {
      const { runConfigList } = await import('./edit.js');
      await invoke(contextFor(command), runConfigList, {});
    });

  config
    .command('use <profile>')
    .description('make a profile the default')
    .action(async (profile: string, _opts, command) => {
      const { runConfigUse } = await import('./edit.js');
      await invoke(contextFor(command), (ctx, o) => runConfigUse(ctx, o.profile), { profile });
    });
};
