/** The refund log beside a codes file is created like every companion file: never through a link. */
import { readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendRefundLog, readRefundLog } from '../../src/batch/refund-log.js';
import { tempDirFor } from '../helpers/temp.js';

const intent = (checkoutId: string) =>
  ({ t: 'intent', batch: 'b1', checkoutId, ref: `gc-b1-${checkoutId}`, at: 1 }) as const;

describe('refund log', () => {
  it('is created 0600 and appended to, record after record', async () => {
    const dir = tempDirFor('giftcodes-refund-log-');
    const path = join(dir, 'codes.csv.refunds');
    await appendRefundLog(path, intent('chk_1'));
    await appendRefundLog(path, intent('chk_2'));
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect((await readRefundLog(path)).map((r) => r.checkoutId)).toEqual(['chk_1', 'chk_2']);
  });

  it('refuses a symbolic link planted at its name and leaves the target untouched', async () => {
    const dir = tempDirFor('giftcodes-refund-log-');
    const target = join(dir, 'precious.txt');
    writeFileSync(target, 'precious');
    const path = join(dir, 'codes.csv.refunds');
    symlinkSync(target, path);
    await expect(appendRefundLog(path, intent('chk_1'))).rejects.toThrow(/symbolic link/);
    expect(readFileSync(target, 'utf8')).toBe('precious');
  });
});
