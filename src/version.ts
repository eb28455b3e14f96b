/** The package version, read once from package.json (same relative path from src/ and dist/). */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
export const VERSION: string = (require('../package.json') as { version: string }).version;
export const USER_AGENT = `giftcodes/${VERSION} node/${process.versions.node}`;
