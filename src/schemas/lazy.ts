/**
 * A schema built on its first use instead of when its module loads (issue 25). zod's
 * classic schemas attach their methods to every instance as they are built, so a module
 * of a dozen object schemas costs milliseconds to load, and a command reads one or two of
 * them (`order get` parses an order, not a checkout or a payment). The value stands in
 * for the schema in every way zod and the callers use one (properties, methods, `z.infer`,
 * `instanceof`, nesting in another schema): each access goes to the schema, built once.
 */
export function lazySchema<T extends object>(build: () => T): T {
  let built: T | undefined;
  const schema = (): T => {
    built ??= build();
    return built;
  };
  return new Proxy({} as T, {
    get: (_, key) => Reflect.get(schema(), key),
    set: (_, key, value) => Reflect.set(schema(), key, value),
    has: (_, key) => Reflect.has(schema(), key),
    ownKeys: () => Reflect.ownKeys(schema()),
    getOwnPropertyDescriptor: (_, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(schema(), key);
      // The stand-in itself holds no property: the proxy rules require it to report
      // one it lacks as configurable.
      return descriptor && { ...descriptor, configurable: true };
    },
    defineProperty: (_, key, descriptor) => Reflect.defineProperty(schema(), key, descriptor),
    deleteProperty: (_, key) => Reflect.deleteProperty(schema(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(schema()),
  });
}
