/**
 * The README is what a user reads first: short, its links lead somewhere, and every
 * command it shows for the four jobs works as printed. Its shell blocks, from "Start a
 * sandbox" to the exit codes, run here in one bash session against the real binary (a
 * `giftcodes` on PATH), with only the temporary paths and the webhook port swapped; a
 * command may fail only where its line says `# exit N`, and then with exactly N.
 */
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { tempDirFor } from '../helpers/temp.js';

const ROOT = resolve(import.meta.dirname, '../..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The shell blocks between two headings. */
function shellBlocks(from: string, to: string): string[] {
  const part = README.slice(README.indexOf(from), README.indexOf(to));
  return [...part.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] as string);
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

describe('README', () => {
  it('reads in ten minutes: at most 400 lines', () => {
    expect(README.split('\n').length).toBeLessThanOrEqual(400);
  });

  it('links only to files that exist', () => {
    for (const [, target] of README.matchAll(/\]\(([^)#]+)(#[^)]*)?\)/g)) {
      if (/^https?:/.test(target as string)) continue;
      expect(existsSync(join(ROOT, target as string)), `README links to ${target}`).toBe(true);
    }
  });

  it('the docs it links to link only to files that exist', () => {
    for (const doc of [
      'docs/guide.md',
      'docs/retries.md',
      'docs/sandbox.md',
      'docs/security.md',
      'docs/spec-gaps.md',
      'docs/service.md',
      'docs/webhooks.md',
      'bench/README.md',
    ]) {
      const text = readFileSync(join(ROOT, doc), 'utf8');
      for (const [, target] of text.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)) {
        if (/^(https?|mailto):/.test(target as string)) continue;
        expect(existsSync(join(ROOT, dirname(doc), target as string)), `${doc} links to ${target}`).toBe(
          true,
        );
      }
    }
  });

  it('names the four jobs, the two commands, exit codes and configuration', () => {
    for (const heading of [
      '## Install',
      '## The two commands',
      '## Job 1: buy codes in bulk from a CSV',
      '## Job 2: top up the balance',
      '## Job 3: tier limits and usage',
      '## Job 4: rotate and verify webhook secrets from scripts',
      '## Exit codes',
      '## Configuration',
    ])
      expect(README).toContain(`${heading}\n`);
  });

  it('runs every command of the four jobs as printed, against a sandbox', { timeout: 120_000 }, async () => {
    const dir = tempDirFor('giftcodes-readme-');
    const bin = join(dir, 'bin');
    execFileSync('mkdir', ['-p', bin]);
    writeFileSync(join(bin, 'giftcodes'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
    chmodSync(join(bin, 'giftcodes'), 0o755);
    const port = await freePort();
    const lines = shellBlocks('## Start a sandbox', '## Exit codes')
      .join('\n')
      .replaceAll('/tmp/sb.env', join(dir, 'sb.env'))
      .replaceAll('8787', String(port))
      .split('\n');
    // Every failing command is reported with its line; the script goes on.
    const script = [
      'set -o errtrace',
      `trap 'echo "::failed $? at $LINENO" >&2' ERR`,
      ...lines,
      'kill $(jobs -p) 2>/dev/null; wait 2>/dev/null; true',
    ].join('\n');
    writeFileSync(join(dir, 'readme.sh'), script);
    const env = {
      PATH: `${bin}:${dirname(process.execPath)}:/usr/bin:/bin`,
      HOME: dir,
      GIFTCODES_CONFIG_DIR: join(dir, 'config'),
      GIFTCODES_STATE_DIR: join(dir, 'state'),
      NO_COLOR: '1',
    };
    const child = spawn('bash', [join(dir, 'readme.sh')], { cwd: dir, env, detached: true });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (c) => {
      stderr += c;
    });
    child.stdout.on('data', (c) => {
      stdout += c;
    });
    const code = await new Promise<number | null>((r) => child.on('close', r));
    try {
      process.kill(-(child.pid as number));
    } catch {
      // Already gone: the script killed its background jobs.
    }
    const failures = [...stderr.matchAll(/::failed (\d+) at (\d+)/g)].map(([, rc, at]) => ({
      rc: Number(rc),
      line: lines[Number(at) - 3] ?? '',
    }));
    for (const f of failures) {
      const expected = /# exit (\d+)/.exec(f.line)?.[1];
      expect(expected, `README line failed with exit ${f.rc}: ${f.line}\n${stderr}`).toBeDefined();
      expect(f.rc, f.line).toBe(Number(expected));
    }
    // Each annotated failure happened (the annotation is not stale).
    const annotated = lines.filter((l) => /# exit \d+/.test(l));
    expect(failures.map((f) => f.line)).toEqual(annotated);
    expect(code, stderr).toBe(0);
    expect(stdout).toContain('10,000.00 USD');
    // The EUR card's USD price follows the sandbox's drifting rates: the cents move with the clock.
    expect(stdout).toMatch(/; charged 22\d\.\d\d USD\n/);
    // order rebuy: the one failed GameStop unit bought again, once (the second run finds
    // nothing to buy), its code added to the codes file beside the failed record.
    expect(stdout).toContain('charged 49.00 USD by this run');
    expect(stderr).toContain('nothing to rebuy');
    const codes = readFileSync(join(dir, 'codes.csv'), 'utf8');
    const rowFourUnitThree = /^4,PO-1004,[^,]*,chk_\w+,prd_gamestop_us,sku_gamestop_range,50,3,(\w+),/gm;
    expect([...codes.matchAll(rowFourUnitThree)].map((m) => m[1])).toEqual(['failed', 'completed']);
    // api --paginate: every page as one JSON array (the batch's partial order), codes masked.
    const partial = JSON.parse(readFileSync(join(dir, 'partial.json'), 'utf8'));
    expect(partial).toEqual([expect.objectContaining({ status: 'partial' })]);
    expect(JSON.stringify(partial)).toMatch(/"cardCode":"\*{4}\w{4}"/);
    expect(stdout + stderr).toContain('Deposit confirmed: +250.00 USD');
    expect(stdout + stderr).toContain('ok 200');
    // The listener's lines: the ping, verified; the triggered event, saved where verify found it.
    const deliveries = readFileSync(join(dir, 'deliveries.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(deliveries.find((d) => d.type === 'ping')).toMatchObject({ verified: true });
    const triggered = deliveries.find((d) => d.type === 'order.completed');
    expect(triggered).toMatchObject({
      verified: true,
      saved: { body: `hooks/${triggered.deliveryId}.body` },
    });
    expect(stdout).toContain('valid\ninvalid: no matching signature');
  });
});
