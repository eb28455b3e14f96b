/**
 * What `npm pack` ships: the license the manifest names, where to report bugs, the
 * runtime's data files and nothing the runtime cannot use (source maps pointing to
 * unshipped sources, test-only fixtures).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ownHomeEnv } from '../helpers/temp.js';

const ROOT = resolve(import.meta.dirname, '../..');
const manifest = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8'));

/**
 * npm with a HOME and a temp folder of its own: it writes a log under ~/.npm/_logs on
 * every run (and prunes older ones), and npm 11 on Node 22.1 and later keeps a compile
 * cache in the temp folder. Without the npm_config_* settings an outer `npm test` hands
 * down (npm_config_cache=~/.npm and the like), so it goes by that HOME alone.
 */
function npmEnv(): Record<string, string> {
  const env = ownHomeEnv();
  for (const key of Object.keys(env)) if (key.toLowerCase().startsWith('npm_config_')) delete env[key];
  return env;
}

function packedFiles(): string[] {
  // --ignore-scripts: `prepare` would rebuild; the global setup already did.
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: npmEnv(),
  });
  const [result] = JSON.parse(out) as { files: { path: string }[] }[];
  return (result?.files ?? []).map((file) => file.path);
}

describe('the package', () => {
  const files = packedFiles();

  it('ships an MIT LICENSE matching package.json', () => {
    expect(manifest.license).toBe('MIT');
    expect(files).toContain('LICENSE');
    expect(readFileSync(resolve(ROOT, 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
  });

  it('says where the code lives and where to report bugs', () => {
    expect(manifest.repository).toMatchObject({ type: 'git', url: expect.stringContaining('github.com') });
    expect(manifest.homepage).toMatch(/^https:\/\//);
    expect(manifest.bugs).toMatchObject({ url: expect.stringMatching(/^https:\/\/.*\/issues$/) });
  });

  it('ships no source maps (the sources are not shipped)', () => {
    expect(files.filter((file) => file.endsWith('.map'))).toEqual([]);
    expect(files).toContain('dist/main.js');
    expect(files).toContain('bin/giftcodes.js');
  });

  it('ships the fixtures the runtime reads and no test-only ones', () => {
    expect(files.filter((file) => file.startsWith('fixtures/')).sort()).toEqual([
      'fixtures/catalog.json',
      'fixtures/demo-orders.csv',
      'fixtures/payment-methods.json',
      'fixtures/rates.json',
    ]);
  });
});
