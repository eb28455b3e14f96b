/**
 * The library entry: `import { verifyWebhook } from 'giftcodes'` resolves through
 * package.json `exports` to the build, and stays free of CLI modules.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const exec = promisify(execFile);

/** Every module src/index.ts reaches through static imports (type-only imports excluded). */
function importGraph(entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/^(?:import|export)\s+(?!type\s)[^;]*?from\s+'([^']+)'/gms)) {
      const spec = match[1] as string;
      if (spec.startsWith('.')) visit(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
      else seen.add(spec);
    }
  };
  visit(entry);
  return seen;
}

describe('library entry', () => {
  it('loads only src/webhooks and node: builtins', () => {
    const graph = [...importGraph(resolve(ROOT, 'src/index.ts'))];
    const outside = graph.filter(
      (m) =>
        !m.startsWith('node:') &&
        !m.startsWith(resolve(ROOT, 'src/webhooks')) &&
        m !== resolve(ROOT, 'src/index.ts'),
    );
    expect(outside).toEqual([]);
    expect(graph).toContain('node:crypto');
  });

  it("works as `import { verifyWebhook } from 'giftcodes'` (built package)", async () => {
    const script = `
      import { verifyWebhook, signatureHeader } from 'giftcodes';
      const body = Buffer.from('{"id":"whd_1","type":"ping","createdAt":1,"data":{}}');
      const header = signatureHeader({ secrets: ['whsec_lib_test_1'], timestamp: 1000, payload: body });
      const ok = verifyWebhook({ payload: body, header, secret: 'whsec_lib_test_1', now: 2000 });
      const bad = verifyWebhook({ payload: body, header, secret: 'whsec_lib_test_2', now: 2000 });
      console.log(JSON.stringify([ok.valid, bad.valid && 'x' || bad.reason]));`;
    const { stdout } = await exec(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT });
    expect(JSON.parse(stdout)).toEqual([true, 'no_matching_signature']);
  });

  it('throws on a non-finite now, tolerance or timestamp instead of skipping the age check', async () => {
    // Before issue 12, now: NaN made a signature a million seconds old valid.
    const script = `
      import { verifyWebhook, signatureHeader } from 'giftcodes';
      const body = '{"id":"whd_1","type":"ping","createdAt":1,"data":{}}';
      const secret = 'whsec_lib_test_1';
      const header = signatureHeader({ secrets: [secret], timestamp: 1000, payload: body });
      const outcome = (opts) => {
        try { const r = verifyWebhook({ payload: body, header, secret, ...opts }); return r.valid || r.reason; }
        catch (e) { return e.constructor.name + ': ' + e.message; }
      };
      console.log(JSON.stringify([
        outcome({ now: 1_000_000_000 }),
        outcome({ now: NaN }),
        outcome({ now: Infinity }),
        outcome({ now: 2000, toleranceSeconds: NaN }),
        outcome({ now: 1_000_000_000, toleranceSeconds: Infinity }),
      ]));`;
    const { stdout } = await exec(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT });
    const [old, ...rest] = JSON.parse(stdout) as string[];
    expect(old).toBe('timestamp_outside_tolerance');
    expect(rest[0]).toMatch(/^TypeError: now must be a finite/);
    expect(rest[1]).toMatch(/^TypeError: now must be a finite/);
    expect(rest[2]).toMatch(/^TypeError: toleranceSeconds must be a finite/);
    expect(rest[3]).toMatch(/^TypeError: toleranceSeconds must be a finite/);
  });
});
