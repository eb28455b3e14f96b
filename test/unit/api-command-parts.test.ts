/**
 * The pure parts of `giftcodes api`: what a `-f` field puts in the body or the query,
 * which spec endpoint a path is and what may be repeated of it (with retry.ts deciding),
 * and how the pages of a list are read (a function standing for the service's answers).
 */
import { describe, expect, it } from 'vitest';
import { completionPaths, repeatTraits, specEndpoint } from '../../src/api/paths.js';
import { isRetryable } from '../../src/api/retry.js';
import { parseField, queryOf, setField, typedValue } from '../../src/commands/api/fields.js';
import { listIn, pageNumber, readAllPages } from '../../src/commands/api/paginate.js';

const files: Record<string, string> = { 'items.json': '[{"productId": "prd_x"}]', 'bad.json': '{' };
const read = async (path: string) => {
  const text = files[path];
  if (text === undefined) throw new Error(`no ${path}`);
  return text;
};

/** The body the fields make, in the order given. */
async function body(...texts: string[]): Promise<unknown> {
  let built: unknown;
  for (const text of texts) {
    const field = parseField(text);
    built = setField(built, field, await typedValue(field, read));
  }
  return built;
}

describe('-f fields', () => {
  it.each([
    ['amount=25', 25],
    ['amount=25.5', 25.5],
    ['amount=-1e2', -100],
    ['sealCards=true', true],
    ['sealCards=false', false],
    ['callbackUrl=null', null],
    ['playerId="0042"', '0042'],
    ['playerId=0042', '0042'],
    ['email=buyer@example.com', 'buyer@example.com'],
    ['note=', ''],
    ['note=a=b', 'a=b'],
    ['items=@items.json', [{ productId: 'prd_x' }]],
  ])('%s is typed as JSON would have it', async (text, value) => {
    const [key] = text.split('=');
    expect(await body(text)).toEqual({ [key as string]: value });
  });

  it('nested keys build objects and lists, in order', async () => {
    expect(
      await body(
        'items[0].productId=prd_amazon_us',
        'items[0].quantity=2',
        'items[1].productId=prd_steam',
        'payment.paymentMethodId=balance',
      ),
    ).toEqual({
      items: [{ productId: 'prd_amazon_us', quantity: 2 }, { productId: 'prd_steam' }],
      payment: { paymentMethodId: 'balance' },
    });
  });

  it('a key such as __proto__ is a key like any other, never the prototype', async () => {
    const made = (await body('__proto__.polluted=1')) as Record<string, unknown>;
    expect(JSON.stringify(made)).toBe('{"__proto__":{"polluted":1}}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([
    [['amount'], 'expected key=value'],
    [['=1'], 'expected key=value'],
    [['a..b=1'], 'is not a key'],
    [['items[1].x=1'], 'items has 0 elements: set items[0] first'],
    [['amount=1', 'amount.value=2'], 'amount is a number, not an object'],
    [['items=1', 'items[0]=2'], 'items is a number, not a list'],
    [
      ['n=9007199254740993'],
      'too large to send exactly as a number; to send it as text, quote it: -f \'n="9007199254740993"\'',
    ],
    [['p="unclosed'], '-f p="unclosed: the quoted text is not valid JSON'],
    [['items=@bad.json'], '-f items=@bad.json: bad.json is not valid JSON'],
    [['items=@'], 'name the file after @'],
  ])('%j is refused: %s', async (texts, message) => {
    await expect(body(...texts)).rejects.toThrow(message);
  });

  it('fields are set on a body from --input, which must be an object', async () => {
    const field = parseField('externalRef=po-1');
    expect(setField({ items: [] }, field, 'po-1')).toEqual({ items: [], externalRef: 'po-1' });
    expect(() => setField([1], field, 'po-1')).toThrow('the body is a list, not an object');
  });

  it('GET and DELETE send them as the query: plain names, the text as typed', () => {
    expect(queryOf(['status=pending', 'limit=5'].map(parseField))).toEqual({ status: 'pending', limit: '5' });
    expect(() => queryOf([parseField('a.b=1')])).toThrow('a query parameter is a plain name, not a.b');
  });
});

describe('the spec endpoints', () => {
  it.each([
    ['POST', '/b2b/orders', '/b2b/orders'],
    ['POST', '/b2b/orders/', '/b2b/orders'],
    ['GET', '/b2b/orders?externalRef=x', '/b2b/orders'],
    ['GET', '/b2b/orders/chk_1', '/b2b/orders/{checkoutId}'],
    ['POST', '/retailer/v1/checkouts/chk_1/payment', '/retailer/v1/checkouts/{checkoutId}/payment'],
    ['GET', '/b2b/orders/chk_1/items', undefined],
    ['DELETE', '/b2b/orders', undefined],
  ])('%s %s is %s', (method, path, template) => {
    expect(specEndpoint(method, path)?.path).toBe(template);
  });

  /** May a request be repeated after this outcome? retry.ts decides from the traits. */
  const repeats = (method: string, path: string, body: unknown, status: number) =>
    isRetryable({ method, ...repeatTraits(specEndpoint(method, path), body) }, { kind: 'status', status });

  it.each([
    ['GET', '/b2b/balance', undefined, 503, true],
    ['GET', '/b2b/not-in-the-spec', undefined, 503, true],
    ['POST', '/b2b/orders', { externalRef: 'po-1' }, 500, true],
    ['POST', '/retailer/v1/checkouts', { externalRef: 'po-2' }, 502, true],
    ['POST', '/b2b/orders', { items: [] }, 500, false],
    ['POST', '/b2b/orders', { externalRef: '' }, 500, false],
    ['POST', '/b2b/orders', { externalRef: 'x'.repeat(129) }, 500, false],
    ['POST', '/b2b/deposits', { externalRef: 'po-3' }, 500, false],
    ['POST', '/b2b/refunds', { checkoutId: 'chk_1' }, 500, false],
    ['PUT', '/retailer/v1/webhook', { url: 'https://x' }, 500, false],
    ['POST', '/somewhere/else', { externalRef: 'po-4' }, 500, false],
    ['POST', '/retailer/v1/checkouts/chk_1/payment', {}, 409, true],
    ['POST', '/retailer/v1/checkouts/chk_1/payment', {}, 500, false],
    ['POST', '/b2b/deposits', {}, 429, true],
  ])('%s %s %j after %i: repeated %s', (method, path, body, status, expected) => {
    expect(repeats(method, path, body, status)).toBe(expected);
  });

  it('completion offers every path, those with an id up to it', () => {
    const paths = completionPaths();
    expect(paths).toEqual(expect.arrayContaining(['/b2b/balance', '/b2b/orders', '/b2b/orders/']));
    expect(paths.filter((p) => p.includes('{'))).toEqual([]);
    expect(new Set(paths).size).toBe(paths.length);
  });
});

describe('--paginate', () => {
  it('finds the one list of an answer, whatever it is called', () => {
    expect(listIn({ checkouts: [1, 2], pagination: { hasMore: true, offset: 0 } })).toEqual({
      key: 'checkouts',
      items: [1, 2],
      hasMore: true,
      offset: 0,
    });
    expect(listIn({ balance: 1 })).toEqual({ reason: 'its answer has no list in it (no array property)' });
    expect(listIn({ a: [], b: [] })).toEqual({
      reason: 'its answer has 2 lists (a, b); --paginate follows one',
    });
    expect(listIn([1])).toEqual({ reason: 'its answer is an array, not a paged list' });
  });

  /** A service's list of `total` numbers, paged as the spec's conventions say. */
  const service = (total: number, opts: { pagination?: boolean; ignoresOffset?: boolean } = {}) => {
    const asked: Array<{ limit: number; offset: number }> = [];
    const fetch = async (query: { limit: number; offset: number }) => {
      asked.push(query);
      const offset = opts.ignoresOffset ? 0 : query.offset;
      const data = Array.from(
        { length: Math.max(0, Math.min(query.limit, total - offset)) },
        (_, i) => offset + i,
      );
      const pagination = { total, limit: query.limit, offset, hasMore: offset + data.length < total };
      return { raw: opts.pagination === false ? { data } : { data, pagination }, status: 200 };
    };
    return { asked, fetch };
  };

  it('follows hasMore from the offset given to the end', async () => {
    const s = service(5);
    expect(await readAllPages('GET /x', { limit: 2, offset: 0 }, s.fetch)).toEqual([0, 1, 2, 3, 4]);
    expect(s.asked.map((q) => q.offset)).toEqual([0, 2, 4]);
    expect(await readAllPages('GET /x', { limit: 2, offset: 3 }, service(5).fetch)).toEqual([3, 4]);
  });

  it('without pagination, stops at a short page', async () => {
    const s = service(4, { pagination: false });
    expect(await readAllPages('GET /x', { limit: 2, offset: 0 }, s.fetch)).toEqual([0, 1, 2, 3]);
    expect(s.asked).toHaveLength(3);
  });

  it('stops with an error when the service ignores the offset (it would read one page for ever)', async () => {
    await expect(
      readAllPages('GET /x', { limit: 2, offset: 0 }, service(5, { ignoresOffset: true }).fetch),
    ).rejects.toThrow(
      'GET /x: asked for offset 2, the service answered offset 0: it does not page this list',
    );
  });

  it('reads limit and offset as the list conventions allow', () => {
    expect(pageNumber('limit', undefined)).toBeUndefined();
    expect(pageNumber('limit', '100')).toBe(100);
    expect(pageNumber('offset', '0')).toBe(0);
    expect(() => pageNumber('limit', '101')).toThrow('limit is a whole number from 1 to 100');
    expect(() => pageNumber('limit', '0')).toThrow('limit is a whole number from 1 to 100');
    expect(() => pageNumber('offset', '-1')).toThrow('offset is a whole number from 0');
  });
});
