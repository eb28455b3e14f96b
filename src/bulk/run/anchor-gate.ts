/**
 * The anchor rule (ARCHITECTURE.md, "The anchor"): no order of a batch is sent until
 * the service has answered that the batch's anchor exists. The discovery of a batch
 * whose journal is lost relies on it: "no anchor on the account" proves "nothing of the
 * batch was sent". One pure rule, so it is tested (and mutation-tested) on its own.
 */
import type { OrderPhase } from '../store/index.js';

/**
 * Is `order` held back by the anchor? Never the anchor itself, never in a plan without
 * one (journal version 1); every other order until the anchor's create was answered
 * (`created`). A split anchor cannot happen (one unit), and is held like any other phase.
 */
export function heldByAnchor(
  anchor: { readonly ref: string; readonly phase: OrderPhase } | undefined,
  order: { readonly ref: string },
): boolean {
  if (!anchor || order.ref === anchor.ref) return false;
  return anchor.phase !== 'created';
}
