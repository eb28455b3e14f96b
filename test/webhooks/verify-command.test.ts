/** `giftcodes webhook verify`: verdicts, exit codes, body from a file or stdin, byte-exact. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { signatureHeader } from '../../src/index.js';
import { runInProcess } from '../helpers/cli.js';
import { tempDirFor } from '../helpers/temp.js';

const NEW = 'whsec_cmd_new_0123456789';
const OLD = 'whsec_cmd_old_0123456789';
const T = 1_767_225_600_000;
const BODY =
  '{"id":"whd_c1","type":"order.completed","createdAt":1767225600000,"data":{"checkoutId":"chk_1"}}\n';

function bodyFile(content: string | Buffer): string {
  const path = join(tempDirFor('giftcodes-verify-'), 'body.json');
  writeFileSync(path, content);
  return path;
}

describe('webhook verify', () => {
  const header = signatureHeader({ secrets: [NEW, OLD], timestamp: T, payload: BODY });

  it('prints valid and exits 0 (body from a file)', async () => {
    const r = await runInProcess([
      'webhook',
      'verify',
      '--secret',
      OLD,
      '--header',
      header,
      '--body-file',
      bodyFile(BODY),
      '--now',
      String(T + 1000),
    ]);
    expect(r).toMatchObject({ code: 0, stdout: 'valid\n' });
  });

  it('reads the body from stdin, bytes unchanged (a trailing newline counts)', async () => {
    const ok = await runInProcess(
      ['webhook', 'verify', '--secret', NEW, '--header', header, '--now', String(T)],
      {
        input: BODY,
      },
    );
    expect(ok).toMatchObject({ code: 0, stdout: 'valid\n' });
    const trimmed = await runInProcess(
      ['webhook', 'verify', '--secret', NEW, '--header', header, '--now', String(T)],
      { input: BODY.trimEnd() },
    );
    expect(trimmed.code).toBe(1);
    expect(trimmed.stdout).toMatch(/^invalid: no matching signature/);
  });

  it('tries every --secret and says which matched', async () => {
    const only = signatureHeader({ secrets: [OLD], timestamp: T, payload: BODY });
    const r = await runInProcess(
      ['webhook', 'verify', '--secret', NEW, '--secret', OLD, '--header', only, '--now', String(T)],
      { input: BODY },
    );
    expect(r).toMatchObject({ code: 0, stdout: 'valid\n' });
    expect(r.stderr).toContain('matched secret 2 of 2');
  });

  it.each([
    ['malformed header', 't=abc', 'malformed header'],
    ['stale', header, 'timestamp outside tolerance'],
  ])('exit 1 with the reason: %s', async (_name, value, reason) => {
    const r = await runInProcess(
      ['webhook', 'verify', '--secret', NEW, '--header', value, '--now', String(T + 301_000)],
      { input: BODY },
    );
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`invalid: ${reason}`);
  });

  it('honours --tolerance in seconds', async () => {
    const r = await runInProcess(
      [
        'webhook',
        'verify',
        '--secret',
        NEW,
        '--header',
        header,
        '--now',
        String(T + 301_000),
        '--tolerance',
        '400',
      ],
      { input: BODY },
    );
    expect(r).toMatchObject({ code: 0, stdout: 'valid\n' });
  });

  it('--json prints the verdict object only', async () => {
    const r = await runInProcess(
      [
        '--json',
        'webhook',
        'verify',
        '--secret',
        'whsec_wrong_secret_x',
        '--header',
        header,
        '--now',
        String(T),
      ],
      { input: BODY },
    );
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ valid: false, reason: 'no_matching_signature' });
  });

  it('takes the secret from GIFTCODES_WEBHOOK_SECRET (new,previous)', async () => {
    const r = await runInProcess(['webhook', 'verify', '--header', header, '--now', String(T)], {
      input: BODY,
      env: { GIFTCODES_WEBHOOK_SECRET: `whsec_other_value_1,${OLD}` },
    });
    expect(r).toMatchObject({ code: 0, stdout: 'valid\n' });
  });

  it('usage errors exit 2: no secret, no header, unreadable file, stdin a terminal', async () => {
    const noSecret = await runInProcess(['webhook', 'verify', '--header', header], { input: BODY });
    expect(noSecret.code).toBe(2);
    expect(noSecret.stderr).toContain('--secret');
    const noHeader = await runInProcess(['webhook', 'verify', '--secret', NEW], { input: BODY });
    expect(noHeader.code).toBe(2);
    const noFile = await runInProcess([
      'webhook',
      'verify',
      '--secret',
      NEW,
      '--header',
      header,
      '--body-file',
      '/nonexistent/x',
    ]);
    expect(noFile.code).toBe(2);
    const tty = await runInProcess(['webhook', 'verify', '--secret', NEW, '--header', header], { tty: true });
    expect(tty.code).toBe(2);
    expect(tty.stderr).toContain('--body-file');
    for (const r of [noSecret, noHeader, noFile, tty]) expect(r.stdout).toBe('');
  });

  describe('--header-file', () => {
    const headersFile = (content: string) => {
      const path = join(tempDirFor('giftcodes-verify-'), 'delivery.headers');
      writeFileSync(path, content);
      return path;
    };
    const verify = (...args: string[]) =>
      runInProcess([
        'webhook',
        'verify',
        '--secret',
        NEW,
        '--now',
        String(T),
        '--body-file',
        bodyFile(BODY),
        ...args,
      ]);

    it('takes the X-Service-Signature line of a headers file', async () => {
      const file = headersFile(`X-Service-Signature: ${header}\nX-Service-Event: order.completed\n`);
      expect(await verify('--header-file', file)).toMatchObject({ code: 0, stdout: 'valid\n' });
    });

    it('a file that is not a headers file, a missing file, or both flags: exit 2 naming the flag', async () => {
      const bare = await verify('--header-file', headersFile(`${header}\n`));
      expect(bare.code).toBe(2);
      expect(bare.stderr).toContain('line 1 is not "Name: value"');
      expect(bare.stderr).toContain("for the header's value alone use --header");
      const missing = await verify('--header-file', '/nonexistent/delivery.headers');
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain(
        '--header-file: cannot read /nonexistent/delivery.headers: no such file or directory',
      );
      const both = await verify(
        '--header',
        header,
        '--header-file',
        headersFile(`X-Service-Signature: ${header}\n`),
      );
      expect(both.code).toBe(2);
      expect(both.stderr).toContain('give --header or --header-file, not both');
      const neither = await verify();
      expect(neither.code).toBe(2);
      expect(neither.stderr).toContain("--header '<X-Service-Signature value>' or --header-file <path>");
    });
  });
});
