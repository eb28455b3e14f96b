/**
 * The line `webhook listen --print-json` writes for each delivery: what the listener
 * made of it (type, ids, verdict) plus the raw copy, so a script can verify it byte for
 * byte or replay it. The body is the exact text received (or, when its bytes are not
 * UTF-8, `bodyBase64`); the headers are the service's three, in their canonical spelling.
 *
 * Card codes are never printed: the spec keeps them out of webhook payloads, but an
 * unsigned B2B callback (which carries them) can reach a listener started without a
 * secret. A body with a code field is withheld; secrets are masked by the output guard
 * that every line passes through.
 */
import { codeValues } from '../io/guard.js';
import { namedHeaders } from './headers-file.js';
import type { ListenerEvent, ReceivedCopy } from './listener.js';
import type { SavedPaths } from './save-dir.js';

export interface DeliveryRecord extends ListenerEvent {
  time: string;
  headers: Record<string, string>;
  body: string | null;
  bodyBase64?: string;
  bodyWithheld?: 'card_codes';
  saved?: SavedPaths | { error: string };
}

export function deliveryRecord(
  event: ListenerEvent,
  copy: ReceivedCopy,
  time: string,
  saved?: DeliveryRecord['saved'],
): DeliveryRecord {
  const headers = namedHeaders(copy.headers);
  const text = copy.raw.toString('utf8');
  const exact = Buffer.from(text, 'utf8').equals(copy.raw);
  const body: Pick<DeliveryRecord, 'body' | 'bodyBase64' | 'bodyWithheld'> = carriesCodes(text)
    ? { body: null, bodyWithheld: 'card_codes' }
    : exact
      ? { body: text }
      : { body: null, bodyBase64: copy.raw.toString('base64') };
  return { time, ...event, headers, ...body, ...(saved ? { saved } : {}) };
}

/** Whether a JSON body has a non-empty code field at any depth. */
function carriesCodes(text: string): boolean {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // Not JSON: no field to find. A listener without a secret shows such a body as it came.
    return false;
  }
  return !codeValues(value).next().done;
}
