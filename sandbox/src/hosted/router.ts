// Hosted pages under /paynet: the card or destination form of sale-form, preauth-form,
// payment-form, account-verification-form and payout-form; the ACS page of a 3-D Secure
// challenge; the 3DS Method page. Plain HTML forms, validated on the server.
import express, { type Request, type Response } from 'express';
import { formDecode, formatMinorUnits } from '@paydesk/shared/protocol';
import { z } from 'zod';
import type { Engine } from '../gateway/engine.js';
import { cardData, isExpired } from '../gateway/cards.js';
import { f } from '../gateway/fields.js';
import { GATEWAY_PREFIX } from '../gateway/router.js';
import { GatewayError } from '../http/gateway-error.js';
import type { Clock } from '../clock.js';
import type { Order } from '../state/types.js';
import { escapeHtml, originOf, sendPage } from './html.js';

const cardForm = z.object({
  credit_card_number: f.cardNumber(),
  card_printed_name: f.text(128).min(1, 'is required'),
  expire_month: f.expireMonth(),
  expire_year: f.expireYear(),
  cvv2: f.cvv2(),
});

const destinationForm = cardForm.omit({ cvv2: true });

const LABELS: Record<string, string> = {
  credit_card_number: 'Card number',
  card_printed_name: 'Name on card',
  expire_month: 'Expiry month (MM)',
  expire_year: 'Expiry year (YYYY)',
  cvv2: 'CVV',
};

type Problems = Record<string, string>;

function formFields(body: unknown): Record<string, string> {
  const fields: Record<string, string> = {};
  if (typeof body !== 'string') return fields;
  for (const [name, value] of formDecode(body)) if (value !== '') fields[name] = value.trim();
  return fields;
}

/**
 * A card number as people type it, in groups: "4111 1111 1111 1111" or "4111-1111-1111-1111" is
 * the digits alone; anything else stays as typed, for the card number's rules to refuse.
 */
function typedCardNumber(text: string): string {
  return /^\d+(?:[ -]+\d+)*$/.test(text) ? text.replace(/[ -]/g, '') : text;
}

function check(schema: z.ZodType, fields: Record<string, string>, clock: Clock): Problems {
  const problems: Problems = {};
  const parsed = schema.safeParse(fields);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const name = String(issue.path[0] ?? 'form');
      problems[name] ??= issue.message;
    }
  }
  const month = fields.expire_month;
  const year = fields.expire_year;
  if (
    month !== undefined &&
    year !== undefined &&
    problems.expire_year === undefined &&
    isExpired(month, year, clock.now())
  ) {
    problems.expire_year = 'the card has expired';
  }
  return problems;
}

function summary(order: Order): string {
  const what =
    order.form?.kind === 'payout-form'
      ? 'Payout'
      : order.kind === 'account-verification'
        ? 'Card verification'
        : 'Payment';
  const amount =
    order.amountMinor > 0n
      ? `${formatMinorUnits(order.amountMinor)} ${order.currency}`
      : 'no charge';
  return `<div class="summary"><div>${escapeHtml(what)}: <strong>${escapeHtml(amount)}</strong></div><div>Order ${escapeHtml(order.clientOrderId)}${order.orderDesc ? ` — ${escapeHtml(order.orderDesc)}` : ''}</div></div>`;
}

function formPage(
  res: Response,
  order: Order,
  action: string,
  values: Record<string, string>,
  problems: Problems,
  status: number,
): void {
  const payout = order.form?.kind === 'payout-form';
  const names = payout
    ? ['credit_card_number', 'card_printed_name', 'expire_month', 'expire_year']
    : Object.keys(LABELS);
  const inputs = names
    .map((name) => {
      const label =
        name === 'credit_card_number' && payout
          ? 'Destination card number'
          : (LABELS[name] ?? name);
      const value = name === 'cvv2' || name === 'credit_card_number' ? '' : (values[name] ?? '');
      const error = problems[name]
        ? `<div class="error" id="${name}-error">${escapeHtml(problems[name])}</div>`
        : '';
      const autocomplete =
        {
          credit_card_number: 'cc-number',
          card_printed_name: 'cc-name',
          expire_month: 'cc-exp-month',
          expire_year: 'cc-exp-year',
          cvv2: 'cc-csc',
        }[name] ?? 'off';
      return `<label for="${name}">${escapeHtml(label)}</label><input id="${name}" name="${name}" value="${escapeHtml(value)}" autocomplete="${autocomplete}" required${error ? ` aria-describedby="${name}-error" aria-invalid="true"` : ''}>${error}`;
    })
    .join('');
  const title = payout
    ? 'Payout destination'
    : order.kind === 'account-verification'
      ? 'Verify your card'
      : 'Pay by card';
  const button = payout
    ? 'Send payout'
    : order.kind === 'account-verification'
      ? 'Verify card'
      : 'Pay';
  sendPage(
    res,
    status,
    title,
    `${summary(order)}<form method="POST" action="${escapeHtml(action)}">${inputs}<button type="submit">${button}</button></form>`,
    originOf(order.redirectUrl),
  );
}

export function hostedRouter(engine: Engine, clock: Clock): express.Router {
  const router = express.Router();
  const body = express.text({ type: 'application/x-www-form-urlencoded', limit: '16kb' });

  const load = (req: Request, res: Response): Order | undefined => {
    const order = engine.orderForPage(String(req.params.orderid), String(req.params.token));
    if (!order)
      sendPage(
        res,
        404,
        'Page not found',
        '<p>This payment page does not exist or its address is incomplete.</p>',
      );
    return order;
  };

  const pagePath = `${GATEWAY_PREFIX}/hosted/:orderid/:token`;

  router.get(pagePath, (req, res) => {
    const order = load(req, res);
    if (!order) return;
    if (!order.form) {
      sendPage(res, 404, 'Page not found', '<p>This order has no hosted page.</p>');
      return;
    }
    if (order.form.submitted) {
      sendPage(
        res,
        409,
        'Already submitted',
        `<p>This form was already submitted.</p><p><a href="${escapeHtml(engine.returnUrl(order))}">Return to the shop</a></p>`,
      );
      return;
    }
    formPage(res, order, req.originalUrl, {}, {}, 200);
  });

  router.post(pagePath, body, (req, res) => {
    const order = load(req, res);
    if (!order?.form) return;
    if (order.form.submitted) {
      sendPage(res, 409, 'Already submitted', '<p>This form was already submitted.</p>');
      return;
    }
    const fields = formFields(req.body);
    if (fields.credit_card_number !== undefined)
      fields.credit_card_number = typedCardNumber(fields.credit_card_number);
    const payout = order.form.kind === 'payout-form';
    const problems = check(payout ? destinationForm : cardForm, fields, clock);
    if (Object.keys(problems).length > 0) {
      formPage(res, order, req.originalUrl, fields, problems, 400);
      return;
    }
    const card = cardData(
      fields.credit_card_number ?? '',
      fields.card_printed_name ?? '',
      fields.expire_month ?? '',
      fields.expire_year ?? '',
    );
    const next = payout
      ? engine.submitPayoutForm(order, { kind: 'card', card })
      : engine.submitCardForm(order, card);
    res.redirect(303, next);
  });

  router.get(`${pagePath}/done`, (req, res) => {
    const order = load(req, res);
    if (!order) return;
    sendPage(
      res,
      200,
      'Submitted',
      `<p>Order ${escapeHtml(order.clientOrderId)} was submitted. You may close this page.</p>`,
    );
  });

  const acsPath = `${GATEWAY_PREFIX}/acs/:orderid/:token`;

  router.get(acsPath, (req, res) => {
    const order = load(req, res);
    if (!order) return;
    if (order.threeDs?.step !== 'challenge' || order.threeDs.acsResult !== undefined) {
      sendPage(
        res,
        409,
        'No challenge waiting',
        '<p>This 3-D Secure challenge is already complete.</p>',
      );
      return;
    }
    const version = order.threeDs.flow === '3ds1' ? '3-D Secure 1.0.2' : '3-D Secure 2';
    sendPage(
      res,
      200,
      'Confirm this payment',
      `${summary(order)}<p>Your bank asks you to confirm this payment (${version}, card ending ${escapeHtml(order.card?.lastFour ?? '')}).</p><form method="POST" action="${escapeHtml(req.originalUrl)}"><button type="submit" name="result" value="Y">Approve</button><button type="submit" name="result" value="N">Fail authentication</button></form>`,
      // A hosted flow's answer redirects to the merchant: form-action covers redirects too.
      originOf(order.redirectUrl),
    );
  });

  router.post(acsPath, body, (req, res) => {
    const order = load(req, res);
    if (!order) return;
    const result = formFields(req.body).result;
    if (result !== 'Y' && result !== 'N') {
      sendPage(res, 400, 'Choose an answer', '<p>Choose Approve or Fail authentication.</p>');
      return;
    }
    try {
      engine.acsResult(order, result);
    } catch (error) {
      if (error instanceof GatewayError) {
        sendPage(res, 409, 'No challenge waiting', `<p>${escapeHtml(error.message)}</p>`);
        return;
      }
      throw error;
    }
    if (order.threeDs?.hosted) {
      res.redirect(303, engine.returnUrl(order));
      return;
    }
    // Back to the merchant with the authentication result, which the merchant uploads.
    const is1 = order.threeDs?.flow === '3ds1';
    const payload = is1
      ? { orderid: order.orderid, status: result }
      : {
          messageType: 'CRes',
          messageVersion: '2.2.0',
          threeDSServerTransID: order.orderid,
          acsTransID: order.pageToken,
          transStatus: result,
        };
    const encoded = Buffer.from(JSON.stringify(payload)).toString('base64');
    const name = is1 ? 'PaRes' : 'cres';
    const target = order.redirectUrl ?? '';
    sendPage(
      res,
      200,
      'Authentication complete',
      `<p>Authentication ${result === 'Y' ? 'succeeded' : 'failed'}. Continue to return to the shop.</p><form method="POST" action="${escapeHtml(target)}"><input type="hidden" name="${name}" value="${escapeHtml(encoded)}"><input type="hidden" name="MD" value="${escapeHtml(order.orderid)}"><input type="hidden" name="orderid" value="${escapeHtml(order.orderid)}"><input type="hidden" name="client_orderid" value="${escapeHtml(order.clientOrderId)}"><button type="submit">Continue</button></form>`,
      originOf(target),
    );
  });

  router.get(`${GATEWAY_PREFIX}/3ds-method/:orderid/:token`, (req, res) => {
    const order = load(req, res);
    if (!order) return;
    sendPage(
      res,
      200,
      '3DS Method',
      `<p>The issuer's 3DS Method step for order ${escapeHtml(order.clientOrderId)}. The merchant reports its result with upload-method-url-result (threeDSCompInd Y, N or U); after 10 seconds without it the step counts as N.</p>`,
    );
  });

  return router;
}
