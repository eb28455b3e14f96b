/**
 * One account's orders of one surface as the list routes page them (kept-list.ts), and
 * by `externalRef`: the exact look-ups the CLI makes (`GET /b2b/orders?externalRef=`) find
 * their order without walking the account's history.
 */
import { KeptList } from './kept-list.js';
import type { OrderState } from './state.js';

export class OrderList extends KeptList<OrderState> {
  /**
   * By externalRef: the order, or the orders in the order added when a ref came twice
   * (the operator's history twice on one account; creates replay a ref instead).
   */
  private readonly refs = new Map<string, OrderState | OrderState[]>();

  constructor() {
    super((o) => o.totalAmount);
  }

  /** The orders carrying `ref`, in the order added. */
  withRef(ref: string): OrderState[] {
    const found = this.refs.get(ref);
    return found === undefined ? [] : Array.isArray(found) ? [...found] : [found];
  }

  override add(order: OrderState): void {
    super.add(order);
    const ref = order.externalRef;
    if (ref === null) return;
    const found = this.refs.get(ref);
    if (found === undefined) this.refs.set(ref, order);
    else if (Array.isArray(found)) found.push(order);
    else this.refs.set(ref, [found, order]);
  }
}
