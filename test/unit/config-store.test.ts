/**
 * Profile names are keys of a JSON object: `__proto__` would be "saved" and then lost
 * on the next read (issue 22), and names of Object.prototype's members must not be
 * mistaken for stored profiles.
 */
import { describe, expect, it } from 'vitest';
import { openConfigStore } from '../../src/config/store.js';
import { UsageError } from '../../src/errors.js';
import { tempDirFor } from '../helpers/temp.js';

describe('config store: profile names', () => {
  it('refuses __proto__ instead of saving and then losing it', () => {
    const store = openConfigStore({ GIFTCODES_CONFIG_DIR: tempDirFor('giftcodes-store-') });
    expect(() => store.setProfile('__proto__', { apiKey: 'gk_test_proto' })).toThrow(UsageError);
    expect(() => store.setProfile('__proto__', { apiKey: 'gk_test_proto' })).toThrow(
      'profile name "__proto__" is reserved: choose another name',
    );
    expect(() => store.setDefaultProfile('__proto__')).toThrow(UsageError);
    expect(store.profileNames()).toEqual([]);
  });

  it("Object.prototype's member names are ordinary names, never inherited values", () => {
    const store = openConfigStore({ GIFTCODES_CONFIG_DIR: tempDirFor('giftcodes-store-') });
    expect(store.getProfile('constructor')).toBeUndefined();
    expect(store.getProfile('toString')).toBeUndefined();
    expect(store.deleteProfile('hasOwnProperty')).toBe(false);
    store.setProfile('constructor', { apiKey: 'gk_test_ctor' });
    expect(
      openConfigStore({ GIFTCODES_CONFIG_DIR: store.path.replace(/\/config\.json$/, '') }).getProfile(
        'constructor',
      ),
    ).toEqual({
      apiKey: 'gk_test_ctor',
    });
    expect(store.profileNames()).toEqual(['constructor']);
    expect(store.deleteProfile('constructor')).toBe(true);
    expect(store.profileNames()).toEqual([]);
  });
});
