/**
 * Deterministic externalRefs. A planned order's ref is a pure function of the batch
 * id and the order's place and content, so a re-run after any crash sends the very
 * same refs and the service replays instead of charging again (spec rule 10).
 */
import { createHash } from 'node:crypto';
import { EXTERNAL_REF_MAX } from '../../schemas/common.js';
import { isPathId } from '../ids.js';
import type { PlannedLine } from '../types.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * The batch id: the input's bytes plus every option that changes what is bought.
 * Changing `--seal` is a different purchase, so a different batch.
 */
export function defaultBatchId(inputSha256: string, options: { seal: boolean }): string {
  return sha256(`giftcodes-bulk/v1\n${inputSha256}\nseal=${options.seal}`).slice(0, 16);
}

/** A batch id names files (the journal's copy, locks): the one path-id pattern (store/files.ts). */
export function isValidBatchId(id: string): boolean {
  return isPathId(id);
}

/** What a line buys, canonically: the part of an order that its ref must pin. */
export function lineKey(line: PlannedLine): string {
  const fields = line.requiredFields
    ? Object.keys(line.requiredFields)
        .sort()
        .map((k) => `${k}=${line.requiredFields?.[k]}`)
        .join('&')
    : '';
  return `${line.row}:${line.firstUnit}:${line.productId}:${line.skuId}:${line.amount}:${line.quantity}:${fields}`;
}

export function contentHash(lines: PlannedLine[]): string {
  return sha256(lines.map(lineKey).join('\n')).slice(0, 10);
}

/** `gc-<batch>-<place>-<content>`, at most 128 characters. */
export function orderRef(batch: string, index: number, lines: PlannedLine[]): string {
  return capLength(`gc-${batch}-${String(index + 1).padStart(5, '0')}-${contentHash(lines)}`);
}

/**
 * The batch's anchor: one unit of row 1, bought alone and first. Its ref depends on
 * the batch id only (never on limits, rates or packing), so one exact look-up tells
 * whether this batch ever bought anything: no other order of a batch is sent before
 * its anchor exists on the account (see ARCHITECTURE.md, "A first run").
 */
export function anchorRef(batch: string): string {
  return `gc-${batch}-anchor`;
}

/**
 * The order bought in place of one failed unit (`order rebuy`): one unit, its ref made of
 * the batch, the how-many-th replacement of that unit (`attempt`), the unit's place (row,
 * index) and what is bought, never of the packing, so a run that lost its journal derives
 * the same ref and the service replays it instead of charging again.
 */
export function replacementRef(batch: string, attempt: number, line: PlannedLine): string {
  return capLength(
    `gc-${batch}-r${attempt}-${line.row}.${line.firstUnit}-${contentHash([line]).slice(0, 6)}`,
  );
}

/** A ref of `replacementRef`'s form (never hashed: its parts are short). */
export function isReplacementRef(ref: string): boolean {
  return /^gc-[A-Za-z0-9_-]{1,64}-r\d+-\d+\.\d+-[0-9a-f]{6}$/.test(ref);
}

/** The k-th part (0-based) of a re-split order: never sent before, so a safe new ref. */
export function childRef(parent: string, k: number, lines: PlannedLine[]): string {
  return capLength(`${parent}.${k + 1}${contentHash(lines).slice(0, 4)}`);
}

function capLength(ref: string): string {
  if (ref.length <= EXTERNAL_REF_MAX) return ref;
  return `gc-h-${sha256(ref)}`;
}
