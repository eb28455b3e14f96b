/** The output guard (src/io/guard.ts): what it masks, redacts and keeps. */
import { describe, expect, it } from 'vitest';
import { OutputGuard } from '../../src/io/guard.js';

const KEY = 'gk_live_unit_key_abcd';
const order = {
  checkoutId: 'chk_1',
  items: [
    {
      fulfillments: [
        { cardCode: 'AAAA-BBBB-CCCC-1234', cardPin: '4321', cardUrl: 'https://redeem.example/AAAA' },
        { giftCardId: 'gcd_sealed_1', cardUrl: 'https://reveal.example/gcd_sealed_1' },
      ],
    },
  ],
};

describe('OutputGuard', () => {
  it('masks the code fields of any JSON value by key, keeps giftCardId, and shows them with --reveal', () => {
    const guard = new OutputGuard();
    const shown = guard.json({ data: [order] }) as { data: (typeof order)[] };
    const [plain, sealed] = shown.data[0]?.items[0]?.fulfillments ?? [];
    expect(plain).toEqual({ cardCode: '****1234', cardPin: '****', cardUrl: '****AAAA' });
    expect(sealed).toEqual({ giftCardId: 'gcd_sealed_1', cardUrl: '****ed_1' });
    guard.revealCodes();
    expect(guard.json(order)).toEqual(order);
  });

  it('masks code values the service sent wherever text quotes them, but not short PINs', () => {
    const guard = new OutputGuard();
    guard.noteCodes(order);
    expect(guard.text('code AAAA-BBBB-CCCC-1234 already redeemed; pin 4321')).toBe(
      'code ****1234 already redeemed; pin 4321',
    );
    expect(guard.json({ message: 'see https://redeem.example/AAAA' })).toEqual({ message: 'see ****AAAA' });
    guard.revealCodes();
    expect(guard.text('AAAA-BBBB-CCCC-1234')).toBe('AAAA-BBBB-CCCC-1234');
  });

  it('redacts a held secret from text and JSON strings, even with --reveal', () => {
    const guard = new OutputGuard();
    guard.addSecret(KEY);
    guard.revealCodes();
    expect(guard.text(`Invalid API key provided: ${KEY}`)).toBe('Invalid API key provided: ****abcd');
    expect(guard.json({ error: { message: `key=${KEY}` } })).toEqual({ error: { message: 'key=****abcd' } });
  });

  it('redacts user:password@ in any URL it prints', () => {
    const guard = new OutputGuard();
    expect(guard.text('forwarding to https://alice:pw@hooks.example.com/x')).toBe(
      'forwarding to https://***@hooks.example.com/x',
    );
  });

  it('refuses a value nested deeper than 200 levels instead of recursing', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(() => new OutputGuard().json({ x: deep })).toThrow(/nested deeper than 200 levels/);
    // Noting codes in such a body is bounded too.
    expect(() => new OutputGuard().noteCodes({ x: deep })).not.toThrow();
  });

  it('keeps at most 2048 noted codes (memory does not grow per order in a bulk run)', () => {
    const guard = new OutputGuard();
    for (let i = 0; i < 3000; i++) guard.noteCodes({ cardCode: `CODE-${String(i).padStart(6, '0')}` });
    expect(guard.text('CODE-000000 CODE-002047 CODE-002048')).toBe('****0000 ****2047 CODE-002048');
  });
});
