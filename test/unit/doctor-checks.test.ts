import { describe, expect, it } from 'vitest';
import { clockCheck, configFileCheck } from '../../src/commands/doctor/checks.js';

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
