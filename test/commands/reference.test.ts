/**
 * docs/commands.md is generated from the commands' declarations (`npm run docs`): it
 * must be what the generator makes now, so the reference never drifts from `--help`.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { commandReference } from '../../src/commands/reference.js';
import { COMMANDS } from '../../src/commands/registry.js';

describe('docs/commands.md', () => {
  it('is what `npm run docs` makes from the declarations (run it after changing a command)', async () => {
    const committed = readFileSync(new URL('../../docs/commands.md', import.meta.url), 'utf8');
    expect(committed, 'docs/commands.md is stale: run `npm run docs`').toBe(await commandReference());
  });

  it('has a section, flags and examples for every command', async () => {
    const text = await commandReference();
    for (const path of COMMANDS) expect(text).toContain(`## giftcodes ${path}\n`);
    expect(text).toContain('| `--out <path>` | where to write the codes');
    expect(text).toContain('## Global flags');
    expect(text).toMatch(/\| 130 \| interrupted/);
  });
});
