/**
 * `giftcodes api -f key=value`: what each field puts in the request. Values are typed as
 * JSON would have them (`25` a number, `true`/`false`, `null`, `"25"` a string kept as
 * text, `@file` the JSON value in a file, anything else a string); keys may reach into
 * the body (`items[0].quantity`, `payment.paymentMethodId`). Pure but for the reader of
 * `@file`, which the caller hands in.
 */
import { isRecord } from '../../api/shapes.js';
import { UsageError } from '../../errors.js';
import { plural } from '../../io/format.js';

export type Segment = string | number;

export interface Field {
  /** As typed, for messages: `items[0].quantity=2`. */
  text: string;
  key: string;
  path: Segment[];
  raw: string;
}

/** `name`, then `.name` or `[index]` any number of times. */
const KEY = /^[^.[\]=]+(?:\.[^.[\]=]+|\[\d+\])*$/;

export function parseField(text: string): Field {
  const eq = text.indexOf('=');
  if (eq < 1) throw new UsageError(`-f ${text}: expected key=value (for example -f amount=25)`);
  const key = text.slice(0, eq);
  if (!KEY.test(key))
    throw new UsageError(`-f ${text}: "${key}" is not a key: use name, name.inner or name[0]`);
  const path: Segment[] = [];
  for (const [, name, index] of key.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) path.push(name ?? Number(index));
  return { text, key, path, raw: text.slice(eq + 1) };
}

/** A JSON number as typed; digits that a double cannot hold exactly are refused, not rounded. */
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** The value a field's text stands for. `read` gives the text of an `@file`. */
export async function typedValue(field: Field, read: (path: string) => Promise<string>): Promise<unknown> {
  const { raw, text } = field;
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  if (raw === 'null') return null;
  if (NUMBER.test(raw)) {
    const value = Number(raw);
    if (/^-?\d+$/.test(raw) && !Number.isSafeInteger(value))
      throw new UsageError(
        `-f ${text}: ${raw} is too large to send exactly as a number; to send it as text, quote it: -f '${field.key}="${raw}"'`,
      );
    return value;
  }
  if (raw.startsWith('"')) return jsonOf(raw, `-f ${text}: the quoted text`);
  if (raw.startsWith('@')) {
    const path = raw.slice(1);
    if (path === '') throw new UsageError(`-f ${text}: name the file after @ (for example @items.json)`);
    return jsonOf(await read(path), `-f ${text}: ${path}`);
  }
  return raw;
}

/** `text` parsed as JSON, or a usage error naming `what` held it (`--input body.json: the body`). */
export function jsonOf(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${what} is not valid JSON (${(error as Error).message})`);
  }
}

/** What a value is, for a message about a key that cannot go inside it. */
function kind(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/**
 * `body` with the field's value set at its path, the objects and lists on the way made
 * as needed. A list grows one element at a time (`items[0]`, then `items[1]`): a gap
 * would be sent as null elements nobody typed.
 */
export function setField(body: unknown, field: Field, value: unknown): Record<string, unknown> {
  const root = body === undefined ? {} : body;
  if (!isRecord(root)) throw new UsageError(`-f ${field.text}: the body is ${kind(root)}, not an object`);
  let node: unknown = root;
  field.path.forEach((segment, i) => {
    const last = i === field.path.length - 1;
    const next = field.path[i + 1];
    const where = field.path
      .slice(0, i)
      .reduce<string>((text, s) => (typeof s === 'number' ? `${text}[${s}]` : text ? `${text}.${s}` : s), '');
    const child = () => (typeof next === 'number' ? [] : {});
    if (typeof segment === 'number') {
      if (!Array.isArray(node))
        throw new UsageError(`-f ${field.text}: ${where} is ${kind(node)}, not a list`);
      if (segment > node.length)
        throw new UsageError(
          `-f ${field.text}: ${where} has ${plural(node.length, 'element')}: set ${where}[${node.length}] first`,
        );
      if (last) node[segment] = value;
      else node[segment] ??= child();
      node = node[segment];
      return;
    }
    if (!isRecord(node)) throw new UsageError(`-f ${field.text}: ${where} is ${kind(node)}, not an object`);
    // defineProperty and hasOwn: a key such as `__proto__` is a key like any other.
    const own = Object.hasOwn(node, segment) ? node[segment] : undefined;
    const put = last ? value : (own ?? child());
    Object.defineProperty(node, segment, {
      value: put,
      enumerable: true,
      writable: true,
      configurable: true,
    });
    node = put;
  });
  return root;
}

/** GET and DELETE send fields as the query: plain names, the text as typed. */
export function queryOf(fields: readonly Field[]): Record<string, string> {
  const query: Record<string, string> = {};
  for (const field of fields) {
    if (field.path.length !== 1)
      throw new UsageError(`-f ${field.text}: a query parameter is a plain name, not ${field.key}`);
    Object.defineProperty(query, field.key, {
      value: field.raw,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return query;
}
