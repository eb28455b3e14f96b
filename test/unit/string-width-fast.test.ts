/**
 * The string-width the bundle gives cli-table3 (scripts/string-width-fast.cjs, issue 25):
 * for the text it answers itself (printable ASCII, box drawing, the ellipsis) it must say
 * what string-width says, and it must hand everything else to string-width.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { seeded } from '../helpers/random.js';

const require = createRequire(import.meta.url);
const stringWidth = require('string-width') as (text: string) => number;
const fastStringWidth = require('../../scripts/string-width-fast.cjs') as (
  real: (text: string) => number,
) => (text: string) => number;

const calls: string[] = [];
const fast = fastStringWidth((text) => {
  calls.push(text);
  return stringWidth(text);
});

const PLAIN = [
  ...Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i)),
  ...Array.from({ length: 0x80 }, (_, i) => String.fromCharCode(0x2500 + i)),
  '\u2026',
];

describe('the bundle’s string-width for cli-table3', () => {
  it('measures every plain character as string-width does, without calling it', () => {
    calls.length = 0;
    for (const char of PLAIN) expect([char, fast(char)]).toEqual([char, stringWidth(char)]);
    expect(calls).toEqual([]);
  });

  it('measures plain strings (cells, borders, padding) as string-width does', () => {
    const random = seeded(25);
    const samples = ['', '┌──────┬───┐', '│ prd_amazon_us │', 'Amazon.com Gift…', '#*0123456789'];
    for (let i = 0; i < 2000; i++) {
      const length = Math.floor(random() * 40);
      samples.push(Array.from({ length }, () => PLAIN[Math.floor(random() * PLAIN.length)]).join(''));
    }
    calls.length = 0;
    for (const text of samples) expect([text, fast(text)]).toEqual([text, stringWidth(text)]);
    expect(calls).toEqual([]);
  });

  it('hands anything else to string-width: escapes, emoji, wide and combining characters, controls', () => {
    const others = [
      '\u001b[36mname\u001b[39m',
      'gift 🎁',
      '🇺🇸',
      '#\ufe0f\u20e3',
      'ギフト',
      'e\u0301',
      'a\nb',
      '\t',
      '€5',
    ];
    calls.length = 0;
    for (const text of others) expect([text, fast(text)]).toEqual([text, stringWidth(text)]);
    expect(calls).toEqual(others);
  });
});
