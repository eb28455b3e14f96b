/**
 * The codes file's write side (formula protection, CSV quoting) and read side
 * (`parseCodesText`, `unprotect`) are inverse for every string (issue 22): reconcile and
 * refund batch compare what they read with what the service says, so a cell read back
 * with a quote too many or too few is a wrong verdict. Property-style: many strings from
 * a seeded generator biased towards what the protection acts on.
 */
import { describe, expect, it } from 'vitest';
import { parseCodesText, unprotect } from '../../src/batch/codes-file.js';
import { csvHeader, csvLine, protectFormula } from '../../src/bulk/store/output.js';
import type { OutputRecord } from '../../src/bulk/types.js';
import { seeded as prng } from '../helpers/random.js';

// What the protection and the CSV quoting act on, and some ordinary text.
const TRICKY = [
  "'",
  "''",
  '=',
  '+',
  '-',
  '@',
  '\t',
  '\r',
  '\n',
  '\r\n',
  '\u0000',
  '\u001b',
  '\u007f',
  '\u0085',
  '\u009f',
  '"',
  ',',
  ' ',
  '\uFEFF',
  '\u202E',
  '\u2028',
  'é',
  '😀',
  'A',
  'z',
  '0',
  '9',
  '=1+1',
  'HYPERLINK("x")',
];

function generate(random: () => number): string {
  const length = Math.floor(random() * 8);
  let text = '';
  for (let i = 0; i < length; i++) {
    if (random() < 0.7) text += TRICKY[Math.floor(random() * TRICKY.length)];
    else text += String.fromCodePoint(Math.floor(random() * 0x2fff));
  }
  return text;
}

const SEEDS = [1, 22, 4242];
const PER_SEED = 3_000;

function record(text: string): OutputRecord {
  return {
    row: 1,
    ref: text,
    externalRef: text,
    checkoutId: text,
    productId: text,
    skuId: text,
    amount: 10,
    index: 1,
    status: text,
    cardCode: text,
    cardPin: text,
    cardUrl: text,
    giftCardId: text,
    expiresAt: null,
    errorMessage: text,
  };
}

const TEXT_COLUMNS = [
  'ref',
  'externalRef',
  'checkoutId',
  'productId',
  'skuId',
  'status',
  'cardCode',
  'cardPin',
  'cardUrl',
  'giftCardId',
  'errorMessage',
] as const;

describe('codes file: protect/unprotect round-trip every string', () => {
  it.each([
    ["'=1+1"],
    ["'"],
    ["''"],
    ["'abc"],
    ['\u001b[31m'],
    ['\nline'],
    ['\u007fdel'],
    ['\u0085c1'],
    ["'\tx"],
    ['=1+1'],
  ])('unprotect(protectFormula(%j)) is the string itself', (text) => {
    expect(unprotect(protectFormula(text))).toBe(text);
  });

  it.each(SEEDS)('seed %i: the cell function pair is inverse', (seed) => {
    const random = prng(seed);
    for (let i = 0; i < PER_SEED; i++) {
      const text = generate(random);
      expect(unprotect(protectFormula(text)), JSON.stringify(text)).toBe(text);
    }
  });

  it.each(SEEDS)('seed %i: a written CSV file reads back as the same values', (seed) => {
    const random = prng(seed);
    const texts = Array.from({ length: PER_SEED / 3 }, () => generate(random));
    const file = csvHeader() + texts.map((t) => csvLine(record(t))).join('');
    const read = parseCodesText(file, 'codes.csv');
    expect(read).toHaveLength(texts.length);
    read.forEach((row, i) => {
      const text = texts[i] as string;
      for (const column of TEXT_COLUMNS) {
        // An empty cell reads as absent, as the service's null does.
        expect(row[column], `${column} of ${JSON.stringify(text)}`).toBe(text === '' ? undefined : text);
      }
    });
  });

  it('still spreadsheet-safe: no protected cell starts with a formula character or a control', () => {
    const random = prng(7);
    for (let i = 0; i < PER_SEED; i++) {
      const cell = protectFormula(generate(random));
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it guards against
      expect(cell, JSON.stringify(cell)).not.toMatch(/^[=+\-@\u0000-\u001f\u007f-\u009f]/);
    }
  });
});
