/**
 * The files the package ships beside its code (package.json, fixtures/), found by the
 * package's own name (Node's self-reference, through package.json `exports`): the same
 * path from the sources, from tsc's dist/ and from the bundle in dist/cli/, where a path
 * relative to the module's own file would differ from one to the other.
 */
import { createRequire } from 'node:module';

const { resolve } = createRequire(import.meta.url);

/** The absolute path of a file of the package: `packageFile('fixtures/catalog.json')`. */
export function packageFile(path: string): string {
  return resolve(`giftcodes/${path}`);
}
