/**
 * The sanitizing step (src/io/sanitize.ts) and the sinks built on it: what is escaped
 * and how, that the CLI's colour markers cannot be forged, that JSON round-trips, that
 * masks and the codes file guard against control characters, and that nothing in src/
 * writes to a stream around the sinks.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { protectFormula } from '../../src/bulk/store/output.js';
import { maskSecret } from '../../src/io/format.js';
import { maskCodeFields } from '../../src/io/guard.js';
import { printFields, printJson, printTable } from '../../src/io/output.js';
import { startProgress } from '../../src/io/progress.js';
import { markOwnAnsi, renderForTerminal, safeJson, sanitize } from '../../src/io/sanitize.js';
import { err, type IO, out } from '../../src/io/streams.js';
import { styler } from '../../src/io/style.js';
import { HOSTILE, RAW_CONTROL } from '../helpers/hostile-proxy.js';

const ESC = '\u001b';

describe('sanitize', () => {
  it.each([
    ['ESC', `a${ESC}[2Jb`, 'a^[[2Jb'],
    ['OSC title ended by BEL', `${ESC}]0;t\u0007`, '^[]0;t^G'],
    ['carriage return', 'total 10\rtotal 99', 'total 10^Mtotal 99'],
    ['backspace, NUL, DEL', '\u0008\u0000\u007f', '^H^@^?'],
    ['C1 CSI and OSC', '\u009b31m\u009d', '\\u009b31m\\u009d'],
    ['tab and newline kept', 'a\tb\nc', 'a\tb\nc'],
    ['printable unicode kept', 'café ✓ 日本', 'café ✓ 日本'],
  ])('%s', (_name, input, expected) => {
    expect(sanitize(input)).toBe(expected);
  });

  it('shows a newline in single-line text, and is idempotent', () => {
    expect(sanitize('a\nb', { newlines: false })).toBe('a^Jb');
    expect(sanitize(sanitize(HOSTILE))).toBe(sanitize(HOSTILE));
    expect(RAW_CONTROL.test(sanitize(HOSTILE))).toBe(false);
  });
});

describe('colour markers', () => {
  it('become SGR only at a sink, and only with colour on', () => {
    const red = styler(true).red('x');
    expect(red).not.toContain(ESC);
    expect(renderForTerminal(red, true)).toBe(`${ESC}[31mx${ESC}[39m`);
    expect(renderForTerminal(red, false)).toBe('x');
  });

  it('an outside string cannot forge them: raw SGR and look-alike markers stay text', () => {
    const forged = `${ESC}[31mred\ue000abc31m`;
    const shown = renderForTerminal(forged, true);
    expect(shown).not.toContain(ESC);
    expect(shown).toContain('^[[31mred');
  });

  it("mark the CLI's own drawn SGR (a QR code) so it survives a sink", () => {
    expect(renderForTerminal(markOwnAnsi(`${ESC}[47m  ${ESC}[0m`), true)).toBe(`${ESC}[47m  ${ESC}[0m`);
    expect(renderForTerminal(markOwnAnsi(`${ESC}[47m  ${ESC}[0m`), false)).toBe('  ');
  });
});

describe('safeJson', () => {
  it('escapes DEL and C1 (JSON.stringify leaves them raw) and round-trips exactly', () => {
    const value = { name: HOSTILE, nested: ['\u007f\u0085'] };
    const text = safeJson(value, 2);
    expect(RAW_CONTROL.test(text)).toBe(false);
    expect(JSON.parse(text)).toEqual(value);
  });
});

describe('masks and the codes file', () => {
  it.each([
    ['trailing C1 CSI', 'ABCD1234\u009b', '****1234'],
    ['trailing ESC sequence bytes', `ABCD1234${ESC}`, '****1234'],
    ['controls only', '\u009b\u009b\u009b\u009b\u009b', '****'],
    ['plain', 'ABCD1234', '****1234'],
  ])('maskSecret: %s', (_name, code, expected) => {
    expect(maskSecret(code)).toBe(expected);
  });

  it('maskCodeFields masks to printable characters only', () => {
    const masked = maskCodeFields({ cardCode: `XYZ9876${HOSTILE}` }, false) as { cardCode: string };
    expect(RAW_CONTROL.test(masked.cardCode)).toBe(false);
  });

  it.each(['=1+1', '+1', '-1', '@x', '\tx', '\rx', '\nx', `${ESC}x`, '\u0000x', '\u007fx', '\u009bx'])(
    'protectFormula guards a cell starting %j',
    (cell) => {
      expect(protectFormula(cell)).toBe(`'${cell}`);
    },
  );

  it('leaves other cells, codes included, byte for byte', () => {
    expect(protectFormula(`ABC${HOSTILE}`)).toBe(`ABC${HOSTILE}`);
  });
});

function bufferIO(color: boolean, tty = false): IO & { text(): { stdout: string; stderr: string } } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let o = '';
  let e = '';
  stdout.on('data', (c) => {
    o += c;
  });
  stderr.on('data', (c) => {
    e += c;
  });
  return {
    stdin: Readable.from(['']),
    stdout,
    stderr,
    stdinIsTTY: tty,
    stdoutIsTTY: tty,
    stderrIsTTY: tty,
    color,
    columns: 100,
    text: () => ({ stdout: o, stderr: e }),
  };
}

describe('the sinks', () => {
  it('out, err, tables and fields escape outside text and keep the styled header', async () => {
    const io = bufferIO(true);
    out(io, `name: ${HOSTILE}`);
    err(io, `note: ${HOSTILE}`);
    printTable(io, ['name'], [[HOSTILE]]);
    printFields(io, [['note', HOSTILE]]);
    await new Promise((r) => setImmediate(r));
    const { stdout, stderr } = io.text();
    const withoutOwn = (stdout + stderr).replace(new RegExp(`${ESC}\\[(36|39)m`, 'g'), '');
    expect(RAW_CONTROL.test(withoutOwn)).toBe(false);
    expect(stdout).toContain(`${ESC}[36mname${ESC}[39m`);
  });

  it('printJson keeps the data exact', async () => {
    const io = bufferIO(false);
    printJson(io, { name: HOSTILE });
    await new Promise((r) => setImmediate(r));
    expect(JSON.parse(io.text().stdout).name).toBe(HOSTILE);
  });

  it('the spinner on a terminal shows outside text escaped (its own cursor codes aside)', async () => {
    const io = bufferIO(false, true);
    const progress = await startProgress(io, `checking ${HOSTILE}`);
    progress.update(`still ${HOSTILE}`);
    progress.succeed(`done ${HOSTILE}`);
    await new Promise((r) => setImmediate(r));
    const { stderr } = io.text();
    expect(stderr).toContain('^[]0;pwned^G');
    // ora's own sequences are CSI (cursor, erase) only: no OSC, no C1, no CR from outside.
    expect(stderr).not.toContain(`${ESC}]`);
    expect(stderr).not.toMatch(/[\u0080-\u009f]/);
    expect(stderr).not.toContain('\rOVERWRITTEN');
  });
});

describe('no stream writes around the sinks', () => {
  it('only src/io/, main.ts, context.ts and program.ts write to a stream directly', () => {
    const root = join(import.meta.dirname, '../../src');
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) {
          if (entry.name !== 'sandbox') walk(path);
        } else if (entry.name.endsWith('.ts')) {
          const rel = path.slice(root.length + 1);
          if (rel.startsWith('io/') || ['main.ts', 'context.ts', 'program.ts'].includes(rel)) continue;
          if (/\b(stdout|stderr)\.write\(|console\.(log|error|warn)\(/.test(readFileSync(path, 'utf8')))
            offenders.push(rel);
        }
      }
    };
    walk(root);
    expect(offenders).toEqual([]);
  });
});
