import type { Readable } from 'node:stream';
import { readInput } from '../../src/bulk/plan/parse.js';
import type { InputRow } from '../../src/bulk/types.js';

/** A CSV stream's good rows in memory, with its errors and hash: the parse as a test reads it. */
export async function parseInput(source: Readable) {
  const rows: InputRow[] = [];
  const { errors, sha256 } = await readInput(source, (row) => {
    rows.push(row);
    return undefined;
  });
  return { rows, errors, sha256 };
}
