import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { describeProblem, parseHeader } from '../../src/bulk/plan/parse.js';
import { parseInput } from './parse-input.js';

const parse = (text: string | Buffer) =>
  parseInput(Readable.from([typeof text === 'string' ? Buffer.from(text) : text]));

describe('parseInput', () => {
  it('reads a plain file with LF and default quantity', async () => {
    const r = await parse('productId,skuId,amount\np1,s1,10\n');
    expect(r.errors).toEqual([]);
    expect(r.rows).toEqual([
      { row: 1, line: 2, productId: 'p1', skuId: 's1', amount: 10, quantity: 1, ref: '' },
    ]);
    expect(r.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it.each([
    ['BOM', '\uFEFFproductId,skuId,amount\r\np1,s1,10\r\n'],
    ['CRLF', 'productId,skuId,amount\r\np1,s1,10\r\n'],
    ['any case, any order', 'AMOUNT,SkuId,PRODUCTID\r\n10,s1,p1\r\n'],
    ['blank lines', '\nproductId,skuId,amount\n\np1,s1,10\n\n\n'],
  ])('%s', async (_name, text) => {
    const r = await parse(text);
    expect(r.errors).toEqual([]);
    expect(r.rows).toMatchObject([{ row: 1, productId: 'p1', skuId: 's1', amount: 10 }]);
  });

  it('keeps quoted commas and quotes in the ref', async () => {
    const r = await parse('ref,productId,skuId,amount,quantity\n"ACME, Inc ""east""",p1,s1,10.5,3\n');
    expect(r.rows[0]).toMatchObject({ ref: 'ACME, Inc "east"', amount: 10.5, quantity: 3 });
  });

  it('allows duplicate rows: they are separate purchases', async () => {
    const r = await parse('productId,skuId,amount\np1,s1,10\np1,s1,10\n');
    expect(r.rows.map((x) => x.row)).toEqual([1, 2]);
  });

  it('reads required fields from field.<name> columns and a requiredFields JSON column', async () => {
    const r = await parse(
      'productId,skuId,amount,field.playerId,requiredFields\np1,s1,10,123,"{""zone"":""eu""}"\np1,s1,10,,\n',
    );
    expect(r.errors).toEqual([]);
    expect(r.rows[0]?.requiredFields).toEqual({ playerId: '123', zone: 'eu' });
    expect(r.rows[1]?.requiredFields).toBeUndefined();
  });

  it.each([
    ['empty file', '', /file is empty/],
    ['only blank lines', '\n\r\n\n', /file is empty/],
    ['header only', 'productId,skuId,amount\r\n', /no data rows/],
    ['unknown column', 'productId,skuId,amount,quantiy\np1,s1,10,2\n', /unknown column "quantiy"/],
    ['missing column', 'productId,amount\np1,10\n', /missing required column "skuId"/],
    ['duplicate column', 'productId,skuId,amount,Amount\n', /appears twice/],
    ['unclosed quote', 'productId,skuId,amount\n"p1,s1,10\n', /not valid CSV/],
  ])('rejects: %s', async (_name, text, pattern) => {
    const r = await parse(text);
    expect(r.rows).toEqual([]);
    expect(r.errors.map((e) => e.message).join('\n')).toMatch(pattern);
  });

  it('reports every bad row with its number and reason', async () => {
    const r = await parse(
      [
        'productId,skuId,amount,quantity,requiredFields',
        'p1,s1,10,1,',
        ',s1,10,1,',
        'p1,,abc,0,',
        'p1,s1,-5,1.5,',
        'p1,s1,10,2,{bad json',
        'p1,s1,10,2,"[1,2]"',
        'p1,s1,10',
        'p1,s1,10,1,,extra',
      ].join('\n'),
    );
    const byRow = (row: number) => r.errors.filter((e) => e.row === row).map((e) => e.message);
    expect(r.rows.map((x) => x.row)).toEqual([1]);
    expect(byRow(2)).toEqual(['productId is empty']);
    expect(byRow(3)).toEqual([
      'skuId is empty',
      'amount "abc" is not a plain decimal number such as 25 or 12.50',
      'quantity "0" is not a positive whole number',
    ]);
    expect(byRow(4)).toEqual(['amount "-5" is negative', 'quantity "1.5" is not a positive whole number']);
    expect(byRow(5)[0]).toMatch(/requiredFields is not a JSON object/);
    expect(byRow(6)[0]).toMatch(/requiredFields is not a JSON object/);
    expect(byRow(7)).toEqual(['has 3 columns, the header has 5']);
    expect(byRow(8)).toEqual(['has 6 columns, the header has 5']);
  });

  it('hashes the bytes, so another file is another batch', async () => {
    const a = await parse('productId,skuId,amount\np1,s1,10\n');
    const b = await parse('productId,skuId,amount\np1,s1,11\n');
    const a2 = await parse('productId,skuId,amount\np1,s1,10\n');
    expect(a.sha256).toBe(a2.sha256);
    expect(a.sha256).not.toBe(b.sha256);
  });
});

describe('parseHeader', () => {
  it('keeps the case of field names', () => {
    expect(parseHeader(['productId', 'skuId', 'amount', 'Field.PlayerId']).header?.fields).toEqual([
      ['PlayerId', 3],
    ]);
  });
});

/** Files as spreadsheets save them (issue 24, point 6). */
describe('spreadsheet-made input files', () => {
  it('keeps every text cell exactly as written: a ref with spaces comes back unchanged', async () => {
    const r = await parse('ref,productId,skuId,amount,field.playerId\n  PO-1 ,p1,s1, 10 , 42 \n');
    expect(r.errors).toEqual([]);
    // Numbers may carry the spaces a spreadsheet pads them with; text cells are kept.
    expect(r.rows[0]).toMatchObject({ ref: '  PO-1 ', amount: 10, requiredFields: { playerId: ' 42 ' } });
  });

  it.each([
    ['semicolon', ';'],
    ['tab', '\t'],
  ])('reads a %s-separated file (detected from the header line)', async (_name, sep) => {
    const r = await parse(
      [['productId', 'skuId', 'amount', 'ref'].join(sep), ['p1', 's1', '10', 'ACME, Inc'].join(sep)].join(
        '\r\n',
      ),
    );
    expect(r.errors).toEqual([]);
    expect(r.rows).toMatchObject([{ row: 1, productId: 'p1', skuId: 's1', amount: 10, ref: 'ACME, Inc' }]);
  });

  it('names the separator when the header mixes them', async () => {
    const r = await parse('productId;skuId;amount,ref\np1;s1;10,x\n');
    expect(r.errors.map((e) => e.message).join('\n')).toMatch(/the file looks `;`-separated/);
  });

  it('cites the file line, the data row and the ref of each problem', async () => {
    const r = await parse(
      [
        'productId,skuId,amount,ref',
        '',
        'p1,s1,10,PO-1001',
        'p1,s1,"1',
        '0",PO-1002',
        'p1,s1,abc,PO-1003',
        'p1,s1,-1,',
      ].join('\n'),
    );
    const where = r.errors.map((e) => ({ line: e.line, row: e.row, ref: e.ref }));
    expect(where).toEqual([
      { line: 4, row: 2, ref: 'PO-1002' },
      { line: 6, row: 3, ref: 'PO-1003' },
      { line: 7, row: 4, ref: undefined },
    ]);
    expect(r.errors.map(describeProblem)).toEqual([
      'line 4 (row 2, ref PO-1002): amount "1\n0" is not a plain decimal number such as 25 or 12.50',
      'line 6 (row 3, ref PO-1003): amount "abc" is not a plain decimal number such as 25 or 12.50',
      'line 7 (row 4): amount "-1" is negative',
    ]);
  });

  it('calls a header problem a header problem, at its line', async () => {
    const r = await parse('\n\nproductId,skuId,amount,quantiy\np1,s1,10,2\n');
    expect(r.errors.map(describeProblem)).toEqual([
      'header (line 3): unknown column "quantiy" (expected productId, skuId, amount, quantity, ref, requiredFields or field.<name>)',
    ]);
    expect(r.errors.every((e) => e.row === undefined)).toBe(true);
  });

  it('shows control characters of a ref visibly', () => {
    expect(describeProblem({ line: 2, row: 1, ref: 'a\u001b[2Jb', message: 'm' })).toBe(
      'line 2 (row 1, ref a^[[2Jb): m',
    );
  });
});

describe('file lines', () => {
  it.each([
    ['LF', '\n'],
    ['CRLF', '\r\n'],
    ['CR', '\r'],
  ])('counts %s files, blank lines and cells that span lines', async (_name, eol) => {
    const text = [
      '',
      'productId,skuId,amount,ref',
      'p1,s1,x,"a',
      `b${eol}c"`,
      '',
      'p1,s1,y,"d\ne\rf"',
      'p1,s1,z,g',
    ].join(eol);
    const r = await parse(text);
    expect(r.errors.map((e) => [e.line, e.row])).toEqual([
      [3, 1],
      [7, 2],
      [10, 3],
    ]);
  });
});
