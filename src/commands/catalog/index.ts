/** `giftcodes catalog` and `giftcodes catalog show`. */

import { invoke } from '../invoke.js';
import { surfaceFrom, surfaceOption, surfaceParent } from '../surface-option.js';
import type { Register } from '../types.js';

export const registerCatalog: Register = (program, contextFor) => {
  const catalog = surfaceParent(program.command('catalog'))
    .description('list products: name, id, currencies, denominations, countries')
    .addOption(surfaceOption())
    .option('--search <text>', 'only products whose name, slug or id contains the text')
    .option('--country <CC>', 'only products sold to this country (ISO 3166-1 alpha-2)')
    .option('--category <category>', 'only products in this category')
    .action(async (opts, command) => {
      const { runCatalogList } = await import('./list.js');
      await invoke(contextFor(command), runCatalogList, opts);
    });

  catalog
    .command('show <product>')
    .description('one product by id or slug, with its SKUs, required fields and blocked countries')
    .addOption(surfaceOption())
    .action(async (product: string, _opts, command) => {
      const { runCatalogShow } = await import('./show.js');
      await invoke(contextFor(command), runCatalogShow, { product, surface: surfaceFrom(command) });
    });
};
