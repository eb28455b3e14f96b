/**
 * One reader for money and quantities (issue 21, point 13): plain decimals only, so a
 * flag or a cell such as `0x19`, `0b11001`, `1e1` or `1,000` is never a purchase. The
 * same rule for flags (each refusal names the flag), CSV cells (naming the row and
 * column) and checkout item flags; the ledger proves a refused flag spent nothing.
 */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { parseItemFlag } from '../../src/commands/checkout/items.js';
import {
  type DecimalRule,
  decimalText,
  readDecimal,
  readWhole,
  roundText,
  unscaled,
} from '../../src/decimal.js';
import { checkAmount } from '../../src/deposit/guided.js';
import { amount, nonNegativeAmount, positiveInt } from '../../src/flags/parse.js';
import { parseInput } from '../bulk/parse-input.js';
import { runInProcess } from '../helpers/cli.js';
import { withSandbox } from '../helpers/sandbox.js';

const NOT_PLAIN = [
  '0x19',
  '0b11001',
  '0o31',
  '1e1',
  '2.5e1',
  '1E2',
  '1,000',
  '1_000',
  '1 000',
  'Infinity',
  '-Infinity',
  'NaN',
  '',
  ' ',
  '.5',
  '5.',
  '+5',
  '1.2.3',
  '٣',
  '25 USD',
];

describe('readDecimal', () => {
  it.each(NOT_PLAIN)('refuses %j', (text) => {
    expect(readDecimal(text)).toMatchObject({ ok: false });
    expect(readDecimal(text, { sign: 'signed' })).toMatchObject({ ok: false });
  });

  it.each<[string, number]>([
    ['25', 25],
    ['25.00', 25],
    ['0025.5', 25.5],
    ['195.0000001', 195.0000001],
    ['  12.5 ', 12.5],
    ['0.00000001', 1e-8],
  ])('reads %j as %f', (text, value) => {
    expect(readDecimal(text)).toEqual({ ok: true, value });
  });

  it('refuses zero and negatives unless the rule allows them', () => {
    expect(readDecimal('0')).toMatchObject({ ok: false, reason: expect.stringContaining('greater than 0') });
    expect(readDecimal('0', { sign: 'nonNegative' })).toEqual({ ok: true, value: 0 });
    expect(readDecimal('-1', { sign: 'nonNegative' })).toMatchObject({ ok: false });
    expect(readDecimal('-1.5', { sign: 'signed' })).toEqual({ ok: true, value: -1.5 });
  });

  it('refuses more digits than a number sends exactly', () => {
    expect(readDecimal('195.00000000000000001')).toMatchObject({
      ok: false,
      reason: expect.stringContaining('more digits'),
    });
  });
});

describe('readDecimal, every reading and every reason (mutation group accounting)', () => {
  it.each<[string, number]>([
    ['01005', 1005], // a leading zero, inner zeros kept
    ['1.050', 1.05], // a trailing zero, inner zeros kept
    ['000.5', 0.5],
    ['0.000000125', 1.25e-7], // exponent form with several digits when printed
    ['1000000000000000000000', 1e21],
  ])('reads %j as %f', (text, value) => {
    expect(readDecimal(text)).toEqual({ ok: true, value });
  });

  it.each<[string, number]>([
    ['-0', 0],
    ['-0.00', 0],
    ['-01.50', -1.5],
    ['-0.000000125', -1.25e-7],
  ])('signed: reads %j as %f (never -0)', (text, value) => {
    const read = readDecimal(text, { sign: 'signed' });
    expect(read).toEqual({ ok: true, value });
    expect(read.ok && Object.is(read.value, -0)).toBe(false);
  });

  it.each<[string, DecimalRule['sign']]>([
    ['0.30000000000000000001', 'positive'],
    ['-0.30000000000000000001', 'signed'],
    ['10000000000000000001', 'positive'],
    ['-10000000000000000001', 'signed'],
  ])('refuses %j (%s): more digits than a number sends exactly', (text, sign) => {
    expect(readDecimal(text, { sign })).toEqual({
      ok: false,
      reason: `"${text}" has more digits than can be sent exactly`,
    });
  });

  it.each<[string, DecimalRule['sign']]>([
    ['9'.repeat(400), 'positive'],
    [`-${'9'.repeat(400)}`, 'signed'],
  ])('refuses a value beyond any number (%#) as too large, without throwing', (text, sign) => {
    expect(readDecimal(text, { sign })).toEqual({ ok: false, reason: `"${text}" is too large` });
  });

  it.each<[string, DecimalRule, string]>([
    ['0x19', {}, '"0x19" is not a plain decimal number such as 25 or 12.50'],
    ['-1', {}, '"-1" is negative'],
    [' -2 ', { sign: 'nonNegative' }, '" -2 " is negative'],
    ['0', {}, '"0" is not greater than 0'],
    ['0.00', {}, '"0.00" is not greater than 0'],
  ])('refuses %j (%o): %s', (text, rule, reason) => {
    expect(readDecimal(text, rule)).toEqual({ ok: false, reason });
  });
});

describe('readWhole', () => {
  it.each(['1e1', '0x10', '1.0', '1.5', '-1', '1,000', '', 'Infinity', '99999999999999999999'])(
    'refuses %j',
    (text) => expect(readWhole(text)).toMatchObject({ ok: false }),
  );
  it.each<[string, { min?: number }, string]>([
    ['1.5', {}, '"1.5" is not a whole number (digits only)'],
    ['99999999999999999999', {}, '"99999999999999999999" is too large'],
    ['0', {}, '"0" is less than 1'],
    ['4', { min: 5 }, '"4" is less than 5'],
  ])('refuses %j (%o): %s', (text, rule, reason) => {
    expect(readWhole(text, rule)).toEqual({ ok: false, reason });
  });
  it.each<[string, number]>([
    [' 10 ', 10],
    ['\t7\n', 7],
    ['007', 7],
  ])('reads %j as %i, surrounding whitespace ignored', (text, value) => {
    expect(readWhole(text)).toEqual({ ok: true, value });
  });
  it('reads digits, within the minimum', () => {
    expect(readWhole('10')).toEqual({ ok: true, value: 10 });
    expect(readWhole('0')).toMatchObject({ ok: false });
    expect(readWhole('0', { min: 0 })).toEqual({ ok: true, value: 0 });
  });
});

describe('decimal text', () => {
  it.each<[number, string]>([
    [1e-8, '0.00000001'],
    [1.5e-7, '0.00000015'],
    [1e21, '1000000000000000000000'],
    [-2.5e-9, '-0.0000000025'],
    [15893.548, '15893.548'],
    [0.1 + 0.2, '0.30000000000000004'],
  ])('%f -> %s', (value, text) => expect(decimalText(value)).toBe(text));

  it.each<[string, number, string]>([
    ['1.005', 2, '1.01'],
    ['1.004', 2, '1.00'],
    ['-1.005', 2, '-1.01'],
    ['0.30000000000000004', 2, '0.30'],
    ['151.64', 0, '152'],
    ['-0.001', 2, '0.00'],
    ['7', 3, '7.000'],
    ['-0.05', 2, '-0.05'],
    ['-0.005', 2, '-0.01'],
    ['-0.5', 0, '-1'],
    ['0.004', 2, '0.00'],
  ])('roundText(%s, %i) -> %s', (text, digits, rounded) => expect(roundText(text, digits)).toBe(rounded));

  it.each<[number, string]>([
    [1.25e-7, '0.000000125'],
    [-1.25e-7, '-0.000000125'],
    [1.5e21, '1500000000000000000000'],
    [1.2345e22, '12345000000000000000000'],
  ])('%f -> %s (exponent forms with several digits)', (value, text) => expect(decimalText(value)).toBe(text));

  it.each([Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.NaN])(
    'decimalText(%f) throws',
    (value) => {
      expect(() => decimalText(value)).toThrow(new RangeError(`not a finite number: ${value}`));
    },
  );

  it.each<[bigint, number, string]>([
    [-5n, 2, '-0.05'],
    [-105n, 2, '-1.05'],
    [5n, 2, '0.05'],
    [-7n, 0, '-7'],
    [0n, 3, '0.000'],
  ])('unscaled(%s, %i) -> %s', (units, scale, text) => expect(unscaled(units, scale)).toBe(text));
});

describe('flag parsers use the one reader', () => {
  it.each(NOT_PLAIN)('--amount %j is refused', (text) => {
    expect(() => amount(text)).toThrow(/plain decimal|greater than 0|negative/);
  });
  it.each(['1e1', '0x5', '2.0', ' '])('--quantity %j is refused', (text) => {
    expect(() => positiveInt(text)).toThrow();
  });
  it('a percent may be 0 but not hex', () => {
    expect(nonNegativeAmount('0')).toBe(0);
    expect(() => nonNegativeAmount('0x5')).toThrow();
  });
  it('--item amounts and quantities too', () => {
    expect(() => parseItemFlag('p:s:0x19')).toThrow(/--item "p:s:0x19": amount/);
    expect(() => parseItemFlag('p:s:25:1e1')).toThrow(/quantity/);
    expect(parseItemFlag('p:s:25.50:2')).toMatchObject({ amount: 25.5, quantity: 2 });
  });
  it('the guided deposit amount too', () => {
    expect(checkAmount('0x19', undefined)).not.toBe(true);
    expect(checkAmount('1e2', undefined)).not.toBe(true);
    expect(checkAmount('100', undefined)).toBe(true);
  });
  it.each(['0.29', '1.13', '4.35', '4.350', '1000000.07'])(
    'a deposit of %s USD has at most two decimals',
    (text) => {
      expect(checkAmount(text, undefined)).toBe(true);
    },
  );
  it('a deposit of 4.355 USD has three', () => {
    expect(checkAmount('4.355', undefined)).toBe('at most two decimals (cents)');
  });
});

describe('CSV cells use the one reader and name the row and column', () => {
  it.each(['0x19', '0b11001', '1e1', '1,000', 'Infinity'])('amount %j', async (text) => {
    const r = await parseInput(Readable.from([`productId,skuId,amount,quantity\np,s,"${text}",1\n`]));
    expect(r.rows).toEqual([]);
    expect(r.errors).toEqual([{ row: 1, line: 2, message: expect.stringMatching(/^amount "/) }]);
  });
  it('an amount of 400 digits is refused as too large, not thrown', async () => {
    const text = '9'.repeat(400);
    const r = await parseInput(Readable.from([`productId,skuId,amount,quantity\np,s,${text},1\n`]));
    expect(r.rows).toEqual([]);
    expect(r.errors).toEqual([
      { row: 1, line: 2, message: expect.stringMatching(/^amount ".*" is too large/) },
    ]);
  });
  it.each(['1e1', '0x2', '2.0'])('quantity %j', async (text) => {
    const r = await parseInput(Readable.from([`productId,skuId,amount,quantity\np,s,10,${text}\n`]));
    expect(r.errors).toEqual([{ row: 1, line: 2, message: expect.stringMatching(/^quantity "/) }]);
  });
});

const sb = withSandbox({ seed: 131 });

describe('money flags against the sandbox: a refused value spends nothing', () => {
  it.each([
    ['--amount', '0x19'],
    ['--amount', '0b11001'],
    ['--amount', '25e0'],
    ['--quantity', '1e1'],
  ])('order create %s %s exits 2 naming the flag; the ledger has no charge', async (flag, value) => {
    const { env, userId } = sb.account({ balanceUsd: 1_000 });
    const args = ['order', 'create', '--product', 'prd_amazon_us', '--sku', 'sku_amazon_us_range'];
    const values: Record<string, string> = { '--amount': '25', '--quantity': '1', [flag]: value };
    const res = await runInProcess(
      [
        ...args,
        '--amount',
        values['--amount'] as string,
        '--quantity',
        values['--quantity'] as string,
        '--yes',
      ],
      { env },
    );
    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr).toContain(flag);
    expect(res.stderr).toContain(value);
    const charges = await sb.operator.ledgerEntries(userId, 'order_charge');
    expect(charges).toEqual([]);
  });

  it('account set-markup 0x5 exits 2 and leaves the markup alone', async () => {
    const { env } = sb.account({ balanceUsd: 10, capabilities: ['b2b', 'retailer'] });
    const res = await runInProcess(['account', 'set-markup', '0x5', '--field', 'markupPercent', '--yes'], {
      env,
    });
    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr).toContain('0x5');
  });

  it('deposit create --amount 1e2 exits 2 and opens no deposit', async () => {
    const { env, userId } = sb.account({ balanceUsd: 10 });
    const before = (await sb.operator.ledger(userId)).entries.length;
    const res = await runInProcess(['deposit', 'create', '--amount', '1e2', '--method', 'btc'], { env });
    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr).toContain('--amount');
    const list = await runInProcess(['deposit', 'list', '--json'], { env });
    expect(list.stdout).not.toMatch(/"depositId"|"id": "dep/);
    expect((await sb.operator.ledger(userId)).entries).toHaveLength(before);
  });
});
