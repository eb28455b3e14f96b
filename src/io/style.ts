/**
 * ANSI styling that switches itself off when colour is off (no TTY, NO_COLOR). With
 * colour on it writes markers, not ESC: the sinks turn them into SGR after escaping
 * everything else (sanitize.ts), so outside text can neither use nor fake colours.
 */
import { sgrMarker } from './sanitize.js';
import type { IO } from './streams.js';

const CODES = {
  bold: [1, 22],
  dim: [2, 22],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  cyan: [36, 39],
} as const;
export type StyleName = keyof typeof CODES;

export type Styler = Record<StyleName, (text: string) => string>;

export function styler(enabled: boolean): Styler {
  const entries = Object.entries(CODES).map(([name, [open, close]]) => [
    name,
    enabled
      ? (text: string) => `${sgrMarker(String(open))}${text}${sgrMarker(String(close))}`
      : (text: string) => text,
  ]);
  return Object.fromEntries(entries) as Styler;
}

export function style(io: IO): Styler {
  return styler(io.color);
}
