/** A fresh externalRef, so a create whose answer is lost can be repeated safely (spec rule 10). */
export function generatedRef(random: () => number, prefix: string, digits: number): string {
  let hex = '';
  for (let i = 0; i < digits; i++) hex += Math.floor(random() * 16).toString(16);
  return `${prefix}${hex}`;
}
