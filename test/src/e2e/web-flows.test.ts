// The back-office in a real browser: Debian's Chromium (playwright-core) against the real BFF and
// sandbox processes this suite starts. Support looks orders up, and follows the orders live in eight
// tabs at once (one event stream for all of them); finance returns part of a sale
// twice and is stopped on a third return above the rest; finance captures part of a preauth and
// voids another; one ops user prepares a payout that only a second one can approve, and it is
// paid; an auditor finds all of it in the audit log, whose chain verifies; an admin resets a
// forgotten password, and its user must choose their own before anything else. Each flow saves a
// screenshot in test/e2e/screenshots/. The assertions are on what people see, with cross-checks
// of the sandbox's own totals that the money moved exactly as intended; axe-core checks one
// screen of each kind as Chromium renders it, and no page may log an error.
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  launchChromium,
  screenshot,
  seriousViolations,
  pageOverflow,
  sidewaysOverflow,
  signIn,
  type Session,
} from '../../e2e/support/browser.js';
import { startStack, type PlacedOrder, type Stack, type User } from '../../e2e/support/stack.js';

const chromiumPath = process.env.PAYDESK_CHROMIUM;

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const exactly = (text: string) => new RegExp(`^${escape(text)}$`);

/**
 * Saves the flow's screenshot (the viewport only while a dialog is open); with `axe`, the screen as
 * shown must have no serious or critical axe violation (checked once per kind of screen, as axe
 * takes a second or two a page).
 */
async function record(page: Page, name: string, options: { dialog?: boolean; axe?: boolean } = {}) {
  await screenshot(page, name, options.dialog !== true);
  if (options.axe === true) expect(await seriousViolations(page), name).toEqual([]);
}

/** The order page's header (title, status chips, type and stage) once it shows this order. */
async function orderHeader(page: Page, orderid: string): Promise<Locator> {
  const heading = page.getByRole('heading', { level: 1, name: `Order ${orderid}` });
  await heading.waitFor();
  return heading.locator('xpath=..');
}

/** The value of `label` in a panel of the order page (Amounts, Order, …), once it reads `value`. */
async function waitForFact(page: Page, panel: string, label: string, value: string) {
  await page
    .getByRole('region', { name: panel })
    .locator(`dt:text-is("${label}") + dd`)
    .filter({ hasText: exactly(value) })
    .waitFor();
}

/** Waits until the order's Operations table lists `count` rows of `operation` with `outcome`. */
async function waitForOperations(page: Page, operation: string, outcome: string, count = 1) {
  const rows = page
    .getByRole('table', { name: 'Operations' })
    .getByRole('row')
    .filter({ has: page.getByRole('cell', { name: operation, exact: true }) })
    .filter({ has: page.getByText(outcome, { exact: true }) });
  await rows.nth(count - 1).waitFor();
}

async function openOrder(page: Page, order: PlacedOrder): Promise<Locator> {
  // As a person would: search the transactions for the client order id, open the one found.
  await page.goto('/transactions');
  await page
    .getByRole('search', { name: 'Transaction filters' })
    .getByLabel('Search')
    .fill(order.clientOrderId);
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await page.getByRole('link', { name: `Order ${order.orderid}` }).click();
  return orderHeader(page, order.orderid);
}

async function partialReturn(page: Page, amount: string, reason: string, comment: string) {
  await page.getByRole('button', { name: 'Return', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Return' });
  await dialog.getByRole('radio', { name: 'Part' }).check();
  await dialog.getByLabel(/^Amount to return/).fill(amount);
  await dialog.getByLabel(/^Reason/).selectOption(reason);
  await dialog.getByLabel(/^Comment/).fill(comment);
  await dialog.getByRole('button', { name: 'Continue' }).click();
  const confirm = page.getByRole('dialog', { name: 'Confirm the return' });
  // The confirmation states the amount as every screen shows it; screen readers hear it in words.
  // (the words are in a visually hidden span, part of the question's text)
  const question = confirm.getByText(
    new RegExp(`^Return €${amount.replace('.', '\\.')}.* to the customer\\?$`),
  );
  await question.waitFor();
  expect(await question.textContent()).toContain(`${amount} euros`);
  await confirm.getByRole('button', { name: `Return €${amount}` }).click();
  await confirm.waitFor({ state: 'detached' });
}

describe.skipIf(chromiumPath === undefined)(
  'back-office in Chromium against the real BFF and sandbox (needs Chromium: set PAYDESK_CHROMIUM, as npm test does when /usr/bin/chromium exists)',
  () => {
    let stack: Stack;
    let browser: Browser;
    /** what beforeAll got started, for afterAll to stop even when beforeAll failed half-way */
    const started: { stack?: Stack; browser?: Browser } = {};
    const sessions: Session[] = [];
    const users = {} as Record<'support' | 'finance' | 'opsA' | 'opsB' | 'auditor', User>;
    const orders = {} as Record<'declined' | 'sale' | 'returns' | 'capture' | 'void', PlacedOrder>;

    async function as(user: User, path: string, landing = path): Promise<Page> {
      const session = await signIn(browser, stack.url, user, path, landing);
      sessions.push(session);
      return session.page;
    }

    beforeAll(async () => {
      const [s, b] = await Promise.allSettled([startStack(), launchChromium(chromiumPath ?? '')]);
      if (s.status === 'fulfilled') started.stack = s.value;
      if (b.status === 'fulfilled') started.browser = b.value;
      if (s.status === 'rejected') throw s.reason;
      if (b.status === 'rejected') throw b.reason;
      stack = s.value;
      browser = b.value;
      users.support = await stack.createUser('support', ['support']);
      users.finance = await stack.createUser('finance', ['finance']);
      users.opsA = await stack.createUser('ops-a', ['ops']);
      users.opsB = await stack.createUser('ops-b', ['ops']);
      users.auditor = await stack.createUser('auditor', ['auditor']);
      const [declined, sale, returns, capture, voided] = await Promise.all([
        stack.placeOrder('sale', '19.99', '4000000000000002'),
        stack.placeOrder('sale', '42.00'),
        stack.placeOrder('sale', '100.00'),
        stack.placeOrder('preauth', '120.00'),
        stack.placeOrder('preauth', '80.00'),
      ]);
      Object.assign(orders, { declined, sale, returns, capture, void: voided });
    });

    // Each flow's browser contexts close after it; a failed flow leaves a picture of its pages.
    let open = 0;
    afterEach(async (context) => {
      const failed = context.task.result?.state === 'fail';
      if (failed && started.stack) {
        // What the servers said: warnings, errors and anything that is not a JSON log line.
        const notable = started.stack
          .logs()
          .split('\n')
          .filter((line) => !line.includes('"level":') || /"level":(40|50|60)/.test(line));
        console.error(`last server log lines:\n${notable.slice(-40).join('\n')}`);
      }
      for (const [i, s] of sessions.slice(open).entries()) {
        const name = context.task.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 50);
        if (failed) await screenshot(s.page, `failed-${name}-${i}`);
        await s.context.close();
      }
      open = sessions.length;
    });

    afterAll(async () => {
      for (const s of sessions.slice(open)) await s.context.close();
      await started.browser?.close();
      await started.stack?.close();
    });

    it('when support looks an order up with Ctrl+K or the app bar, then its page shows its final status', async () => {
      const page = await as(users.support, '/transactions');
      await page.getByRole('table', { name: 'Transactions' }).waitFor();
      // On a 1366 px screen the list fits: no column is cut off behind a sideways scroll.
      expect(await sidewaysOverflow(page, 'Transactions')).toBe(0);
      // So it does on a 1280 px laptop (the type and endpoint under the amount), on a 1024 px
      // screen, where the navigation opens from the menu button instead of taking 232 px, and on an
      // 800 px tablet (the status under the order, the card under the customer).
      for (const width of [1280, 1024, 800]) {
        await page.setViewportSize({ width, height: 900 });
        await page.getByRole('table', { name: 'Transactions' }).waitFor();
        // Once the layout has followed the new width (a loaded machine renders it later).
        await expect
          .poll(() => sidewaysOverflow(page, 'Transactions'), {
            message: `at ${String(width)} px`,
            timeout: 5_000,
          })
          .toBe(0);
      }
      expect(await page.getByRole('button', { name: 'Open navigation' }).isVisible()).toBe(true);
      await page.setViewportSize({ width: 1366, height: 900 });
      await page.getByRole('button', { name: 'Open navigation' }).waitFor({ state: 'hidden' });

      await page.keyboard.press('Control+k');
      const dialog = page.getByRole('dialog', { name: 'Look up an order' });
      await dialog.getByLabel(/^Orderid or client order id/).fill(orders.declined.clientOrderId);
      await page.keyboard.press('Enter');
      let header = await orderHeader(page, orders.declined.orderid);
      await header.getByText('Declined', { exact: true }).waitFor();
      expect(await header.textContent()).toContain(`client order ${orders.declined.clientOrderId}`);
      await record(page, '1-support-lookup-declined', { axe: true });

      await page.getByRole('button', { name: /^Look up order/ }).click();
      await dialog.getByLabel(/^Orderid or client order id/).fill(orders.sale.orderid);
      await dialog.getByRole('button', { name: 'Look up' }).click();
      header = await orderHeader(page, orders.sale.orderid);
      await header.getByText('Approved', { exact: true }).waitFor();
      await waitForFact(page, 'Amounts', 'Order amount', '€42.00');
      await record(page, '1-support-lookup-approved');

      // The gateway's own record agrees.
      expect((await stack.sandboxOrder(orders.declined.orderid)).status).toBe('declined');
      expect((await stack.sandboxOrder(orders.sale.orderid)).status).toBe('approved');
    });

    it('when support opens the transactions in eight tabs, then every tab loads and is live, and a new order shows in each', async () => {
      // A browser holds six HTTP/1.1 connections to one host for all its tabs: with an event
      // stream per tab, the sixth tab's page would never load. The tabs share one stream.
      const first = await as(users.support, '/transactions');
      const session = sessions.at(-1);
      if (session === undefined) throw new Error('no session');
      const tabs = [first];
      for (let i = 1; i < 8; i += 1) tabs.push(await session.context.newPage());
      for (const [i, tab] of tabs.entries()) {
        if (i > 0) await tab.goto('/transactions');
        await tab.getByRole('table', { name: 'Transactions' }).waitFor();
        await tab.getByText('Live', { exact: true }).waitFor();
      }
      const placed = await stack.placeOrder('sale', '7.77');
      for (const tab of tabs) {
        await tab.getByRole('link', { name: `Order ${placed.orderid}` }).waitFor();
      }
      await record(tabs[7] ?? first, 'eight-tabs-live');
      for (const tab of tabs.slice(1)) await tab.close();
    });

    it('when finance returns part of a sale twice, then a third return above the rest is refused showing what remains', async () => {
      const page = await as(users.finance, '/transactions');
      await openOrder(page, orders.returns);
      await waitForFact(page, 'Amounts', 'Remaining returnable', '€100.00');

      await partialReturn(page, '30.00', 'customer_request', 'E2E: first partial return');
      await waitForFact(page, 'Amounts', 'Returned', '€30.00');
      await partialReturn(page, '45.50', 'product_unacceptable', 'E2E: second partial return');
      await waitForFact(page, 'Amounts', 'Returned', '€75.50');
      await waitForFact(page, 'Amounts', 'Remaining returnable', '€24.50');
      await waitForOperations(page, 'Return', 'Approved', 2);

      await page.getByRole('button', { name: 'Return', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: 'Return' });
      await dialog.getByRole('radio', { name: 'Part' }).check();
      await dialog.getByLabel(/^Amount to return/).fill('30.00');
      await dialog.getByLabel(/^Reason/).selectOption('customer_request');
      await dialog.getByLabel(/^Comment/).fill('E2E: more than what is left');
      await dialog.getByRole('button', { name: 'Continue' }).click();
      await dialog.getByText('At most the remaining returnable amount, €24.50.').waitFor();
      expect(await page.getByRole('dialog', { name: 'Confirm the return' }).count()).toBe(0);
      await record(page, '2-finance-return-over-rest', { dialog: true, axe: true });
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'detached' });

      // Exactly two returns reached the gateway, 30.00 and 45.50 of the 100.00 captured.
      const order = await stack.sandboxOrder(orders.returns.orderid);
      expect(order.capturedMinor).toBe('10000');
      expect(order.returnedMinor).toBe('7550');
      expect(
        order.operations.filter((o) => o.type === 'return').map((o) => [o.amountMinor, o.status]),
      ).toEqual([
        ['3000', 'approved'],
        ['4550', 'approved'],
      ]);
    });

    it('when finance captures part of one preauth and voids another, then the pages and the gateway show exactly that', async () => {
      const page = await as(users.finance, '/transactions');
      await openOrder(page, orders.capture);
      await waitForFact(page, 'Amounts', 'Remaining to capture', '€120.00');
      await page.getByRole('button', { name: 'Capture', exact: true }).click();
      const capture = page.getByRole('dialog', { name: 'Capture' });
      await capture.getByLabel(/^Amount to capture/).fill('50.00');
      await capture.getByText('€70.00 of the hold will be released.').waitFor();
      await capture.getByRole('button', { name: 'Continue' }).click();
      // A capture asks to confirm, naming the amount.
      const confirmCapture = page.getByRole('dialog', { name: 'Confirm the capture' });
      await confirmCapture.getByRole('button', { name: 'Capture €50.00' }).click();
      await confirmCapture.waitFor({ state: 'detached' });
      await waitForFact(page, 'Amounts', 'Captured', '€50.00');
      await waitForFact(page, 'Amounts', 'Remaining returnable', '€50.00');
      await waitForOperations(page, 'Capture', 'Approved');
      // One capture per preauth: it is not offered again.
      await page.getByRole('button', { name: 'Return', exact: true }).waitFor();
      expect(await page.getByRole('button', { name: 'Capture', exact: true }).count()).toBe(0);
      await record(page, '3-finance-captured');

      await openOrder(page, orders.void);
      await page.getByRole('button', { name: 'Void', exact: true }).click();
      const voiding = page.getByRole('dialog', { name: 'Void the order' });
      await voiding.getByText(/Void order \d+ for its whole amount, €80\.00\./).waitFor();
      await voiding.getByLabel(/^Comment/).fill('E2E: customer cancelled');
      await voiding.getByRole('button', { name: 'Continue' }).click();
      const confirmVoid = page.getByRole('dialog', { name: 'Confirm the void' });
      await confirmVoid.getByRole('button', { name: 'Void €80.00' }).click();
      await confirmVoid.waitFor({ state: 'detached' });
      const header = await orderHeader(page, orders.void.orderid);
      await header.getByText(/· voided ·/).waitFor();
      await waitForOperations(page, 'Void', 'Approved');
      expect(await page.getByRole('button', { name: 'Void', exact: true }).count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Capture', exact: true }).count()).toBe(0);
      await record(page, '3-finance-voided');

      const captured = await stack.sandboxOrder(orders.capture.orderid);
      expect([captured.authorizedMinor, captured.capturedMinor, captured.returnedMinor]).toEqual([
        '12000',
        '5000',
        '0',
      ]);
      const voided = await stack.sandboxOrder(orders.void.orderid);
      expect([voided.voided, voided.orderStage, voided.capturedMinor]).toEqual([
        true,
        'voided',
        '0',
      ]);
    });

    it('when ops user A prepares a payout, then A cannot approve it and B approves it and it is paid', async () => {
      // With an invoice number no line can break in, as staff paste them (QA: such a value pushed
      // the payout's page wider than the screen, under Approve and Reject).
      const description = `E2E payout ${Date.now().toString(36)} INV-${'X'.repeat(150)}`;
      const a = await as(users.opsA, '/payouts');
      await a.getByRole('button', { name: 'Prepare payout' }).click();
      const prepare = a.getByRole('dialog', { name: 'Prepare a payout' });
      await prepare.getByLabel(/^Card number/).fill('4111111111111111');
      await prepare.getByLabel(/^Cardholder name/).fill('E2E PAYEE');
      await prepare.getByLabel(/^Expiry month/).fill('12');
      await prepare.getByLabel(/^Expiry year/).fill(String(new Date().getUTCFullYear() + 2));
      await prepare.getByLabel(/^Amount/).fill('25.00');
      await prepare.getByLabel(/^Description/).fill(description);
      await prepare.getByRole('button', { name: 'Check and submit for approval' }).click();
      await prepare.waitFor({ state: 'detached' });

      // A's own payout waits for someone else. Prepared from the approval queue, the list turns
      // to "Prepared by me", where it is, with no Approve on A's row (waiting for the queue's
      // empty text first raced that switch).
      await a.getByRole('tab', { name: 'Prepared by me', selected: true }).waitFor();
      const mine = a.getByRole('row').filter({ hasText: description });
      await mine.getByText('Awaiting approval', { exact: true }).waitFor();
      await mine.getByText('Yours: another ops user approves').waitFor();
      expect(await mine.getByRole('button', { name: /approve/i }).count()).toBe(0);
      await record(a, '4-ops-a-cannot-approve', { axe: true });
      // ... and nothing for A to approve.
      await a.getByRole('tab', { name: 'Awaiting my approval' }).click();
      await a.getByText('Nothing waits for your approval.').waitFor();

      const b = await as(users.opsB, '/payouts');
      const waiting = b.getByRole('row').filter({ hasText: description });
      await waiting.getByText(users.opsA.email).waitFor();
      // Both decisions show without scrolling the queue sideways.
      expect(await sidewaysOverflow(b, 'Payouts')).toBe(0);
      await waiting.getByRole('button', { name: 'Reject' }).waitFor();
      await waiting.getByRole('button', { name: 'Approve' }).click();
      const approve = b.getByRole('dialog', { name: 'Approve the payout' });
      await approve.getByText(/^Pay €25\.00.* to 411111\*+1111\?$/).waitFor();
      const clientOrderId = (
        (await approve.locator('dt:text-is("Client order id") + dd').textContent()) ?? ''
      ).trim();
      await record(b, '4-ops-b-approves', { dialog: true, axe: true });
      await approve.getByRole('button', { name: 'Approve and pay €25.00' }).click();
      await approve.waitFor({ state: 'detached' });

      // payout-pay runs at the gateway; its callback and the BFF's status check finish it, and the
      // open list follows (live payout events), with no reload.
      await b.getByRole('tab', { name: 'All payouts' }).click();
      const done = b.getByRole('row').filter({ hasText: description });
      await done.getByText('Paid', { exact: true }).waitFor({ timeout: 30_000 });
      // the approver reads their own decision as "you"
      await done.getByText('Approved by you').waitFor();
      await record(b, '4-ops-payout-paid');

      // Its page tells the whole story: who prepared and approved it, every gateway exchange.
      await done.getByRole('link', { name: description }).click();
      await b.getByRole('heading', { name: 'Payout of €25.00' }).waitFor();
      expect(await pageOverflow(b), 'the payout page is no wider than the screen').toBe(0);
      const timeline = b.getByRole('list', { name: 'Timeline' });
      // (Titles start with a capital on screen.)
      for (const title of [
        "Payout prepared; payee's details sent to the gateway for checking",
        'Payout approved',
        'Payment of the checked payout',
      ])
        await timeline.getByText(title, { exact: true }).waitFor();
      await timeline.getByText(users.opsB.email, { exact: false }).first().waitFor();
      await record(b, '4-ops-payout-detail', { axe: true });
      await b.getByRole('link', { name: 'its order in Transactions' }).click();
      const orders = b.getByRole('table', { name: 'Transactions' });
      await orders.getByText(clientOrderId, { exact: true }).waitFor();
      // ... and back: the order's page leads to the payout.
      await orders
        .getByRole('link', { name: /^Order / })
        .first()
        .click();
      await b.getByRole('link', { name: 'the payout, its approvals and timeline' }).click();
      await b.getByRole('heading', { name: 'Payout of €25.00' }).waitFor();

      const callback = (await stack.callbacks()).find(
        (c) => c.params.client_orderid === clientOrderId && c.params.type === 'payout',
      );
      expect(callback?.params.status).toBe('approved');
      const paid = await stack.sandboxOrder(callback?.orderid ?? '');
      expect([paid.status, paid.orderStage, paid.amountMinor]).toEqual([
        'approved',
        'paid',
        '2500',
      ]);
    });

    it('when an auditor opens the audit log, then every action above is there and the chain verifies', async () => {
      const page = await as(users.auditor, '/audit');
      await page
        .getByRole('status')
        .getByText(/^Chain verified up to row \d+$/)
        .waitFor();
      await page.getByRole('table', { name: 'Audit log' }).waitFor();
      // Every column, the details last, shows without scrolling sideways, on a laptop's 1280 px
      // too (the outcome under the action).
      expect(await sidewaysOverflow(page, 'Audit log')).toBe(0);
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.getByRole('columnheader', { name: 'Action and outcome' }).waitFor();
      expect(await sidewaysOverflow(page, 'Audit log')).toBe(0);
      await page.setViewportSize({ width: 1366, height: 900 });
      await record(page, '5-auditor-audit-log', { axe: true });

      const expected: [action: string, actor: string, rows: number][] = [
        ['transaction.lookup', users.support.email, 2],
        ['transaction.return', users.finance.email, 2],
        ['transaction.capture', users.finance.email, 1],
        ['transaction.void', users.finance.email, 1],
        ['payout.prepare', users.opsA.email, 1],
        ['payout.approve', users.opsB.email, 1],
      ];
      const filters = page.getByRole('form', { name: 'Audit filters' });
      for (const [action, actor, rows] of expected) {
        await filters.getByLabel('Action').fill(action);
        await filters.getByRole('button', { name: 'Apply filters' }).click();
        await page.getByText(`${rows} ${rows === 1 ? 'row' : 'rows'} match`).waitFor();
        const table = page.getByRole('table', { name: 'Audit log' });
        const found = table.getByRole('row').filter({ hasText: action });
        await found.first().waitFor();
        expect(await found.count(), action).toBe(rows);
        for (const row of await found.all()) {
          expect(await row.textContent(), action).toContain(actor);
          // the outcome as the filter says it (the audit log says actions and outcomes in words)
          expect(await row.textContent(), action).toContain('Success');
        }
        if (action === 'transaction.return') await record(page, '5-auditor-returns');
      }

      // The badge verifies the chain again, now that the filters' reads are in it too.
      await page.getByRole('button', { name: 'Verify the chain again' }).click();
      await page
        .getByRole('status')
        .getByText(/^Chain verified up to row \d+$/)
        .waitFor();

      const errors = sessions.flatMap((s) => s.errors);
      expect(errors).toEqual([]);
    });

    it('when an admin resets the password of a user who forgot it, then the user signs in with it, must choose their own first, and then reaches the page they wanted', async () => {
      const opened = sessions.length;
      const forgetful = await stack.createUser('forgetful', ['support']);
      const temporary = `e2e-temporary-${String(Date.now())}`;
      const admin = await as(stack.admin, '/users');
      await admin.getByRole('button', { name: `Reset password of ${forgetful.email}` }).click();
      const form = admin.getByRole('dialog', { name: 'Reset password' });
      await form.getByLabel(/New temporary password/).fill(temporary);
      await form.getByLabel(/^Reason/).fill('Forgot it; asked in person');
      await form.getByRole('button', { name: 'Continue' }).click();
      const confirm = admin.getByRole('dialog', {
        name: `Reset the password of ${forgetful.email}?`,
      });
      await confirm.getByRole('button', { name: 'Reset password' }).click();
      const done = admin.getByRole('dialog', { name: 'Password reset' });
      await done
        .getByRole('status')
        .getByText(/at their next sign-in they must choose their own password/)
        .waitFor();
      await record(admin, '6-admin-reset-password', { dialog: true, axe: true });
      await done.getByRole('button', { name: 'Done' }).click();
      await admin
        .getByRole('table', { name: 'Users' })
        .getByRole('row')
        .filter({ hasText: forgetful.email })
        .getByText('Temporary password', { exact: true })
        .waitFor();

      // Signing in with it leads to "Choose your password", and nowhere else, first.
      const user = await as(
        { ...forgetful, password: temporary },
        '/transactions',
        '/choose-password',
      );
      expect(new URL(user.url()).searchParams.get('next')).toBe('/transactions');
      await user.getByRole('heading', { level: 1, name: 'Choose your password' }).waitFor();
      expect(await user.getByRole('navigation').count()).toBe(0);
      await record(user, '6-choose-password', { axe: true });
      const own = `e2e-own-${String(Date.now())}`;
      await user.getByLabel(/Current \(temporary\) password/).fill(temporary);
      await user.getByLabel(/^New password/).fill(own);
      await user.getByLabel(/^Repeat new password/).fill(own);
      await user.getByRole('button', { name: 'Save my password and continue' }).click();
      await user.waitForURL((url) => url.pathname === '/transactions');
      await user.getByRole('heading', { level: 1, name: 'Transactions' }).waitFor();

      // This flow's pages logged no error (a 403 of a refused request would show here).
      const errors = sessions.slice(opened).flatMap((s) => s.errors);
      expect(errors).toEqual([]);
    });
  },
);
