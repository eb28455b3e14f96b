/** Where the journal copies live: GIFTCODES_STATE_DIR, then the config folder, then the platform's place. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stateDir } from '../../src/config/state-dir.js';

describe('stateDir', () => {
  it('takes GIFTCODES_STATE_DIR first, whatever else is set', () => {
    expect(
      stateDir({ GIFTCODES_STATE_DIR: '/s', GIFTCODES_CONFIG_DIR: '/c', XDG_STATE_HOME: '/x' }, 'linux'),
    ).toBe('/s');
  });

  it('moves with GIFTCODES_CONFIG_DIR (tests, CI, containers)', () => {
    expect(stateDir({ GIFTCODES_CONFIG_DIR: '/c', XDG_STATE_HOME: '/x' }, 'linux')).toBe(join('/c', 'state'));
  });

  it('follows the XDG base directory spec on Linux', () => {
    expect(stateDir({ XDG_STATE_HOME: '/x', HOME: '/home/u' }, 'linux')).toBe(join('/x', 'giftcodes'));
    expect(stateDir({ HOME: '/home/u' }, 'linux')).toBe(join('/home/u', '.local', 'state', 'giftcodes'));
  });

  it("uses the platform's application-data folder on macOS and Windows", () => {
    expect(stateDir({}, 'darwin')).toMatch(/giftcodes$/);
    expect(stateDir({}, 'darwin')).not.toContain(join('.local', 'state'));
    expect(stateDir({}, 'win32')).toMatch(/giftcodes/);
  });
});
