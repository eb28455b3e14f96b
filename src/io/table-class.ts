/**
 * cli-table3, imported statically so that the bundle carries it (build.mjs): a run loads
 * this one chunk (io/output.ts `loadTables`) instead of Node resolving and compiling
 * cli-table3's eight CommonJS files, and the bundle gives it a string-width that answers
 * plain text without its per-call regular expressions (scripts/bundle-trims.mjs).
 */
import Table from 'cli-table3';

export { Table };
