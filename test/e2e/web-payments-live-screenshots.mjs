// Screenshots of the payments screens against a running BFF + sandbox in demo mode (npm start):
// finance captures part of a preauth (when one still holds money) and returns part of it twice, a
// third return above the rest is stopped with the remaining amount; support looks an order up with Ctrl+K; ops sees the
// payout queue. Usage (demo users from the README):
//   PAYDESK_URL=http://localhost:8080 node test/e2e/web-payments-live-screenshots.mjs
// Writes test/e2e/screenshots/web-live-<scene>.png (git-ignored); exit code 1 on console errors.
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const base = process.env.PAYDESK_URL ?? 'http://localhost:8080';
const out = join(dirname(fileURLToPath(import.meta.url)), 'screenshots');
mkdirSync(out, { recursive: true });

const browser = await chromium.launch({
  executablePath: process.env.PAYDESK_CHROMIUM ?? '/usr/bin/chromium',
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
});
const errors = [];

async function as(email, password, path) {
  const context = await browser.newContext({
    colorScheme: 'light',
    viewport: { width: 1366, height: 860 },
    timezoneId: 'Europe/Berlin',
    locale: 'en-GB',
  });
  const page = await context.newPage();
  page.on('pageerror', (error) => errors.push(`${email}: ${String(error)}`));
  page.on('console', (message) => {
    // The first session check before signing in answers 401 by design.
    if (message.type() === 'error' && !message.text().includes('401')) {
      errors.push(`${email}: ${message.text()}`);
    }
  });
  await page.goto(`${base}${path}`);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  return { context, page };
}

async function shoot(page, name, options = {}) {
  await page.waitForTimeout(400);
  await page.screenshot({ path: join(out, `web-live-${name}.png`), ...options });
}

try {
  // Finance: the list, then a preauth: capture part, return part twice, a third return too big.
  {
    const { context, page } = await as(
      'finance.demo@paydesk.local',
      'paydesk-demo-finance',
      '/transactions',
    );
    await page.getByRole('table', { name: 'Transactions' }).waitFor();
    await page.getByText('Live', { exact: true }).waitFor();
    await shoot(page, 'list', { fullPage: true });
    await page.goto(`${base}/transactions?type=preauth&status=approved`);
    await page.getByRole('table', { name: 'Transactions' }).waitFor();
    await shoot(page, 'list-preauths');
    // A preauth still holding money is captured in part; otherwise (the demo data captures its
    // preauths) the returns go to the first captured one.
    const hrefs = await page
      .getByRole('link', { name: /^Order / })
      .evaluateAll((links) => links.map((link) => link.getAttribute('href')));
    let capturable = false;
    let returnable = null;
    for (const href of hrefs) {
      await page.goto(`${base}${href}`);
      await page.getByRole('heading', { name: /^Order / }).waitFor();
      if (await page.getByRole('button', { name: 'Capture', exact: true }).count()) {
        capturable = true;
        break;
      }
      if (
        returnable === null &&
        (await page.getByRole('button', { name: 'Return', exact: true }).count())
      ) {
        returnable = href;
      }
    }
    if (capturable) {
      await shoot(page, 'preauth', { fullPage: true });
      await page.getByRole('button', { name: 'Capture', exact: true }).click();
      await page.getByLabel(/Amount to capture/).fill('20.00');
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByRole('button', { name: /^Capture .*20\.00/ }).click();
      await page.getByRole('dialog').waitFor({ state: 'detached' });
      await page.getByRole('button', { name: 'Return', exact: true }).waitFor();
      await shoot(page, 'captured', { fullPage: true });
    } else {
      if (returnable === null) throw new Error('no returnable preauth in the demo data');
      console.log('no preauth holding money in the demo data: capture skipped');
      await page.goto(`${base}${returnable}`);
      await page.getByRole('button', { name: 'Return', exact: true }).waitFor();
      await shoot(page, 'preauth', { fullPage: true });
    }
    for (const amount of ['5.00', '7.50']) {
      await page.getByRole('button', { name: 'Return', exact: true }).click();
      await page.getByRole('radio', { name: 'Part' }).check();
      await page.getByLabel(/Amount to return/).fill(amount);
      await page.getByLabel(/Reason/).selectOption('customer_request');
      await page.getByLabel(/Comment/).fill(`partial return of ${amount}`);
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByText(new RegExp(`Return ${amount.replace('.', '\\.')} euros`)).waitFor();
      if (amount === '5.00') await shoot(page, 'return-confirm');
      await page.getByRole('button', { name: /^Return €/ }).click();
      await page.getByRole('dialog').waitFor({ state: 'detached' });
    }
    await page.getByRole('button', { name: 'Return', exact: true }).click();
    await page.getByRole('radio', { name: 'Part' }).check();
    await page.getByLabel(/Amount to return/).fill('9999.00');
    await page.getByText(/At most the remaining returnable amount/).waitFor();
    await shoot(page, 'return-over-rest');
    // What was typed keeps the dialog open against Escape: its Cancel closes it.
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await shoot(page, 'after-returns', { fullPage: true });
    await context.close();
  }

  // Support: Ctrl+K from anywhere, an orderid from the list, the order opens with its status.
  {
    const { context, page } = await as(
      'support.demo@paydesk.local',
      'paydesk-demo-support',
      '/transactions',
    );
    await page.getByRole('table', { name: 'Transactions' }).waitFor();
    const orderid = (
      await page
        .getByRole('link', { name: /^Order / })
        .first()
        .textContent()
    ).trim();
    await page.goto(`${base}/account`);
    await page.getByRole('heading', { name: 'My account' }).waitFor();
    await page.keyboard.press('Control+k');
    await page.getByLabel(/Orderid or client order id/).fill(orderid);
    await shoot(page, 'lookup');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: `Order ${orderid}` }).waitFor();
    await shoot(page, 'lookup-result', { fullPage: true });
    await context.close();
  }

  // Ops: the payout queue and their own payout, which they cannot approve.
  {
    const { context, page } = await as(
      'ops.demo@paydesk.local',
      'paydesk-demo-ops',
      '/payouts?view=all',
    );
    await page.getByRole('heading', { name: 'Payouts' }).waitFor();
    await page
      .getByRole('table', { name: 'Payouts' })
      .or(page.getByText('No payouts yet.'))
      .waitFor();
    await shoot(page, 'payouts');
    await context.close();
  }
} finally {
  await browser.close();
}

if (errors.length > 0) {
  console.error(errors.join('\n'));
  process.exitCode = 1;
} else {
  console.log('no console errors');
}
