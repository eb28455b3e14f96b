/**
 * The first stage of a bulk run: everything checked before a journal is read or a
 * request sent, then the live reads. Bad input, a planted link beside --out, a
 * suspended account: each stops the run here, before any money moves.
 */
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { getAccount, getBalance } from '../../api/account.js';
import { getCatalog, getRates } from '../../api/catalog.js';
import type { HttpClient } from '../../api/http.js';
import { ApiError, InvalidInputError, UsageError } from '../../errors.js';
import { failureWords } from '../../io/errno.js';
import { readFile } from '../plan/parse.js';
import { limitsFrom } from '../plan/plan.js';
import { defaultBatchId, isValidBatchId } from '../plan/refs.js';
import { productIndex, validateAccount } from '../plan/validate.js';
import type { BulkOptions, Live, ParsedInput } from '../run-types.js';
import { checkCompanions, journalPathFor } from '../store/index.js';
import { type DiscoveryDeps, patient } from './discovery.js';

/**
 * Checks the input and the files beside --out, then reads the whole file once: its
 * hash (the batch id) and every row that does not parse. Nothing of the rows is kept:
 * a fresh plan reads the file again (planning.ts) once the live catalog is known.
 */
export async function readInput(opts: BulkOptions): Promise<ParsedInput> {
  if (opts.batch !== undefined && !isValidBatchId(opts.batch)) {
    throw new UsageError('--batch must be 1-64 letters, digits, "-" or "_"');
  }
  try {
    const info = await stat(opts.input);
    if (!info.isFile()) throw new UsageError(`${opts.input} is not a file`);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`cannot read ${opts.input}: ${failureWords(error)}`);
  }

  // The output and its companions: a link or another user's file planted at one of
  // these names is refused now, before any request, never after a charge.
  await checkCompanions([opts.out, journalPathFor(opts.out)]);

  // The whole file before anything else.
  const parsed = await readFile(opts.input, () => undefined);
  // A header problem or one of the whole file: the rows cannot be read as meant.
  if (parsed.errors.some((e) => e.row === undefined))
    throw new InvalidInputError(parsed.errors, basename(opts.input));
  return { ...parsed, batch: opts.batch ?? defaultBatchId(parsed.sha256, { seal: opts.seal }) };
}

export async function readLive(
  deps: Pick<DiscoveryDeps, 'http' | 'limit' | 'sleep' | 'signal'>,
): Promise<Live> {
  let live: Omit<Live, 'limits'>;
  try {
    live = await patient(deps, () => fetchLive(deps.http));
  } catch (error) {
    // Any 403 here refuses the run before it buys (exit 2), whatever its wording: a
    // suspended account answers 403 to every call (spec section 5, rule 3), and so does a
    // key without the scopes the preflight reads need, or a disabled b2b capability.
    if (error instanceof ApiError && error.status === 403) {
      throw new UsageError(
        `the service refused the preflight reads (403 ${error.code}: ${error.message}): the account may be ` +
          'suspended, the b2b capability off, or the key without products:read and balance:read; nothing was bought',
      );
    }
    throw error;
  }
  const accountErrors = validateAccount(live.account);
  if (accountErrors.length) throw new InvalidInputError(accountErrors, 'the account');
  return { ...live, limits: limitsFrom(live.account) };
}

async function fetchLive(http: HttpClient): Promise<Omit<Live, 'limits'>> {
  const [catalog, account, rates, balance] = await Promise.all([
    getCatalog(http, 'b2b'),
    getAccount(http, 'b2b'),
    getRates(http, 'b2b'),
    getBalance(http),
  ]);
  return {
    products: productIndex(catalog.data.products),
    account: account.data,
    rates: rates.data,
    balanceUsd: balance.data.balance,
  };
}
