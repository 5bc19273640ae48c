// Screenshots of Home (light and dark, wide and narrow), Home for an admin, and the transactions
// screen's saved views and folded filters, against a running BFF + sandbox in demo mode
// (npm start). axe-core runs on each scene in the real browser (contrast included). Usage:
//   PAYDESK_URL=http://localhost:8080 node test/e2e/web-home-screenshots.mjs
// Writes test/e2e/screenshots/web-home-<scene>.png (git-ignored); exit code 1 on console errors
// or serious axe violations.
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const base = process.env.PAYDESK_URL ?? 'http://localhost:8080';
const out = join(dirname(fileURLToPath(import.meta.url)), 'screenshots');
mkdirSync(out, { recursive: true });
const axePath = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

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
const violations = [];

const WIDE = { width: 1366, height: 900 };
const NARROW = { width: 390, height: 844 };

async function as(email, password, { colorScheme = 'light', viewport = WIDE } = {}) {
  const context = await browser.newContext({
    colorScheme,
    viewport,
    timezoneId: 'Europe/Berlin',
    locale: 'en-GB',
    // The app's CSP allows no inline script; axe-core is injected by the test only.
    bypassCSP: true,
  });
  const page = await context.newPage();
  page.on('pageerror', (error) => errors.push(`${email}: ${String(error)}`));
  page.on('console', (message) => {
    // The first session check before signing in answers 401 by design.
    if (message.type() === 'error' && !message.text().includes('401')) {
      errors.push(`${email}: ${message.text()}`);
    }
  });
  await page.goto(`${base}/sign-in`);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Home' }).waitFor();
  return { context, page };
}

async function shoot(page, name, options = {}) {
  await page.waitForTimeout(500);
  await page.screenshot({ path: join(out, `web-home-${name}.png`), ...options });
  await page.addScriptTag({ path: axePath });
  const found = await page.evaluate(async () => {
    const result = await globalThis.axe.run(globalThis.document, { resultTypes: ['violations'] });
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map(
        (v) =>
          `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
      );
  });
  for (const line of found) violations.push(`${name}: ${line}`);
}

try {
  for (const colorScheme of ['light', 'dark']) {
    for (const [size, viewport] of [
      ['wide', WIDE],
      ['narrow', NARROW],
    ]) {
      const { context, page } = await as('ops.demo@paydesk.local', 'paydesk-demo-ops', {
        colorScheme,
        viewport,
      });
      await page.getByRole('heading', { name: /^Captured volume and returns per day/ }).waitFor();
      await shoot(page, `${size}-${colorScheme}`, { fullPage: true });
      await context.close();
    }
  }

  {
    const { context, page } = await as('admin.demo@paydesk.local', 'paydesk-demo-admin');
    await page.getByRole('heading', { name: 'Your screens' }).waitFor();
    await shoot(page, 'admin');
    await context.close();
  }

  // Finance: saves the declined orders as a view for their role, then the menu lists it.
  {
    const { context, page } = await as('finance.demo@paydesk.local', 'paydesk-demo-finance');
    await page.goto(`${base}/transactions?status=declined&sort=amount_desc`);
    await page
      .getByRole('table', { name: 'Transactions' })
      .or(page.getByText(/No transactions/))
      .waitFor();
    await page.getByRole('button', { name: 'Views' }).click();
    await page.getByRole('menuitem', { name: 'Save current view…' }).click();
    await page.getByLabel(/Name/).fill(`Declined, largest first ${Date.now() % 100_000}`);
    await shoot(page, 'save-view');
    await page.getByRole('button', { name: 'Save view' }).click();
    await page.getByText(/^Saved the view/).waitFor();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Views' }).click();
    await page.getByRole('menu', { name: 'Saved views' }).waitFor();
    await shoot(page, 'views-menu');
    await page.keyboard.press('Escape');
    await context.close();
  }

  // A phone: the transactions filters fold behind "Filters (n active)".
  {
    const { context, page } = await as('support.demo@paydesk.local', 'paydesk-demo-support', {
      viewport: NARROW,
    });
    await page.goto(`${base}/transactions?currency=EUR&status=approved`);
    await page.getByRole('button', { name: 'Filters (2 active)' }).waitFor();
    await shoot(page, 'transactions-narrow-folded');
    await page.getByRole('button', { name: 'Filters (2 active)' }).click();
    await shoot(page, 'transactions-narrow-open');
    await context.close();
  }
} finally {
  await browser.close();
}

if (violations.length > 0) console.error(violations.join('\n'));
if (errors.length > 0) console.error(errors.join('\n'));
if (violations.length > 0 || errors.length > 0) process.exitCode = 1;
else console.log('no console errors, no serious axe violations');
