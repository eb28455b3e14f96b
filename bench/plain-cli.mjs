/**
 * The yardstick of the start-up benchmark (bench/run.mjs bundles it with esbuild into a
 * temp folder, nothing else): the same four packages as giftcodes, used the plainest way,
 * making the same requests. Arguments parsed by commander; the catalog (`catalog`) or
 * the balance (`balance`) fetched with undici's public `request`, checked with a zod
 * schema; the catalog printed as a cli-table3 table. URL and key come from
 * GIFTCODES_BASE_URL and GIFTCODES_API_KEY, as giftcodes takes them.
 */
import Table from 'cli-table3';
import { Command } from 'commander';
import { request } from 'undici';
import * as z from 'zod';

const Sku = z.looseObject({ id: z.string(), min: z.number(), max: z.number() });
const Product = z.looseObject({
  productId: z.string(),
  name: z.string(),
  costCurrency: z.string(),
  skus: z.array(Sku).default([]),
  countries: z.array(z.string()).default([]),
});
const Catalog = z.looseObject({ products: z.array(Product) });
const Balance = z.looseObject({ balance: z.number(), currency: z.string() });

async function get(path, schema) {
  const res = await request(`${process.env.GIFTCODES_BASE_URL}${path}`, {
    headers: { 'x-api-key': process.env.GIFTCODES_API_KEY, accept: 'application/json' },
  });
  if (res.statusCode !== 200) throw new Error(`GET ${path}: ${res.statusCode}`);
  return schema.parse(await res.body.json());
}

const program = new Command('plain').description('the plain bundle of the start-up benchmark');
program
  .command('catalog')
  .description('list products')
  .action(async () => {
    const { products } = await get('/b2b/products', Catalog);
    const table = new Table({ head: ['name', 'productId', 'currencies', 'denominations', 'countries'] });
    for (const p of products) {
      const range = p.skus.map((s) => (s.min === s.max ? `${s.min}` : `${s.min}-${s.max}`)).join(', ');
      table.push([p.name, p.productId, p.costCurrency, range, p.countries.join(', ')]);
    }
    process.stdout.write(`${table.toString()}\n`);
  });
program
  .command('balance')
  .description('the prepaid balance')
  .action(async () => {
    const { balance, currency } = await get('/b2b/balance', Balance);
    process.stdout.write(`${balance.toFixed(2)} ${currency}\n`);
  });
await program.parseAsync();
