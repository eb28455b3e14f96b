/** A sandbox on a loopback port for the operator tests, with the operator API over real HTTP. */
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';

export interface OperatorEnv {
  sandbox: Sandbox;
  /** A fresh account: its environment for the binary, and its id. */
  account(input?: Parameters<Sandbox['createAccount']>[0]): { env: Record<string, string>; userId: string };
  /** `POST /_sandbox/...` over HTTP, as an operator would. */
  operator(path: string, body?: unknown): Promise<unknown>;
}

export async function operatorEnv(): Promise<OperatorEnv> {
  const sandbox = await startSandbox({ port: 0, seed: 7 });
  return {
    sandbox,
    account(input = { balanceUsd: 1_000 }) {
      const { userId, apiKey } = sandbox.createAccount(input);
      return { userId, env: { GIFTCODES_BASE_URL: sandbox.url, GIFTCODES_API_KEY: apiKey, NO_COLOR: '1' } };
    },
    async operator(path, body = {}) {
      const res = await fetch(`${sandbox.url}/_sandbox${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const json = await res.json();
      if (!res.ok) throw new Error(`operator ${path}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    },
  };
}

export const MINUTE = 60_000;
