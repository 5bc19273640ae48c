// Screenshots of the SPA's payments screens (transactions, an order, its dialogs, the status
// lookup, payouts), light and dark, against the Vite dev server with the fake BFF of the web tests behind
// /api (the BFF does not serve the payments routes yet). Usage:
//   node test/e2e/web-payments-screenshots.mjs
// Writes test/e2e/screenshots/web-payments-<scene>-<scheme>.png (git-ignored), runs axe-core on
// each scene and prints serious and critical violations (exit code 1 when there are any) and any
// console errors.
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
const webRoot = resolve(here, '../../web');
const out = join(here, 'screenshots');
mkdirSync(out, { recursive: true });

const webRequire = createRequire(join(webRoot, 'package.json'));
const { createServer } = await import(webRequire.resolve('vite'));
const { default: react } = await import(webRequire.resolve('@vitejs/plugin-react'));

/** Node request → the fake BFF's fetch → Node response; `/api/events` is held open as SSE. */
function fakeBffPlugin(getBff) {
  return {
    name: 'paydesk-fake-bff',
    configureServer(server) {
      server.middlewares.use(async (req, res, next) => {
        if (!req.url?.startsWith('/api/')) {
          next();
          return;
        }
        const bff = await getBff();
        if (req.url.startsWith('/api/events')) {
          res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store' });
          res.write(': connected\n\n');
          const unsubscribe = bff.payments.subscribe((event) => {
            res.write(`event: transaction\ndata: ${JSON.stringify(event)}\n\n`);
          });
          req.on('close', unsubscribe);
          return;
        }
        const chunks = [];
        for await (const chunk of req) chunks.push(chunk);
        const headers = {};
        for (const [name, value] of Object.entries(req.headers)) {
          if (typeof value === 'string') headers[name] = value;
        }
        const body = chunks.length === 0 ? undefined : Buffer.concat(chunks).toString('utf8');
        const reply = await bff.fetch(req.url, {
          method: req.method,
          headers,
          body,
          credentials: 'same-origin',
        });
        res.writeHead(reply.status, { 'Content-Type': 'application/json' });
        res.end(await reply.text());
      });
    },
  };
}

let bffPromise = null;
const server = await createServer({
  configFile: false,
  root: webRoot,
  logLevel: 'warn',
  plugins: [react(), fakeBffPlugin(() => bffPromise)],
  server: { host: '127.0.0.1', port: 5199, strictPort: false },
});
await server.listen();
const base = server.resolvedUrls.local[0].replace(/\/$/, '');

/** One fake BFF per colour scheme, with a finance+support user and a varied set of orders. */
async function freshBff() {
  const { FakeBff, makeTransaction, makeUser, makePayout, DEMO_PASSWORD } =
    await server.ssrLoadModule('/src/test/fake-bff.ts');
  const transactions = Array.from({ length: 60 }, (_, i) => {
    const n = i + 1;
    const at = new Date(Date.UTC(2026, 10, 20, 7, 0) + n * 17 * 60_000).toISOString();
    const common = { createdAt: at, updatedAt: at };
    if (n % 7 === 0) return makeTransaction(n, { ...common, type: 'preauth', amount: '120.00' });
    if (n % 11 === 5) return makeTransaction(n, { ...common, status: 'declined' });
    if (n === 52)
      return makeTransaction(n, {
        ...common,
        status: 'unknown',
        allowedActions: [],
        timeline: [
          {
            id: 1,
            at,
            kind: 'staff',
            title: 'return 5.00 EUR requested by fay@example.com',
            actor: 'fay@example.com',
            data: { amount: '5.00', reasonCode: 'customer_request' },
          },
          {
            id: 2,
            at,
            kind: 'gateway',
            title: 'return: no answer (timeout after 10 s)',
            actor: null,
            data: { endpoint: '1001', elapsedMs: 10000 },
          },
        ],
      });
    if (n === 44)
      return makeTransaction(n, {
        ...common,
        drift: true,
        currency: 'USD',
        driftDetails: { gateway: 'declined', paydesk: 'approved' },
      });
    if (n % 5 === 0) return makeTransaction(n, { ...common, currency: 'GBP', amount: '1249.99' });
    return makeTransaction(n, common);
  });
  return {
    bff: new FakeBff({
      signedInAs: null,
      users: [
        makeUser({
          email: 'fay@example.com',
          name: 'Fay Finance',
          roles: ['finance', 'support', 'ops'],
        }),
      ],
      transactions,
      payouts: [
        makePayout(1),
        makePayout(2, {
          amount: '1250.00',
          orderDesc: 'Marketplace seller payout, week 47',
          destination: { kind: 'bank', masked: '******3000', label: 'Commerzbank COBADEFFXXX' },
        }),
        makePayout(3, {
          preparedBy: { id: 'u-fay', email: 'fay@example.com' },
          destination: { kind: 'ewallet', masked: 'paypal ****e.com', label: 'paypal' },
        }),
        makePayout(4, {
          state: 'approved',
          decidedBy: { id: 'u-fay', email: 'fay@example.com' },
          decidedAt: '2026-11-20T12:00:00.000Z',
        }),
        makePayout(5, {
          state: 'rejected',
          rejectReason: 'Account holder does not match the seller',
          decidedBy: { id: 'u-fay', email: 'fay@example.com' },
          decidedAt: '2026-11-20T12:00:00.000Z',
        }),
      ],
    }),
    password: DEMO_PASSWORD,
  };
}

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

const axePath = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const violations = [];

async function shoot(page, name, options = {}) {
  // Let transitions (dialogs, snackbars, button loading states) settle before the picture.
  await page.waitForTimeout(350);
  await page.screenshot({ path: join(out, `web-payments-${name}.png`), ...options });
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

const id = (n) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

try {
  for (const colorScheme of ['light', 'dark']) {
    const { bff, password } = await freshBff();
    bffPromise = Promise.resolve(bff);
    const context = await browser.newContext({
      colorScheme,
      viewport: { width: 1366, height: 860 },
      timezoneId: 'Europe/Berlin',
      locale: 'en-GB',
    });
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });

    await page.goto(`${base}/transactions`);
    await page.getByLabel('E-mail').fill('fay@example.com');
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('table', { name: 'Transactions' }).waitFor();
    await page.getByText('Live', { exact: true }).waitFor();
    await shoot(page, `list-${colorScheme}`, { fullPage: true });

    // Live: the gateway declines an order while the list is open.
    bff.payments.change(id(60), { status: 'declined' });
    await page.getByRole('row').nth(1).getByText('Declined').waitFor();

    await page.goto(`${base}/transactions?currency=GBP&sort=amount_desc`);
    await page.getByText(/transactions? match/).waitFor();
    await shoot(page, `list-filtered-${colorScheme}`);

    await page.goto(`${base}/transactions?q=nobody%40example.com`);
    await page.getByText('No transactions match these filters').waitFor();
    await shoot(page, `list-empty-${colorScheme}`);

    // A preauth: capture part of it.
    await page.goto(`${base}/transactions/${id(49)}`);
    await page.getByRole('heading', { name: 'Order 900049' }).waitFor();
    await shoot(page, `preauth-${colorScheme}`, { fullPage: true });
    await page.getByRole('button', { name: 'Capture', exact: true }).click();
    await page.getByLabel(/Amount to capture/).fill('80');
    await shoot(page, `capture-dialog-${colorScheme}`);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('button', { name: /^Capture £?€?80/ }).click();
    await page.getByText(/Capture of €80.00 approved/).waitFor();

    // Two partial returns, then one that exceeds what is left.
    for (const [amount, step] of [
      ['30', 'first'],
      ['60', 'too-much'],
    ]) {
      await page.getByRole('button', { name: 'Return', exact: true }).click();
      await page.getByRole('radio', { name: 'Part' }).check();
      await page.getByLabel(/Amount to return/).fill(amount);
      await page.getByLabel(/Reason/).selectOption('customer_request');
      await page.getByLabel(/Comment/).fill(`partial return (${step})`);
      if (step === 'too-much') {
        await shoot(page, `return-over-cap-${colorScheme}`);
        break;
      }
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByText(/Return 30.00 euros to the customer\?/).waitFor();
      await shoot(page, `return-confirm-${colorScheme}`);
      await page.getByRole('button', { name: /^Return €30.00/ }).click();
      await page.getByText(/Return of €30.00 approved/).waitFor();
    }
    // What was typed keeps the dialog open against Escape: its Cancel closes it.
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await shoot(page, `after-return-${colorScheme}`, { fullPage: true });

    // Orders needing attention.
    await page.goto(`${base}/transactions/${id(52)}`);
    await page.getByText('Outcome unknown', { exact: true }).waitFor();
    await shoot(page, `unknown-${colorScheme}`, { fullPage: true });
    await page.goto(`${base}/transactions/${id(44)}`);
    await page.getByText('The gateway contradicted Paydesk’s record').waitFor();
    await shoot(page, `drift-${colorScheme}`);

    // Status lookup from anywhere.
    await page.goto(`${base}/account`);
    await page.getByRole('heading', { name: 'My account' }).waitFor();
    await page.keyboard.press('Control+k');
    await page.getByLabel(/Orderid or client order id/).fill('shop-12');
    await shoot(page, `lookup-${colorScheme}`);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Order 900012' }).waitFor();

    // Payouts: the approval queue, an approval, the prepare form, and one's own payouts.
    await page.goto(`${base}/payouts`);
    await page.getByRole('table', { name: 'Payouts' }).waitFor();
    await shoot(page, `payouts-queue-${colorScheme}`);
    await page.getByRole('button', { name: 'Approve' }).first().click();
    await page.getByRole('dialog', { name: 'Approve the payout' }).waitFor();
    await shoot(page, `payouts-approve-${colorScheme}`);
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Prepare payout' }).click();
    await page.getByLabel('Card number').fill('4111 1111 1111 1112');
    await page.getByLabel('Cardholder name').fill('Jane Doe');
    await page.getByRole('button', { name: 'Check and submit for approval' }).click();
    await page.getByText('This fails the Luhn check.').waitFor();
    await shoot(page, `payouts-prepare-${colorScheme}`);
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await page.goto(`${base}/payouts?view=mine`);
    await page.getByText('Yours: another ops user approves').waitFor();
    await shoot(page, `payouts-mine-${colorScheme}`);
    await page.goto(`${base}/payouts?view=all`);
    await page.getByText('Account holder does not match the seller').waitFor();
    await shoot(page, `payouts-history-${colorScheme}`);

    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${base}/transactions`);
    await page.getByRole('table', { name: 'Transactions' }).waitFor();
    await shoot(page, `list-narrow-${colorScheme}`);

    console.log(`${colorScheme}: ${errors.length === 0 ? 'no console errors' : errors.join('\n')}`);
    await context.close();
  }
} finally {
  await browser.close();
  await server.close();
}

if (violations.length > 0) {
  console.error(
    `axe: ${violations.length} serious or critical violations\n${violations.join('\n')}`,
  );
  process.exitCode = 1;
} else {
  console.log('axe: no serious or critical violations');
}
