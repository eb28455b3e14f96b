/** `--surface b2b|retailer`, shared by every command that can read either surface. */
import { Option } from 'commander';

export function surfaceOption(): Option {
  return new Option('--surface <surface>', 'which surface to read')
    .choices(['b2b', 'retailer'])
    .default('b2b');
}
