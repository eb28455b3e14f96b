import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { clockCheck, configFileCheck, NODE_LINES, nodeCheck } from '../../src/commands/doctor/checks.js';

const NOW = Date.parse('2025-01-01T12:00:00Z');

describe('doctor: clock difference against the Date header', () => {
  it.each([
    ['Wed, 01 Jan 2025 12:00:00 GMT', 'ok', /less than 1 s/],
    ['Wed, 01 Jan 2025 11:59:57 GMT', 'ok', /3 s ahead of/],
    ['Wed, 01 Jan 2025 12:01:00 GMT', 'warn', /60 s behind/],
    ['Wed, 01 Jan 2025 11:50:00 GMT', 'fail', /600 s ahead of.*refused/],
    [undefined, 'warn', /no usable Date header/],
    ['yesterday', 'warn', /no usable Date header/],
  ])('%s', (date, status, detail) => {
    const check = clockCheck(date, NOW);
    expect(check.status).toBe(status);
    expect(check.detail).toMatch(detail);
  });
});

describe('doctor: config file mode', () => {
  it.each([
    [0o100600, 'ok'],
    [0o100640, 'warn'],
    [0o100644, 'warn'],
  ])('mode %o', (mode, status) => {
    expect(configFileCheck('/x/config.json', mode).status).toBe(status);
  });
  it('no file is fine; an unreadable one fails', () => {
    expect(configFileCheck('/x/config.json', undefined).status).toBe('ok');
    expect(configFileCheck(undefined, undefined, 'not valid JSON').status).toBe('fail');
  });
});

describe('doctor: the Node.js line against its end of life', () => {
  const at = (day: string) => Date.parse(`${day}T12:00:00Z`);
  it.each([
    ['20.20.2', '2026-04-29', 'ok', /^20\.20\.2 \(end of life 2026-04-30\)$/],
    ['20.20.2', '2026-04-30', 'warn', /end of life on 2026-04-30 .*move to Node 22, 24, 26$/],
    [
      '20.20.2',
      '2026-12-01',
      'warn',
      /^20\.20\.2: Node 20 reached its end of life on 2026-04-30 and gets no more/,
    ],
    ['22.23.5', '2026-12-01', 'ok', /end of life 2027-04-30/],
    ['22.23.5', '2027-05-01', 'warn', /end of life on 2027-04-30.*move to Node 24, 26$/],
    ['24.22.3', '2028-04-29', 'ok', /end of life 2028-04-30/],
    ['24.22.3', '2028-05-01', 'warn', /end of life on 2028-04-30.*move to Node 26$/],
    ['26.12.1', '2029-04-29', 'ok', /end of life 2029-04-30/],
    // Past every line's end: the date, and no line to move to.
    [
      '26.12.1',
      '2029-05-01',
      'warn',
      /^26\.12\.1: Node 26 reached its end of life on 2029-04-30 and gets no more security fixes$/,
    ],
    ['25.2.0', '2026-01-01', 'warn', /^25\.2\.0: an odd-numbered line .*supported: Node 20, 22, 24, 26$/],
    ['18.20.4', '2026-01-01', 'warn', /^18\.20\.4: not a line giftcodes is tested on/],
    ['28.0.0', '2026-01-01', 'warn', /not a line giftcodes is tested on/],
  ])('Node %s on %s: %s', (version, day, status, detail) => {
    const check = nodeCheck(version, at(day));
    expect(check).toMatchObject({ name: 'Node.js', status });
    expect(check.detail).toMatch(detail);
  });

  it('are the lines the README and package.json state', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const install = readme.slice(
      readme.indexOf('## Install'),
      readme.indexOf('\n## ', readme.indexOf('## Install') + 1),
    );
    const stated = [...install.matchAll(/^\| (\d+) \| (\d{4}-\d{2}-\d{2})/gm)].map(([, line, day]) => [
      line,
      day,
    ]);
    expect(stated).toEqual(Object.entries(NODE_LINES));
    const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    // The floor is on the oldest line.
    expect(manifest.engines.node).toMatch(new RegExp(`^>=${Object.keys(NODE_LINES)[0]}\\.`));
  });
});
