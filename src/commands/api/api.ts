/**
 * `giftcodes api <method> <path>`: any call of the service (as `gh api`, `stripe get`),
 * with what every other command gets: the profile's base URL and key, the client's
 * retries where the spec says a repeat is safe, an `externalRef` made for a create that
 * lacks one (said before it is sent, with the command that repeats it safely), codes and
 * keys masked unless --reveal, and the usual exit codes.
 */
import { InvalidArgumentError } from 'commander';
import type { HttpClient } from '../../api/http.js';
import { HTTP_METHODS, type HttpMethod, refOf, repeatTraits, specEndpoint } from '../../api/paths.js';
import { isRecord } from '../../api/shapes.js';
import type { Context } from '../../context.js';
import { UsageError, withOutcomeAdvice, writeOutcome } from '../../errors.js';
import { type DeclaredOptions, defineCommand } from '../../flags/define.js';
import { collect } from '../../flags/parse.js';
import { plural } from '../../io/format.js';
import { printJson } from '../../io/output.js';
import { err } from '../../io/streams.js';
import { wrap } from '../help.js';
import { assertCanConsent, confirmWrite } from '../shared/consent.js';
import { readFlagFile } from '../shared/read-file.js';
import { generatedRef } from '../shared/refs.js';
import { rerunCommand } from '../shared/rerun.js';
import type { Field } from './fields.js';

function httpMethod(value: string): HttpMethod {
  const method = value.toUpperCase();
  if (!(HTTP_METHODS as readonly string[]).includes(method))
    throw new InvalidArgumentError(`expected one of ${HTTP_METHODS.join(', ')}, got "${value}"`);
  return method as HttpMethod;
}

const args = {
  method: { usage: '<method>', description: `${HTTP_METHODS.join(', ')} (any case)`, parse: httpMethod },
  path: {
    usage: '<path>',
    description: 'a path of the service, from its base URL: /b2b/balance, /b2b/orders?limit=5',
  },
} as const;

const options = {
  field: {
    flags: '-f, --field <key=value>',
    description:
      'a body field (POST, PUT, PATCH) or a query parameter (GET, DELETE); repeatable; typed: see below',
    parse: collect,
  },
  input: {
    flags: '--input <file>',
    description: 'the JSON body, from a file or - for stdin; -f fields are set on top of it',
  },
  paginate: {
    flags: '--paginate',
    description: 'GET every page of a list (limit/offset) and print one JSON array of its elements',
  },
  reveal: { flags: '--reveal', description: 'show codes in full' },
  yes: {
    flags: '-y, --yes',
    description: 'send a write without asking (required without a terminal); GET never asks',
  },
} as const;

type Options = DeclaredOptions<typeof args, typeof options>;

const MORE_HELP = [
  'Fields: -f amount=25 sends the number 25; true, false and null are JSON literals; -f ' +
    `'playerId="0042"' sends the text 0042; -f items=@items.json sends the JSON in the file; ` +
    'anything else is text. Keys reach inside the body: -f items[0].quantity=2, -f payment.paymentMethodId=balance.',
  'Repeats: a GET is retried after a 5xx, a timeout or a dropped connection; a create ' +
    '(POST /b2b/orders, POST /retailer/v1/checkouts) only when its body has an externalRef, ' +
    'which is made for it when it has none and printed before it is sent, with the command ' +
    'that repeats it without a second charge; the checkout payment call on its 409 race; ' +
    'other writes never (their outcome may exist). A 429 is retried after its wait: the ' +
    'service did not act on it.',
  'Output: the body the service sent, as JSON (codes masked unless --reveal; the key ' +
    'never shown); the status and request id on stderr. A failure is an error line on ' +
    'stderr, and under --json the error object on stdout (giftcodes help exit-codes).',
];

export default defineCommand({
  command: 'api',
  description: 'call any endpoint of the service with the profile, retries and masking of the CLI',
  args,
  options,
  moreHelp: (width) => `\n${MORE_HELP.map((p) => wrap(p, width)).join('\n\n')}`,
  examples: [
    'giftcodes api GET /b2b/balance',
    '# Every page of a list, as one JSON array',
    'giftcodes api GET /b2b/orders --paginate -f status=completed',
    '# A create: an externalRef is made when the body has none (printed first)',
    'giftcodes api POST /b2b/orders -f items[0].productId=prd_amazon_us \\',
    '  -f items[0].skuId=sku_amazon_us_25 -f items[0].amount=25 \\',
    '  -f items[0].quantity=1 --yes',
    '# A body from a file (or - for stdin), a field set on top of it',
    'giftcodes api POST /retailer/v1/checkouts --input checkout.json \\',
    '  -f customerCountry=DE --yes',
  ],
  run: runApi,
});

/** A path of the service: from its root, never a URL of its own (the key goes only to the base URL). */
function checkPath(path: string): void {
  if (!path.startsWith('/') || path.startsWith('//'))
    throw new UsageError(
      `<path> ${JSON.stringify(path)}: give a path of the service starting with one "/" (such as /b2b/balance); ` +
        'a URL is refused: the key is sent only to the configured base URL',
    );
  if (path.includes('#')) throw new UsageError(`<path> ${JSON.stringify(path)}: a #fragment is never sent`);
}

export async function runApi(ctx: Context, opts: Options): Promise<void> {
  const { parseField, queryOf } = await import('./fields.js');
  const { method, path } = opts;
  const sendsBody = method === 'POST' || method === 'PUT' || method === 'PATCH';
  checkPath(path);
  if (opts.input !== undefined && !sendsBody)
    throw new UsageError(`--input: a ${method} sends no body; give query parameters with -f`);
  if (opts.paginate && method !== 'GET')
    throw new UsageError(`--paginate reads every page of a list: it goes with GET, not ${method}`);
  const fields = (opts.field ?? []).map(parseField);
  if (method !== 'GET') assertCanConsent(ctx, opts.yes, `send ${method} ${path}`);
  const body = sendsBody ? await bodyOf(ctx, opts.input, fields) : undefined;
  const query = sendsBody ? undefined : queryOf(fields);
  const http = await ctx.http();
  assertOnService(http.baseUrl, path);
  if (opts.paginate) await printEveryPage(ctx, http, path, query ?? {});
  else await send(ctx, http, opts, { body, query });
}

/** `--paginate`: every page from the offset given (or 0), one array on stdout. */
async function printEveryPage(
  ctx: Context,
  http: HttpClient,
  path: string,
  query: Record<string, string>,
): Promise<void> {
  const { pageNumber, readAllPages } = await import('./paginate.js');
  const { LIST_LIMIT_MAX } = await import('../../schemas/common.js');
  const { limit, offset, ...rest } = query;
  const items = await readAllPages(
    `GET ${path}`,
    { limit: pageNumber('limit', limit) ?? LIST_LIMIT_MAX, offset: pageNumber('offset', offset) ?? 0 },
    (page) => http.request({ method: 'GET', path, query: { ...rest, ...page } }),
  );
  err(ctx.io, plural(items.length, 'element'));
  printJson(ctx.io, items);
}

/**
 * One request. A create without an externalRef gets one, said with the command that
 * repeats it before anything is sent; a write whose answer is lost says what may exist.
 */
async function send(
  ctx: Context,
  http: HttpClient,
  opts: Options,
  request: { body: unknown; query?: Record<string, string> },
): Promise<void> {
  const { method, path } = opts;
  const { body, query } = request;
  const write = method !== 'GET';
  const endpoint = specEndpoint(method, path);
  const onStdin = opts.input === '-' ? ' (with the same body on stdin)' : '';
  let generated: string | undefined;
  let rerun = `${rerunCommand(ctx)}${onStdin}`;
  if (endpoint?.createsWithRef && isRecord(body) && body.externalRef === undefined) {
    generated = generatedRef(ctx.random, 'gc-api-', 20);
    body.externalRef = generated;
    rerun = `${rerunCommand(ctx, {}, ['-f', `externalRef=${generated}`])}${onStdin}`;
  }
  if (write) await confirmWrite(ctx, opts.yes, `Send ${method} ${path} to ${http.baseUrl}?`);
  // Said before the request: if its answer is lost, this ref is the only safe way back.
  if (generated)
    err(
      ctx.io,
      `externalRef ${generated} (generated): to repeat this request without a second charge, run: ${rerun}`,
    );
  const ref = refOf(body);
  const res = await http
    .request({ method, path, query, body, traits: repeatTraits(endpoint, body) })
    .catch((error: unknown) => {
      if (!write || writeOutcome(error) !== 'maybe-applied') throw error;
      throw withOutcomeAdvice(
        error,
        endpoint?.createsWithRef && ref
          ? `It may have been created under externalRef ${ref}: run this to get it (the same ref never creates or charges twice): ${rerun}`
          : `The ${method} may have been applied: check the service before sending it again`,
      );
    });
  err(ctx.io, statusLine(res, { replay: Boolean(endpoint?.createsWithRef), ref, generated }));
  if (res.raw !== undefined) printJson(ctx.io, res.raw);
}

/** The body: --input's JSON, then each -f field set on it in the order typed. */
async function bodyOf(ctx: Context, input: string | undefined, fields: readonly Field[]): Promise<unknown> {
  const { jsonOf, setField, typedValue } = await import('./fields.js');
  let body: unknown;
  if (input !== undefined) body = jsonOf(await readInput(ctx, input), `--input ${input}: the body`);
  for (const field of fields)
    body = setField(body, field, await typedValue(field, (file) => readFlagFile(`-f ${field.text}`, file)));
  return body;
}

async function readInput(ctx: Context, input: string): Promise<string> {
  if (input !== '-') return readFlagFile('--input', input);
  if (ctx.io.stdinIsTTY)
    throw new UsageError('--input -: stdin is a terminal; pipe the body in, or give --input <file>');
  const { text } = await import('node:stream/consumers');
  return text(ctx.io.stdin);
}

/**
 * The path, joined to the base URL as the client joins it, must stay under the base URL:
 * `/../` or an encoded dot segment that climbs out of a base path is refused like a URL.
 */
function assertOnService(baseUrl: string, path: string): void {
  const base = new URL(baseUrl);
  const url = new URL(baseUrl + path);
  const root = base.pathname.replace(/\/+$/, '');
  const under = url.pathname === root || url.pathname.startsWith(`${root}/`);
  if (url.origin !== base.origin || !under)
    throw new UsageError(
      `<path> ${JSON.stringify(path)} leads out of the base URL ${baseUrl} (to ${url.origin}${url.pathname}): refused`,
    );
}

/** What came back, on stderr: the status and request id, and for a create replayed, what that means. */
function statusLine(
  res: { status: number; requestId?: string; raw: unknown; afterLostAnswer?: boolean },
  create: { replay: boolean; ref?: string; generated?: string },
): string {
  const head = `HTTP ${res.status}${res.requestId ? ` (request ${res.requestId})` : ''}`;
  if (res.raw === undefined) return `${head}, no body`;
  if (!create.replay || res.status !== 200 || !create.ref) return head;
  if (!res.afterLostAnswer)
    return `${head}: externalRef ${create.ref} already existed; this is that one (no new charge)`;
  return create.generated
    ? `${head}: an answer was lost; this is what this request created under externalRef ${create.ref} (charged once)`
    : `${head}: an answer was lost; this is what externalRef ${create.ref} names, created by this request or an earlier one (never twice)`;
}
