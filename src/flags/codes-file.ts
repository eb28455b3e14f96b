/**
 * The codes file's flags, shared by every command that writes one (`order bulk`,
 * `order export`), so both read the same way in help and in the generated reference.
 */
export const CODES_FILE_OPTIONS = {
  format: {
    flags: '--format <format>',
    description:
      'output file format (default: xlsx when --out ends in .xlsx, else csv); xlsx keeps codes, PINs and ids as text cells',
    choices: ['csv', 'json', 'xlsx'],
  },
  bom: {
    flags: '--bom',
    description: 'start the CSV with a UTF-8 byte order mark, so Excel on Windows reads accents right',
  },
} as const;
