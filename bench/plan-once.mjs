/**
 * Issue 23, the plan made once per run: what the step after the confirmation costs, at
 * 1,000,000 rows, before and after. Before, the plan was made again from the row spool
 * and written as it was made (`writeSpooledPlan`, gone since); now the pass that
 * validates and sums also stages each order (`PlanStage.add`), and the confirmation
 * only copies the staged lines into the journal and its copy (`PlanStage.commit`).
 *
 *   git archive 9b8cac3 | tar -x -C /tmp/base && ln -s "$PWD/node_modules" /tmp/base/ \
 *     && (cd /tmp/base && npm run build) && npm run build
 *   node bench/plan-once.mjs --base /tmp/base [--items-per-order 50] [--rounds 2]
 *
 * Each measure runs in a child of its own (`--expose-gc`, so the heap after a collection
 * is comparable), the two builds alternately. Per run: the orders planned, one plain
 * planning pass over the spool (`planPassMs`: what planning once saves), what staging
 * adds to the pass that validates (`stagingOverheadMs`, new build only), the step after
 * the confirmation (`afterConfirmationMs`), and the child's peak RSS. Synthetic rows and
 * catalog (two products, no live reads, no validation), a journal and its copy in a
 * temporary folder.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : fallback;
};
const itemsPerOrder = Number(opt('--items-per-order', 50));
const ROOT = resolve(import.meta.dirname, '..');

if (args.includes('--child')) {
  await child(opt('--root', ROOT), opt('--mode', 'new'));
} else {
  const base = opt('--base', undefined);
  if (!base) throw new Error('--base <folder of a build from before issue 23> is required');
  for (let round = 1; round <= Number(opt('--rounds', 2)); round++) {
    for (const [mode, root] of [
      ['old', resolve(base)],
      ['new', ROOT],
    ]) {
      const out = execFileSync(
        process.execPath,
        [
          '--expose-gc',
          import.meta.filename,
          '--child',
          '--root',
          root,
          '--mode',
          mode,
          '--items-per-order',
          `${itemsPerOrder}`,
        ],
        { encoding: 'utf8' },
      );
      console.log(out.trim());
    }
  }
}

async function child(root, mode) {
  const d = (p) => import(join(root, 'dist', 'bulk', p));
  const { RowSpool } = await d('store/spool.js');
  const { planSpool } = await d('plan/stream-plan.js');
  const files = await d('store/journal-files.js');
  const { JournalWriter } = await d('store/journal-writer.js');
  const products = new Map(
    ['prd_a', 'prd_b'].map((id) => [id, { productId: id, costCurrency: 'USD', productCurrency: 'USD' }]),
  );
  const inputs = {
    products,
    rates: { base: 'USD', rates: { USD: 1 } },
    limits: { maxItemsPerOrder: itemsPerOrder, maxQuantityPerItem: 100, maxOrderAmountUSD: 100_000 },
    batch: 'bench',
  };
  const spool = await RowSpool.create();
  for (let i = 1; i <= 1_000_000; i++)
    spool.push({
      row: i,
      productId: i % 3 ? 'prd_a' : 'prd_b',
      skuId: 'sku',
      amount: 5 + (i % 7),
      quantity: 1 + (i % 3),
      ref: `R${i}`,
      ...(i % 2 ? { requiredFields: { playerId: `${100000 + i}` } } : {}),
    });
  const dir = mkdtempSync(join(tmpdir(), 'giftcodes-plan-once-'));
  const path = join(dir, 'codes.csv.journal');
  const header = { batch: 'bench', input: 'sha', seal: false, at: 1, anchor: 'gc-bench-anchor' };
  const since = (t) => Math.round(performance.now() - t);
  let orders = 0;
  let t = performance.now();
  await planSpool(spool, inputs, () => {
    orders += 1;
    return undefined;
  });
  const planPassMs = since(t);
  const writer = await JournalWriter.open(path, 'create', { path: `${path}.copy`, mode: 'create' });
  let stagingOverheadMs;
  let state;
  if (mode === 'old') {
    t = performance.now();
    state = await files.writeSpooledPlan(writer, path, header, (emit) => planSpool(spool, inputs, emit));
  } else {
    const stage = await files.PlanStage.open(dir);
    t = performance.now();
    await planSpool(spool, inputs, (order) => {
      stage.add(order);
      return undefined;
    });
    stagingOverheadMs = since(t) - planPassMs;
    t = performance.now();
    state = await stage.commit(writer, path, header);
  }
  const afterConfirmationMs = since(t);
  await state.disk?.close();
  await writer.close();
  await spool.close();
  rmSync(dir, { recursive: true });
  globalThis.gc?.();
  console.log(
    JSON.stringify({
      mode,
      orders,
      planPassMs,
      ...(stagingOverheadMs === undefined ? {} : { stagingOverheadMs }),
      afterConfirmationMs,
      peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
      heapAfterGcMb: +(process.memoryUsage().heapUsed / 1048576).toFixed(1),
    }),
  );
}
