/**
 * cli-table3, imported statically so that the bundle carries it (build.mjs): a run loads
 * this one chunk (io/output.ts `loadTables`) instead of Node resolving and compiling
 * cli-table3's eight CommonJS files, and the bundle gives it a string-width that answers
 * plain text without its per-call regular expressions (scripts/bundle-trims.mjs). The
 * layout measures cells with the same string-width (the version cli-table3 depends on),
 * so what is planned is what cli-table3 pads: wide characters take two columns, escapes none.
 */
import Table from 'cli-table3';
import stringWidth from 'string-width';

export { stringWidth, Table };
