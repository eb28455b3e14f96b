/** `webhook verify`: the library verifier from the command line, for debugging signatures. */
import { buffer } from 'node:stream/consumers';
import type { Context } from '../../context.js';
import { ExitCode, MissingInputError, UsageError } from '../../errors.js';
import { type DeclaredValues, defineCommand } from '../../flags/define.js';
import { collect, nonNegativeInt } from '../../flags/parse.js';
import { err, out } from '../../io/streams.js';
import { printedAsJson } from '../shared/json.js';
import { readFlagBytes, readFlagFile } from '../shared/read-file.js';
import { toleranceOption, toleranceSeconds, webhookSecrets } from './common.js';

const options = {
  secret: {
    flags: '--secret <whsec>',
    description:
      'secret to try; repeat for the previous one during a rotation (env GIFTCODES_WEBHOOK_SECRET)',
    parse: collect,
  },
  header: {
    flags: '--header <value>',
    description: 'the X-Service-Signature header value: t=<ms>,v1=<hex>[,v1=<hex>]',
  },
  headerFile: {
    flags: '--header-file <path>',
    description:
      'a headers file ("Name: value" lines, as `webhook listen --save-dir` writes): its X-Service-Signature line',
  },
  bodyFile: { flags: '--body-file <path>', description: 'the raw body, byte for byte (default: stdin)' },
  tolerance: toleranceOption,
  now: {
    flags: '--now <ms>',
    description: 'the time to check against, epoch milliseconds (default: now)',
    parse: nonNegativeInt,
  },
} as const;

export default defineCommand({
  command: 'webhook verify',
  description: 'check a delivery signature offline: prints valid (exit 0) or the reason (exit 1)',
  options,
  examples: [
    'giftcodes webhook verify --secret "$SECRET" --header "$SIG" \\',
    '  --body-file body.json',
    '# A delivery kept by `webhook listen --save-dir hooks`',
    'giftcodes webhook verify --secret "$SECRET" \\',
    '  --header-file hooks/whd_abc.headers --body-file hooks/whd_abc.body',
    '# During a rotation: the new secret and the previous one',
    'giftcodes webhook verify --secret "$NEW" --secret "$OLD" \\',
    '  --header "$SIG" < body.json',
  ],
  run: runWebhookVerify,
});

/** The signature header's value: given as it is, or read from a headers file. */
async function signatureHeaderOf(opts: { header?: string; headerFile?: string }): Promise<string> {
  if (opts.header !== undefined && opts.headerFile !== undefined)
    throw new UsageError('give --header or --header-file, not both');
  if (opts.header !== undefined) return opts.header;
  if (opts.headerFile === undefined)
    throw new MissingInputError(
      "--header '<X-Service-Signature value>' or --header-file <path>",
      'the header',
    );
  const path = opts.headerFile;
  const text = await readFlagFile('--header-file', path);
  const { HeadersFileError, signatureFromHeadersFile } = await import('../../webhooks/headers-file.js');
  try {
    return signatureFromHeadersFile(text);
  } catch (error) {
    if (error instanceof HeadersFileError) throw new UsageError(`--header-file ${path}: ${error.message}`);
    throw error;
  }
}

async function readBody(ctx: Context, path: string | undefined): Promise<Buffer> {
  if (path !== undefined && path !== '-') return readFlagBytes('--body-file', path);
  if (ctx.io.stdinIsTTY) throw new MissingInputError('--body-file <path>', 'the raw body');
  // Bytes as read: never decoded, trimmed or re-serialised.
  return buffer(ctx.io.stdin);
}

export async function runWebhookVerify(ctx: Context, opts: DeclaredValues<typeof options>): Promise<void> {
  const { verifySignature } = await import('../../webhooks/signature.js');
  const secrets = webhookSecrets(ctx, opts.secret);
  if (secrets.length === 0) throw new MissingInputError('--secret <whsec>', 'the signing secret');
  const header = await signatureHeaderOf(opts);
  const body = await readBody(ctx, opts.bodyFile);
  const result = verifySignature({
    payload: body,
    header,
    secret: secrets,
    now: opts.now ?? ctx.clock.now(),
    toleranceSeconds: toleranceSeconds(opts.tolerance),
  });
  if (!result.valid) ctx.exitCode = ExitCode.service;
  if (printedAsJson(ctx, result)) return;
  if (result.valid) {
    out(ctx.io, 'valid');
    if (secrets.length > 1) err(ctx.io, `matched secret ${result.secretIndex + 1} of ${secrets.length}`);
  } else {
    out(ctx.io, `invalid: ${result.message}`);
  }
}
