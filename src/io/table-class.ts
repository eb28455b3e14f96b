/**
 * cli-table3 and the string-width it pads with, loaded together for a run that may
 * print a table (io/output.ts `loadTables`): the layout measures cells with the same
 * string-width (the version cli-table3 depends on), so what is planned is what cli-table3
 * pads: wide characters take two columns, escapes none.
 */
import Table from 'cli-table3';
import stringWidth from 'string-width';

export { stringWidth, Table };
