/**
 * The account-changing writes whose answers the spec leaves "not shown" (business enable,
 * the markup PATCH, the webhook configuration beyond url, events and secret, its delete
 * and rotation), against a sandbox that answers only what the spec shows: each works,
 * and with its answer lost after the service acted, the command says what may have
 * happened and running it again converges. The operator API is the oracle.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { withSandbox } from '../helpers/sandbox.js';
import { cli } from './support.js';

const sb = withSandbox({ seed: 2129, specMinimal: true, allowHttpWebhooks: true });
afterEach(async () => {
  await sb.operator.setFaults({});
});

const account = async (capabilities: Array<'b2b' | 'retailer'> = ['b2b', 'retailer']) =>
  sb.account({ tier: 'growth', balanceUsd: 100, capabilities });
const lose = (route: string) => sb.operator.setFaults({ routes: { [route]: { script: ['error_after'] } } });
const WEBHOOK = ['webhook', 'set', '--url', 'http://127.0.0.1:9/hooks', '--yes'];

describe('writes against the spec-minimal sandbox', () => {
  it('business enable: works on an empty answer; a lost answer says it may be on, and again converges', async () => {
    const a = await account(['b2b']);
    await lose('POST /user/business/enable');
    const lost = await cli(a.env, ['business', 'enable', '--retailer', '--yes']);
    expect(lost.code).not.toBe(0);
    expect(lost.stderr).toContain(
      'The retailer capability may be on already. Enabling it again changes nothing else: giftcodes business enable --retailer --yes',
    );
    const again = await cli(a.env, ['business', 'enable', '--retailer', '--yes']);
    expect(again.code, again.stderr).toBe(0);
    // The retailer surface answers now.
    expect((await cli(a.env, ['--json', 'checkout', 'list'])).code).toBe(0);
  });

  it('webhook set, get, rotate, delete: work on answers of url, events and secret only', async () => {
    const a = await account();
    const set = await cli(a.env, ['--json', ...WEBHOOK]);
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout).secret).toMatch(/^whsec_/);
    const get = await cli(a.env, ['webhook', 'get']);
    expect(get.code, get.stderr).toBe(0);
    expect(get.stdout).toContain('http://127.0.0.1:9/hooks');
    const rotated = await cli(a.env, ['webhook', 'rotate', '-q', '-y']);
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(rotated.stdout.trim()).toMatch(/^whsec_/);
    const deleted = await cli(a.env, ['webhook', 'delete', '--yes']);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect((await cli(a.env, ['webhook', 'get'])).code).not.toBe(0);
  });

  it('webhook set: the first create answer lost says the secret may be lost; rotate gets a new one', async () => {
    const a = await account();
    await lose('PUT /retailer/v1/webhook');
    const lost = await cli(a.env, WEBHOOK);
    expect(lost.code).not.toBe(0);
    expect(lost.stderr).toMatch(/giftcodes webhook rotate/);
    const rotated = await cli(a.env, ['webhook', 'rotate', '-q', '-y']);
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(rotated.stdout.trim()).toMatch(/^whsec_/);
  });

  it('webhook rotate: a lost answer says a new secret may be in force; rotating again gives one', async () => {
    const a = await account();
    expect((await cli(a.env, WEBHOOK)).code).toBe(0);
    await lose('POST /retailer/v1/webhook/rotate');
    const lost = await cli(a.env, ['webhook', 'rotate', '-q', '-y']);
    expect(lost.code).not.toBe(0);
    expect(lost.stdout).toBe('');
    expect(lost.stderr).toMatch(/rotat/);
    const again = await cli(a.env, ['webhook', 'rotate', '-q', '-y']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout.trim()).toMatch(/^whsec_/);
  });

  it('account set-markup: an empty answer is said to confirm nothing', async () => {
    const a = await account();
    const res = await cli(a.env, ['account', 'set-markup', '7.5', '--field', 'defaultMarkupPercent', '-y']);
    // Sent, and said plainly that neither the answer nor the account record confirms it.
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain('default markup set to 7.5%');
    expect(res.stderr).toContain(
      'not confirmed: neither the answer nor the account record shows "defaultMarkupPercent"',
    );
  });
});
