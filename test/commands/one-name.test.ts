/**
 * One name per concept (issue 15): `-y` wherever a write takes `--yes`; the payment
 * method is `--method` everywhere (the old `checkout create --pay-method` is gone);
 * `deposit create --method` implies its currency; an unknown product id is exit 2 in
 * every command; a 4xx create never suggests a re-run with --ref.
 */
import { rmSync } from 'node:fs';
import type { Command } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/program.js';
import { quietIO, runInProcess, tempConfigDir } from '../helpers/cli.js';
import { AMAZON_25, withSandbox } from '../helpers/sandbox.js';

const configDir = tempConfigDir();
const op = withSandbox({ seed: 7 });
afterAll(() => {
  rmSync(configDir, { recursive: true, force: true });
});

function allCommands(command: Command, path: string[] = []): { path: string; command: Command }[] {
  return [
    ...(path.length ? [{ path: path.join(' '), command }] : []),
    ...command.commands.flatMap((sub) => allCommands(sub, [...path, sub.name()])),
  ];
}

async function parseOnly(argv: string[]) {
  const received: unknown[] = [];
  const result = await runInProcess(argv, {
    env: { GIFTCODES_CONFIG_DIR: configDir },
    deps: { runF: (options) => received.push(options) },
  });
  return { ...result, received };
}

describe('-y, --yes', () => {
  it('every command with --yes takes -y too', async () => {
    const program = await buildProgram(quietIO(), '0.0.0', () => {
      throw new Error('not run');
    });
    const withYes = allCommands(program).filter(({ command }) =>
      command.options.some((o) => o.long === '--yes'),
    );
    expect(withYes.map((c) => c.path)).toEqual(
      expect.arrayContaining(['order bulk', 'order create', 'deposit create']),
    );
    for (const { path, command } of withYes) {
      expect(command.options.find((o) => o.long === '--yes')?.short, path).toBe('-y');
    }
  });

  it.each([
    [['order', 'bulk', 'in.csv', '--out', 'o.csv', '-y']],
    [['order', 'create', '--product', 'p', '--sku', 's', '--amount', '5', '-y']],
    [['deposit', 'create', '--amount', '5', '-y']],
  ])('%j is accepted and means --yes', async (argv) => {
    const res = await parseOnly(argv);
    expect(res.code, res.stderr).toBe(0);
    expect(res.received).toEqual([expect.objectContaining({ yes: true })]);
  });
});

describe('--method', () => {
  it('checkout create takes --method; the old --pay-method is refused (exit 2)', async () => {
    const base = ['checkout', 'create', '--email', 'a@b.co', '--item', AMAZON_25];
    const current = await parseOnly([...base, '--method', 'balance']);
    expect(current.code, current.stderr).toBe(0);
    expect(current.received).toEqual([expect.objectContaining({ method: 'balance' })]);
    const old = await parseOnly([...base, '--pay-method', 'balance']);
    expect(old.code).toBe(2);
    expect(old.stderr).toContain("unknown option '--pay-method'");
    expect(old.received).toEqual([]);
  });

  it('checkout create --method balance pays at creation against the sandbox', async () => {
    const { env } = op.account({ balanceUsd: 100, capabilities: ['b2b', 'retailer'] });
    const res = await runInProcess(
      [
        'checkout',
        'create',
        '--email',
        'a@example.com',
        '--item',
        AMAZON_25,
        '--country',
        'US',
        '--method',
        'balance',
        '-y',
        '--json',
      ],
      { env },
    );
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.stringify(JSON.parse(res.stdout))).toContain('balance');
  });
});

describe('deposit create --method implies --currency', () => {
  async function createdCurrency(env: Record<string, string>, userId: string) {
    const res = await runInProcess(['deposit', 'create', '--amount', '50', '--method', 'btc', '--json'], {
      env,
    });
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout).payment.paymentAddress).toMatch(/^bc1q/);
    const list = await runInProcess(['deposit', 'list', '--json', '--all'], { env });
    const deposits = JSON.parse(list.stdout) as unknown;
    return { userId, deposits: JSON.stringify(deposits) };
  }

  it('with a retailer account (the method list is readable)', async () => {
    const { env, userId } = op.account({ balanceUsd: 0, capabilities: ['b2b', 'retailer'] });
    const { deposits } = await createdCurrency(env, userId);
    expect(deposits).toContain('"paymentCurrency":"BTC"');
  });

  it('with a B2B-only account (the deposit listing names the method)', async () => {
    const { env, userId } = op.account({ balanceUsd: 0, capabilities: ['b2b'] });
    const { deposits } = await createdCurrency(env, userId);
    expect(deposits).toContain('"paymentCurrency":"BTC"');
  });

  it('an unknown method without --currency is a usage error naming --currency', async () => {
    const { env } = op.account({ balanceUsd: 0, capabilities: ['b2b', 'retailer'] });
    const res = await runInProcess(['deposit', 'create', '--amount', '50', '--method', 'nope'], { env });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/--method nope .*pass --currency/);
  });
});

describe('an unknown product id is exit 2 everywhere', () => {
  it('order create: exit 2, and no re-run advice (nothing was created)', async () => {
    const { env } = op.account({ balanceUsd: 100, capabilities: ['b2b', 'retailer'] });
    const res = await runInProcess(
      ['order', 'create', '--product', 'prd_nope', '--sku', 'sku_x', '--amount', '5', '--yes'],
      { env },
    );
    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr).toMatch(/^error NOT_FOUND: /m);
    expect(res.stderr).not.toMatch(/re-run|--ref|may exist/);
  });

  it('checkout create: exit 2, no re-run advice', async () => {
    const { env } = op.account({ balanceUsd: 100, capabilities: ['b2b', 'retailer'] });
    const res = await runInProcess(
      ['checkout', 'create', '--email', 'a@example.com', '--item', 'prd_nope:sku_x:5', '--country', 'US'],
      { env },
    );
    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr).not.toMatch(/re-run|may exist/);
  });

  it('catalog show: exit 2', async () => {
    const { env } = op.account({ balanceUsd: 1_000, capabilities: ['b2b', 'retailer'] });
    const res = await runInProcess(['catalog', 'show', 'prd_nope'], { env });
    expect(res.code).toBe(2);
  });
});
