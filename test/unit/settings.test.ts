/** Where settings come from (flag > env > profile), base URL checks, and the http:// guard. */
import { describe, expect, it } from 'vitest';
import {
  assertSafeTransport,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_TIMEOUT_MS,
  type GlobalFlags,
  isLoopbackHost,
  normalizeBaseUrl,
  profileName,
  resolveSettings,
  type Settings,
} from '../../src/config/resolve.js';
import type { Profile } from '../../src/config/store.js';
import { UsageError } from '../../src/errors.js';

describe('profileName', () => {
  it.each<[string, GlobalFlags, Record<string, string>, string | undefined, string]>([
    ['flag wins', { profile: 'prod' }, { GIFTCODES_PROFILE: 'sandbox' }, 'stored', 'prod'],
    ['env next', {}, { GIFTCODES_PROFILE: 'sandbox' }, 'stored', 'sandbox'],
    ['stored default next', {}, {}, 'stored', 'stored'],
    ['"default" last', {}, {}, undefined, 'default'],
    ['empty env ignored', {}, { GIFTCODES_PROFILE: '' }, 'stored', 'stored'],
  ])('%s', (_name, flags, env, stored, expected) => {
    expect(profileName(flags, env, stored)).toBe(expected);
  });
});

describe('resolveSettings precedence', () => {
  const profile: Profile = { baseUrl: 'https://profile.example', apiKey: 'key_profile', timeoutMs: 5_000 };
  const env = {
    GIFTCODES_BASE_URL: 'https://env.example',
    GIFTCODES_API_KEY: 'key_env',
    GIFTCODES_TIMEOUT: '7000',
  };
  const flags: GlobalFlags = { baseUrl: 'https://flag.example/', apiKey: 'key_flag', timeout: 9_000 };

  it.each<[string, GlobalFlags, Record<string, string>, Profile | undefined, Partial<Settings>]>([
    [
      'flags beat env and profile',
      flags,
      env,
      profile,
      {
        baseUrl: 'https://flag.example',
        baseUrlSource: 'flag',
        apiKey: 'key_flag',
        apiKeySource: 'flag',
        timeoutMs: 9_000,
      },
    ],
    [
      'env beats profile',
      {},
      env,
      profile,
      {
        baseUrl: 'https://env.example',
        baseUrlSource: 'env',
        apiKey: 'key_env',
        apiKeySource: 'env',
        timeoutMs: 7_000,
      },
    ],
    [
      'profile when nothing else',
      {},
      {},
      profile,
      {
        baseUrl: 'https://profile.example',
        baseUrlSource: 'profile',
        apiKey: 'key_profile',
        apiKeySource: 'profile',
        timeoutMs: 5_000,
      },
    ],
    [
      'mixed: key from env, URL from flag, timeout from profile',
      { baseUrl: 'https://flag.example' },
      { GIFTCODES_API_KEY: 'key_env' },
      profile,
      { baseUrl: 'https://flag.example', apiKey: 'key_env', apiKeySource: 'env', timeoutMs: 5_000 },
    ],
    [
      'empty env values fall through',
      {},
      { GIFTCODES_API_KEY: '', GIFTCODES_BASE_URL: '' },
      profile,
      { apiKeySource: 'profile', baseUrlSource: 'profile' },
    ],
    [
      'nothing configured: no URL, no key, default timeout',
      {},
      {},
      undefined,
      { baseUrl: undefined, apiKey: undefined, timeoutMs: DEFAULT_TIMEOUT_MS, insecureHttp: false },
    ],
  ])('%s', (_name, f, e, p, expected) => {
    expect(resolveSettings(f, e, p, 'default')).toMatchObject(expected);
  });

  it('carries the profile name and --insecure-http', () => {
    expect(resolveSettings({ insecureHttp: true }, {}, undefined, 'prod')).toMatchObject({
      profile: 'prod',
      insecureHttp: true,
    });
  });

  it.each([
    ['default', {}, {}, DEFAULT_MAX_RESPONSE_BYTES],
    ['environment', {}, { GIFTCODES_MAX_RESPONSE_BYTES: '1024' }, 1024],
    ['flag over environment', { maxResponseBytes: 2048 }, { GIFTCODES_MAX_RESPONSE_BYTES: '1024' }, 2048],
  ] as const)('the response cap: %s', (_name, f, e, expected) => {
    expect(resolveSettings(f, e, profile, 'default').maxResponseBytes).toBe(expected);
  });

  it('rejects a GIFTCODES_MAX_RESPONSE_BYTES that is not a positive whole number', () => {
    expect(() => resolveSettings({}, { GIFTCODES_MAX_RESPONSE_BYTES: '64MB' }, undefined, 'default')).toThrow(
      /GIFTCODES_MAX_RESPONSE_BYTES must be a positive whole number of bytes/,
    );
  });

  it('rejects a GIFTCODES_TIMEOUT that is not a positive whole number', () => {
    expect(() => resolveSettings({}, { GIFTCODES_TIMEOUT: 'soon' }, undefined, 'default')).toThrow(
      /GIFTCODES_TIMEOUT must be a positive whole number/,
    );
  });
});

describe('normalizeBaseUrl', () => {
  it.each([
    ['https://api.example.com', 'https://api.example.com'],
    ['https://api.example.com/', 'https://api.example.com'],
    ['https://api.example.com/prefix//', 'https://api.example.com/prefix'],
    ['HTTPS://API.Example.com:8443/', 'https://api.example.com:8443'],
    ['http://127.0.0.1:4010', 'http://127.0.0.1:4010'],
    ['  https://api.example.com  ', 'https://api.example.com'],
  ])('%s -> %s', (input, expected) => {
    expect(normalizeBaseUrl(input)).toBe(expected);
  });

  it.each([
    ['api.example.com', /not a URL/],
    ['', /not a URL/],
    ['ftp://api.example.com', /must use https/],
  ])('%j is refused', (input, message) => {
    expect(() => normalizeBaseUrl(input)).toThrow(UsageError);
    expect(() => normalizeBaseUrl(input)).toThrow(message);
  });
});

describe('assertSafeTransport', () => {
  const settings = (baseUrl: string, insecureHttp = false): Settings => ({
    profile: 'default',
    baseUrl: normalizeBaseUrl(baseUrl),
    timeoutMs: 1000,
    maxResponseBytes: DEFAULT_MAX_RESPONSE_BYTES,
    insecureHttp,
  });

  it.each([
    'https://api.example.com',
    'http://localhost:4010',
    'http://127.0.0.1:4010',
    'http://127.12.0.3',
    'http://[::1]:4010',
  ])('allows %s', (url) => {
    expect(() => assertSafeTransport(settings(url))).not.toThrow();
  });

  it.each([
    'http://api.example.com',
    'http://10.0.0.5:8080',
    'http://128.0.0.1',
    'http://localhost.evil.com',
    'http://[::2]',
  ])('refuses %s without --insecure-http', (url) => {
    expect(() => assertSafeTransport(settings(url))).toThrow(/refusing plain http:\/\/.*--insecure-http/);
  });

  it('allows http:// to any host with --insecure-http', () => {
    expect(() => assertSafeTransport(settings('http://api.example.com', true))).not.toThrow();
  });

  it('isLoopbackHost knows the loopback names', () => {
    expect(['localhost', '127.0.0.1', '127.255.255.254', '[::1]'].every(isLoopbackHost)).toBe(true);
    expect(['example.com', '1270.0.0.1', '127.0.0', '0.0.0.0'].some(isLoopbackHost)).toBe(false);
  });
});
