/**
 * The sandbox's hosted payment page, the stand-in for the provider's page that an
 * invoice's `paymentUrl` and a checkout's `hostedPaymentUrl` point to. It serves deposits
 * and checkouts alike, and its forms do what a payer can do: pay in full, pay part (an
 * under-payment), or, for a deposit, let it expire. The forms post back to the page
 * (url-encoded, no script), which is an operator route: loopback only, and a post from
 * another origin is refused (loopback.ts), so no web page can pay for you. A post answers
 * 303 to the page showing its outcome (Post/Redirect/Get): a reload shows it again and
 * never pays twice.
 */
import * as z from 'zod';
import type { Core } from './context.js';
import { ApiError, notFound, validationError } from './errors.js';
import type { DepositState, OrderState } from './model.js';
import { customerPays, remainingAmount } from './payments.js';
import type { Result } from './router.js';
import { depositPays, expireDeposit } from './routes/deposits.js';
import { parse } from './validation.js';

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** What the page is about: a deposit or a retailer checkout, by id. */
type Subject = { kind: 'deposit'; deposit: DepositState } | { kind: 'checkout'; order: OrderState };

function subjectOf(core: Core, id: string): Subject {
  const deposit = core.store.deposits.get(id);
  if (deposit) return { kind: 'deposit', deposit };
  const order = core.store.orders.get(id);
  if (order?.surface === 'retailer') return { kind: 'checkout', order };
  throw notFound(id.startsWith('dep_') ? 'Deposit' : 'Checkout');
}

function form(id: string, action: string, label: string, amountInput?: string): string {
  const input = amountInput
    ? `<label>Amount (${esc(amountInput)}) <input type="number" name="amount" step="any" min="0" required></label> `
    : '';
  return `<form method="post" action="/_sandbox/pay/${esc(encodeURIComponent(id))}"><input type="hidden" name="action" value="${esc(action)}">${input}<button>${esc(label)}</button></form>`;
}

/**
 * Readable on a phone as on a desktop: the device's width, one column of at most 36
 * characters' worth of ems, and ids, amounts and the script paths broken anywhere rather
 * than pushing the page sideways. Inline and self-contained: the sandbox serves offline.
 */
const STYLE = `<style>
body { font: 16px/1.5 system-ui, sans-serif; max-width: 36em; margin: 0 auto; padding: 1em; }
h1 { font-size: 1.4em; line-height: 1.25; }
p, code, label, button { overflow-wrap: anywhere; }
form { margin: 1em 0; display: flex; flex-wrap: wrap; gap: .5em; align-items: end; }
label { display: flex; flex-direction: column; flex: 1 1 12em; min-width: 0; }
input, button { font: inherit; padding: .5em .75em; max-width: 100%; box-sizing: border-box; }
button { cursor: pointer; }
</style>`;

function depositBody(core: Core, d: DepositState): string {
  const p = d.payment;
  const due = p ? core.rates.round(Math.max(0, p.expectedAmount - p.sentAmount), p.currency) : d.amount;
  const currency = p?.currency ?? 'USD';
  const lines = [
    `<p>Deposit <code>${esc(d.depositId)}</code>: credits ${esc(d.amount.toFixed(2))} USD to the balance. Status: <strong>${esc(d.status)}</strong>.</p>`,
  ];
  if (p && p.sentAmount > 0 && d.status === 'pending')
    lines.push(
      `<p>Received so far: ${esc(`${p.sentAmount} ${currency}`)}; still due: ${esc(`${due} ${currency}`)}.</p>`,
    );
  if (d.status === 'pending') {
    lines.push(
      form(d.depositId, 'pay', `Pay in full (${due} ${currency})`),
      form(d.depositId, 'pay-part', 'Pay part (an under-payment)', currency),
      form(d.depositId, 'expire', 'Let it expire now (nothing is credited)'),
    );
  }
  lines.push(
    `<p>Follow it with <code>giftcodes deposit get ${esc(d.depositId)} --wait</code>. Scripts: <code>POST /_sandbox/deposits/${esc(d.depositId)}/pay</code> (<code>{"amount": n}</code> for part), <code>/confirm</code>, <code>/expire</code>, <code>/fail</code>.</p>`,
  );
  return lines.join('\n');
}

function checkoutBody(core: Core, order: OrderState): string {
  const lines = [
    `<p>Checkout <code>${esc(order.checkoutId)}</code>: ${esc(`${order.totalAmount} ${order.paymentCurrency}`)}. Status: <strong>${esc(order.status)}</strong>.</p>`,
  ];
  if (order.status === 'pending') {
    const due = remainingAmount(core, order);
    lines.push(
      form(order.checkoutId, 'pay', `Pay in full (${due} ${order.paymentCurrency})`),
      form(order.checkoutId, 'pay-part', 'Pay part (an under-payment)', 'the invoice currency'),
    );
  }
  lines.push(
    `<p>Scripts: <code>POST /_sandbox/checkouts/${esc(order.checkoutId)}/pay</code> (<code>{"amount": n}</code> for part).</p>`,
  );
  return lines.join('\n');
}

function render(core: Core, subject: Subject, notice?: string): Result {
  const body =
    subject.kind === 'deposit' ? depositBody(core, subject.deposit) : checkoutBody(core, subject.order);
  const title = 'Sandbox hosted payment page';
  return {
    status: 200,
    html: `<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title>${STYLE}<h1>${title}</h1>\n${notice ? `<p><em>${esc(notice)}</em></p>\n` : ''}${body}\n`,
  };
}

/** The page; `?outcome` (where a post redirects) adds what the last post did. Never acts. */
export function payPage(core: Core, id: string, query: URLSearchParams): Result {
  const subject = subjectOf(core, id);
  return render(core, subject, query.has('outcome') ? core.store.payOutcomes.get(id) : undefined);
}

const FormBody = z.object({
  action: z.enum(['pay', 'pay-part', 'expire']),
  amount: z.coerce.number().positive().optional(),
});

/**
 * A form of the page was posted: act (or be refused), then send the browser to the page
 * with what happened, so a reload reads the page and never posts the form again.
 */
export function payPageAction(core: Core, id: string, body: unknown): Result {
  const subject = subjectOf(core, id);
  const input = parse(FormBody, body);
  let outcome: string;
  try {
    outcome = act(core, subject, input);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    outcome = `Refused: ${error.message}.`;
  }
  core.store.payOutcomes.set(id, outcome);
  return {
    status: 303,
    headers: { location: `/_sandbox/pay/${encodeURIComponent(id)}?outcome` },
    html: '',
  };
}

/** What a form does, and the sentence the page shows for it. */
function act(core: Core, subject: Subject, input: z.infer<typeof FormBody>): string {
  if (input.action === 'pay-part' && input.amount === undefined)
    throw validationError('amount is required to pay part', { field: 'amount', reason: 'required' });
  const amount = input.action === 'pay-part' ? input.amount : undefined;
  if (subject.kind === 'deposit') {
    const d = subject.deposit;
    if (input.action === 'expire') expireDeposit(core, d);
    else depositPays(core, d, amount);
    return `Deposit ${d.depositId} is now ${d.status}.`;
  }
  if (input.action === 'expire')
    throw validationError('a checkout expires by itself when never paid', {
      field: 'action',
      reason: 'invalid',
    });
  customerPays(core, subject.order, amount);
  return `Payment received for checkout ${subject.order.checkoutId}.`;
}
