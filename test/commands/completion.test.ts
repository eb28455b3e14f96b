/**
 * `giftcodes completion`: the scripts come from the command tree. The bash one is run in
 * a real bash (`complete -p`, then the completion function with COMP_WORDS as bash sets
 * them); zsh is driven in a pseudo-terminal (Tab typed after the words); fish answers
 * `complete -C`. zsh and fish are run only where installed (`.ci/run` installs them);
 * the test names say when they are skipped and why.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { completionPaths, HTTP_METHODS } from '../../src/api/paths.js';
import { describeTree } from '../../src/commands/completion/tree.js';
import { buildProgram } from '../../src/program.js';
import { DEPOSIT_STATUSES, EVENT_TYPES, ORDER_STATUSES, SORT_BY } from '../../src/schemas/enums.js';
import { BIN, type CliResult, quietIO, runBinary } from '../helpers/cli.js';
import { ownHomeEnv, tempDirFor } from '../helpers/temp.js';
import { startProgram, type Terminal } from '../helpers/terminal.js';

const dir = tempDirFor('giftcodes-completion-');

const terminals: Terminal[] = [];
afterEach(() => {
  for (const t of terminals.splice(0)) t.kill();
});

const has = (shell: string) => spawnSync('sh', ['-c', `command -v ${shell}`]).status === 0;

const scripts: Record<string, string> = {};
beforeAll(async () => {
  const shells = ['bash', 'zsh', 'fish'];
  const results = await Promise.all(shells.map((shell) => runBinary(['completion', shell])));
  shells.forEach((shell, i) => {
    const res = results[i] as CliResult;
    expect(res.code, res.stderr).toBe(0);
    scripts[shell] = join(dir, `giftcodes.${shell}`);
    writeFileSync(scripts[shell] as string, res.stdout);
  });
});

/** What bash offers for the words typed so far (the last one is being completed). */
function bashComplete(words: string[], env?: Record<string, string>): string[] {
  const program = `source "$1"; shift
COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); COMPREPLY=()
_giftcodes giftcodes "\${COMP_WORDS[COMP_CWORD]}" "\${COMP_WORDS[COMP_CWORD-1]}"
printf '%s\\n' "\${COMPREPLY[@]}"`;
  const output = execFileSync('bash', ['-c', program, 'bash', scripts.bash as string, ...words], {
    encoding: 'utf8',
    ...(env ? { env: { ...process.env, ...env } } : {}),
  });
  return output.split('\n').filter((l) => l !== '');
}

describe('completion bash, in a real bash', () => {
  it('registers itself with complete -F', () => {
    const res = execFileSync(
      'bash',
      ['-c', 'source "$1"; complete -p giftcodes', 'bash', scripts.bash as string],
      {
        encoding: 'utf8',
      },
    );
    expect(res.trim()).toBe('complete -o default -F _giftcodes giftcodes');
  });

  it('offers every command of the tree, then their subcommands', async () => {
    const tree = describeTree(await buildProgram(quietIO(), '0.0.0', () => ({}) as never));
    const top = tree.find((n) => n.path === '')?.subcommands.map((s) => s.name) ?? [];
    expect(top).toEqual(expect.arrayContaining(['order', 'refund', 'doctor', 'completion']));
    expect(bashComplete(['giftcodes', ''])).toEqual(top);
    expect(bashComplete(['giftcodes', 'order', ''])).toEqual(
      expect.arrayContaining(['bulk', 'export', 'reconcile', 'create', 'get', 'list']),
    );
    expect(bashComplete(['giftcodes', 'refund', ''])).toEqual(['create', 'batch']);
    expect(bashComplete(['giftcodes', 'order', 'l'])).toEqual(['list']);
  });

  it('completes flags, skipping global flags and their values', () => {
    expect(bashComplete(['giftcodes', 'order', 'bulk', 'in.csv', '--fo'])).toEqual(['--format', '--force']);
    expect(bashComplete(['giftcodes', '--profile', 'order', 'refund', ''])).toEqual(['create', 'batch']);
    expect(bashComplete(['giftcodes', '--json', 'order', 'list', '--st'])).toEqual(['--status']);
    expect(bashComplete(['giftcodes', 'doctor', '--j'])).toEqual(['--json']);
  });

  it('completes fixed values: statuses, sort keys, surfaces, formats, shells', () => {
    expect(bashComplete(['giftcodes', 'order', 'list', '--status', ''])).toEqual([...ORDER_STATUSES]);
    // Every list's --status (the shared list flags), not only order list's.
    expect(bashComplete(['giftcodes', 'deposit', 'list', '--status', ''])).toEqual([...DEPOSIT_STATUSES]);
    expect(bashComplete(['giftcodes', 'checkout', 'list', '--status', ''])).toEqual([...ORDER_STATUSES]);
    expect(bashComplete(['giftcodes', 'order', 'list', '--sort-by', ''])).toEqual([...SORT_BY]);
    expect(bashComplete(['giftcodes', 'order', 'list', '--status', '=', 'p'])).toEqual([
      'pending',
      'processing',
      'partial',
    ]);
    expect(bashComplete(['giftcodes', 'refund', 'create', 'chk_1', '--surface', ''])).toEqual([
      'b2b',
      'retailer',
    ]);
    expect(bashComplete(['giftcodes', 'order', 'export', '--format', 'j'])).toEqual(['json']);
    expect(bashComplete(['giftcodes', 'completion', ''])).toEqual(['bash', 'zsh', 'fish']);
    expect(
      bashComplete([
        'giftcodes',
        'order',
        'bulk',
        'in.csv',
        '--format',
        'csv',
        '--wait-timeout',
        '5m',
        '--y',
      ]),
    ).toEqual(['--yes']);
  });

  it('offers only valid values where the flag takes free text: event types, also after a comma', () => {
    expect(bashComplete(['giftcodes', 'webhook', 'set', '--events', ''])).toEqual([...EVENT_TYPES]);
    expect(bashComplete(['giftcodes', 'webhook', 'set', '--events', 'order.completed,order.f'])).toEqual([
      'order.completed,order.failed',
    ]);
    // No file names for a flag whose values are known, even when none matches.
    expect(bashComplete(['giftcodes', 'webhook', 'set', '--events', 'nothing'])).toEqual([]);
  });

  it("api offers the methods, then the spec's paths (those with an id up to it), by position", () => {
    expect(bashComplete(['giftcodes', 'api', ''])).toEqual([...HTTP_METHODS]);
    expect(bashComplete(['giftcodes', 'api', 'GET', '/b2b/or'])).toEqual(['/b2b/orders', '/b2b/orders/']);
    expect(bashComplete(['giftcodes', '--json', 'api', 'POST', '/retailer/v1/checkouts/'])).toEqual([
      '/retailer/v1/checkouts/',
    ]);
    expect(bashComplete(['giftcodes', 'api', '-f', 'a=1', 'GET', ''])).toEqual(completionPaths());
    // The third word is not a path any more.
    expect(bashComplete(['giftcodes', 'api', 'GET', '/b2b/balance', '/b2b'])).toEqual([]);
  });

  it('help offers the commands and the topics', () => {
    const offered = bashComplete(['giftcodes', 'help', '']);
    expect(offered).toEqual(expect.arrayContaining(['order', 'deposit', 'exit-codes']));
    expect(offered).not.toContain('help');
    expect(bashComplete(['giftcodes', 'help', 'ex'])).toEqual(['exit-codes']);
  });

  it('--profile offers the stored profiles, asked of the CLI when completing', async () => {
    const config = join(dir, 'config');
    const bin = join(dir, 'bin');
    mkdirSync(bin, { recursive: true });
    // `giftcodes` on the PATH, as after an install.
    writeFileSync(join(bin, 'giftcodes'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`, {
      mode: 0o755,
    });
    const env = { GIFTCODES_CONFIG_DIR: config, PATH: `${bin}:${process.env.PATH ?? ''}` };
    for (const name of ['prod', 'staging'])
      expect(
        (
          await runBinary(['config', 'set', 'base-url', 'https://api.example.com', '--profile', name], {
            env,
          })
        ).code,
      ).toBe(0);
    expect(bashComplete(['giftcodes', '--profile', ''], env)).toEqual(['prod', 'staging']);
    expect(bashComplete(['giftcodes', 'order', 'list', '--profile', 'st'], env)).toEqual(['staging']);
  });

  it('rejects a shell it does not know (exit 2)', async () => {
    const res = await runBinary(['completion', 'powershell']);
    expect(res.code).toBe(2);
  });
});

describe.skipIf(!has('zsh'))(
  `completion zsh${has('zsh') ? '' : ' (skipped: zsh is not installed on this machine)'}`,
  () => {
    it('loads in zsh and defines the completion', () => {
      const res = spawnSync(
        'zsh',
        [
          '-f',
          '-c',
          'source "$1" && (( $+functions[_giftcodes] )) && echo loaded',
          'zsh',
          scripts.zsh as string,
        ],
        // compinit (which the script runs when the shell has not) writes ~/.zcompdump.
        { encoding: 'utf8', env: ownHomeEnv() },
      );
      expect(res.stdout.trim(), res.stderr).toBe('loaded');
    });

    it('completes subcommands and fixed values in an interactive zsh (Tab typed in a terminal)', async () => {
      // The binary as a person has it: `giftcodes` on PATH.
      const bin = join(dir, 'zsh-bin');
      mkdirSync(bin, { recursive: true });
      writeFileSync(join(bin, 'giftcodes'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`, {
        mode: 0o755,
      });
      const zsh = startProgram('zsh', ['-f'], {
        HOME: dir,
        TERM: 'xterm-256color',
        PATH: `${bin}:/usr/bin:/bin`,
      });
      terminals.push(zsh);
      zsh.type(`autoload -U compinit && compinit -u && source ${scripts.zsh}; echo READY\r`);
      await zsh.waitFor(/^READY/m);
      let from = zsh.screen().length;
      zsh.type('giftcodes order list --status pa\t');
      await zsh.waitFor('--status partial', { from });
      from = zsh.screen().length;
      zsh.type('\u0015giftcodes order ex\t');
      await zsh.waitFor('order export', { from });
      from = zsh.screen().length;
      zsh.type('\u0015giftcodes order list --status \t');
      const shown = await zsh.waitFor(/processing/, { from });
      expect(shown.slice(from)).toMatch(/completed\s+expired\s+failed\s+partial\s+pending\s+processing/);
    });
  },
);

describe.skipIf(!has('fish'))(
  `completion fish${has('fish') ? '' : ' (skipped: fish is not installed on this machine)'}`,
  () => {
    it('completes subcommands and fixed values in fish', () => {
      // fish makes its config and data folders (~/.config/fish, ~/.local/share/fish) on start.
      const env = ownHomeEnv();
      const run = (line: string) =>
        spawnSync('fish', ['-c', `source ${scripts.fish}; complete -C '${line}'`], { encoding: 'utf8', env })
          .stdout;
      expect(run('giftcodes order ')).toContain('export');
      expect(run('giftcodes order list --status ')).toContain('partial');
      expect(run('giftcodes api ')).toContain('PATCH');
      const paths = run('giftcodes api GET /b2b/o').split('\n');
      expect(paths).toEqual(expect.arrayContaining(['/b2b/orders', '/b2b/orders/']));
      expect(run('giftcodes api GET /b2b/orders ')).not.toContain('/b2b/');
    });
  },
);
