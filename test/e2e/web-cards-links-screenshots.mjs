// Screenshots of Cards, Subscriptions and Payment links with real demo data, light and dark: starts
// `npm start`'s launcher (scripts/start.mjs) on free ports with a temporary data directory and a
// few storefront orders, so the demo seeding makes a card reference, a subscription with its first
// charge and two payment links; then finance looks a card up and rebills it, opens the plan and
// creates a payment link; support reads Cards; ops sees its own payout-form, which it cannot
// approve. Usage (after building; PAYDESK_WEB_DIST serves another SPA build than web/dist):
//   node test/e2e/web-cards-links-screenshots.mjs
// Writes test/e2e/screenshots/web-cards-<scene>-<light|dark>.png (git-ignored); exit code 1 on
// console errors or a failed step.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const out = join(root, 'test', 'e2e', 'screenshots');
mkdirSync(out, { recursive: true });

const FINANCE = { email: 'finance.demo@paydesk.local', password: 'paydesk-demo-finance' };
const SUPPORT = { email: 'support.demo@paydesk.local', password: 'paydesk-demo-support' };
const OPS = { email: 'ops.demo@paydesk.local', password: 'paydesk-demo-ops' };

function freePort() {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolvePort(port));
    });
  });
}

/** The launcher, as a newcomer runs it; resolves once it printed the demo users. */
async function startStack() {
  const dataDir = mkdtempSync(join(tmpdir(), 'paydesk-cards-shots-'));
  const port = await freePort();
  const sandboxPort = await freePort();
  const env = {
    ...process.env,
    PORT: String(port),
    SANDBOX_PORT: String(sandboxPort),
    PAYDESK_DATA_DIR: dataDir,
    PAYDESK_DEMO_ORDERS: '14',
    LOG_LEVEL: 'warn',
  };
  // Demo mode: the launcher starts the sandbox only when no gateway is configured.
  delete env.GATEWAY_BASE_URL;
  if (process.env.PAYDESK_WEB_DIST) env.WEB_DIST_DIR = process.env.PAYDESK_WEB_DIST;
  const child = spawn(process.execPath, [join(root, 'scripts', 'start.mjs')], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise((resolveReady, reject) => {
    const onData = (chunk) => {
      output += chunk.toString();
      if (output.includes('Ctrl-C stops the BFF and the sandbox')) resolveReady();
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`launcher exited (${code}):\n${output}`)));
  });
  const seeded = /demo data seeded[^\n]*/.exec(output)?.[0] ?? 'no seeding line';
  console.log(seeded);
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGINT');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  return { base: `http://localhost:${port}`, stop };
}

/** A signed-in API client, to find the seeded card reference (the screens have no list of them). */
async function apiAs(base, user) {
  const login = await fetch(`${base}/api/session`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Requested-With': 'paydesk', Origin: base },
    body: JSON.stringify(user),
  });
  const cookie = (login.headers.getSetCookie()[0] ?? '').split(';')[0];
  return async (path) => (await fetch(`${base}${path}`, { headers: { Cookie: cookie } })).json();
}

const stack = await startStack();
const { base } = stack;
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

async function as(user, path, scheme) {
  const context = await browser.newContext({
    colorScheme: scheme,
    viewport: { width: 1366, height: 860 },
    timezoneId: 'Europe/Berlin',
    locale: 'en-GB',
    reducedMotion: 'reduce',
  });
  context.setDefaultTimeout(15_000);
  const page = await context.newPage();
  page.on('pageerror', (error) => errors.push(`${user.email}: ${String(error)}`));
  page.on('console', (message) => {
    // The first session check before signing in answers 401 by design.
    if (message.type() === 'error' && !message.text().includes('401')) {
      errors.push(`${user.email}: ${message.text()}`);
    }
  });
  await page.goto(`${base}${path}`);
  await page.getByLabel('E-mail').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  return { context, page };
}

async function shoot(page, name, scheme, options = {}) {
  await page.waitForTimeout(300);
  await page.screenshot({
    path: join(out, `web-cards-${name}-${scheme}.png`),
    animations: 'disabled',
    ...options,
  });
}

try {
  const api = await apiAs(base, FINANCE);
  const plans = (await api('/api/subscriptions')).items ?? [];
  const plan = plans[0];
  if (!plan) throw new Error('the demo seeding made no subscription');
  const ref = plan.cardRefId;

  for (const scheme of ['light', 'dark']) {
    // Finance: card info with a reason, then a rebill of the same card with its confirmation.
    {
      const { context, page } = await as(FINANCE, `/cards?ref=${encodeURIComponent(ref)}`, scheme);
      await page.getByRole('heading', { name: 'Cards' }).waitFor();
      await page.getByLabel(/Reason/).fill('Customer asks which card the plan charges');
      await page.getByRole('button', { name: 'Show card information' }).click();
      await page.getByRole('region', { name: 'Card behind the reference' }).waitFor();
      await shoot(page, 'card-info', scheme, { fullPage: true });
      await page.getByRole('button', { name: 'Rebill a card' }).click();
      await page.getByRole('button', { name: 'Continue' }).click();
      await shoot(page, 'rebill-errors', scheme);
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel(/^Amount/).fill('4.5');
      await dialog.getByLabel(/Description/).fill('Replacement part');
      await dialog.getByLabel(/Reason/).fill('Agreed with the customer by phone');
      await dialog.getByRole('button', { name: 'Continue' }).click();
      await page.getByText(/Charge 4\.50 euros/).waitFor();
      await shoot(page, 'rebill-confirm', scheme);
      await page.getByRole('button', { name: /^Charge €4\.50/ }).click();
      await page.getByRole('dialog', { name: 'Rebill sent' }).waitFor();
      await shoot(page, 'rebill-done', scheme);
      await page.getByRole('link', { name: /^Open order / }).click();
      await page.getByRole('heading', { name: /^Order / }).waitFor();
      await shoot(page, 'rebill-order', scheme, { fullPage: true });
      await context.close();
    }

    // Finance: the subscriptions, one plan with its charge, and the create dialog.
    {
      const { context, page } = await as(FINANCE, '/subscriptions', scheme);
      await page.getByRole('table', { name: 'Subscriptions' }).waitFor();
      await shoot(page, 'subscriptions', scheme);
      await page.getByRole('button', { name: 'New subscription' }).click();
      await page.getByRole('dialog', { name: 'New subscription' }).waitFor();
      await page.getByLabel(/Card reference id/).fill(ref);
      await page.getByLabel(/Amount per charge/).fill('12');
      await page.getByLabel(/Description/).fill('Weekly flowers');
      await page.getByLabel(/Customer e-mail/).fill('flowers@example.com');
      await page.getByLabel(/Period/).selectOption('week');
      await shoot(page, 'subscription-create', scheme);
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByText(/Charge 12\.00 euros every week/).waitFor();
      await shoot(page, 'subscription-confirm', scheme);
      // What was typed keeps the dialog open against Escape: its Cancel closes it.
      await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
      await page.getByRole('link', { name: plan.orderDesc }).first().click();
      await page.getByRole('table', { name: 'Charges' }).waitFor();
      await shoot(page, 'subscription-detail', scheme, { fullPage: true });
      await page
        .getByRole('link', { name: /^Order / })
        .first()
        .click();
      await page.getByRole('heading', { name: /^Order / }).waitFor();
      await shoot(page, 'charge-order', scheme, { fullPage: true });
      await context.close();
    }

    // Finance: the payment links and a new preauth form with its address to copy.
    {
      const { context, page } = await as(FINANCE, '/payment-links', scheme);
      await page.getByRole('table', { name: 'Payment links' }).waitFor();
      await shoot(page, 'links', scheme, { fullPage: true });
      await page.getByRole('button', { name: 'New payment link' }).click();
      await page.getByLabel('Form').selectOption('preauth-form');
      await page.getByRole('button', { name: 'Create link' }).click();
      await shoot(page, 'link-errors', scheme);
      await page.getByLabel(/^Amount/).fill('120');
      await page.getByLabel(/Description/).fill('Deposit for the rental bike');
      await page.getByLabel(/^E-mail/).fill('rider@example.com');
      await page.getByLabel(/^Phone/).fill('+49 30 5550199');
      await page.getByLabel(/^Address/).fill('2 Demo Street');
      await page.getByLabel(/^City/).fill('Springfield');
      await page.getByLabel(/Postal code/).fill('12345');
      await page.getByLabel(/Country/).fill('DE');
      await page.getByRole('button', { name: 'Create link' }).click();
      await page.getByRole('dialog', { name: 'Payment link ready' }).waitFor();
      await shoot(page, 'link-created', scheme);
      await context.close();
    }

    // Ops: its own payout-form, visibly not approvable by the one who made it.
    {
      const { context, page } = await as(OPS, '/payment-links?view=mine', scheme);
      await page.getByText('Yours: another ops user approves').waitFor();
      await shoot(page, 'links-ops', scheme);
      await context.close();
    }

    // Support: Cards reads, never charges; the order with the reference links there.
    {
      const { context, page } = await as(SUPPORT, '/cards', scheme);
      await page.getByRole('heading', { name: 'Cards' }).waitFor();
      await shoot(page, 'cards-support', scheme);
      await context.close();
    }
  }
} catch (error) {
  errors.push(`step failed: ${error instanceof Error ? error.stack : String(error)}`);
} finally {
  await browser.close();
  await stack.stop();
}

if (errors.length > 0) {
  console.error(errors.join('\n'));
  process.exitCode = 1;
} else {
  console.log('no console errors');
}
