// Screenshots of the SPA against a running BFF, light and dark (the system preference, which the
// app follows until the user picks a mode). Usage:
//   PAYDESK_URL=http://localhost:8080 PAYDESK_ADMIN_EMAIL=... PAYDESK_ADMIN_PASSWORD=... \
//   node test/e2e/web-screenshots.mjs
// Writes test/e2e/screenshots/web-<page>-<scheme>.png (git-ignored) and runs axe-core on each
// screen, printing serious and critical violations (exit code 1 when there are any).
import { mkdirSync, readFileSync } from 'node:fs';
import { createHmac } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const base = process.env.PAYDESK_URL ?? 'http://localhost:8080';
const email = process.env.PAYDESK_ADMIN_EMAIL;
const password = process.env.PAYDESK_ADMIN_PASSWORD;
if (!email || !password) throw new Error('set PAYDESK_ADMIN_EMAIL and PAYDESK_ADMIN_PASSWORD');
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

const axePath = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const violations = [];

async function shoot(page, name, options = {}) {
  await page.screenshot({ path: join(out, `${name}.png`), ...options });
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

/** RFC 6238 code (SHA-1, 30 s, 6 digits) for a base32 secret, as an authenticator app shows it. */
function totp(secret, now = Date.now()) {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const char of secret.replace(/=+$/, '').toUpperCase())
    bits += alphabet.indexOf(char).toString(2).padStart(5, '0');
  const key = Buffer.from(bits.match(/.{8}/g).map((byte) => parseInt(byte, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(now / 30_000)));
  const mac = createHmac('sha1', key).update(counter).digest();
  const offset = mac[mac.length - 1] & 0x0f;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

async function signIn(page) {
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

const demoUsers = [
  { email: 'sam.support@example.com', name: 'Sam Support', roles: ['support'] },
  { email: 'fay.finance@example.com', name: 'Fay Finance', roles: ['finance'] },
  { email: 'otto.ops@example.com', name: 'Otto Ops', roles: ['ops', 'support'] },
];

try {
  for (const colorScheme of ['light', 'dark']) {
    // bypassCSP only lets the test inject axe-core; the app itself runs under the BFF's CSP.
    const context = await browser.newContext({
      bypassCSP: true,
      colorScheme,
      viewport: { width: 1280, height: 800 },
      timezoneId: 'Europe/Berlin',
      locale: 'en-GB',
    });
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });

    await page.goto(`${base}/users`);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await shoot(page, `web-sign-in-${colorScheme}`);

    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${base}/users`);

    // Some data to look at: a few staff accounts (idempotent: EMAIL_TAKEN on the second run is fine).
    await page.evaluate(async (users) => {
      for (const user of users) {
        await fetch('/api/users', {
          method: 'POST',
          credentials: 'same-origin',
          headers: { 'Content-Type': 'application/json', 'X-Requested-With': 'paydesk' },
          body: JSON.stringify({ ...user, password: 'a demo password 123' }),
        });
      }
    }, demoUsers);
    await page.reload();
    await page.getByRole('table', { name: 'Users' }).waitFor();
    await shoot(page, `web-users-${colorScheme}`, { fullPage: true });

    await page.getByRole('button', { name: 'Create user' }).click();
    await page.getByRole('dialog', { name: 'Create user' }).waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Create user' }).click();
    await page.getByText('Choose at least one role.').waitFor();
    await shoot(page, `web-users-create-${colorScheme}`);
    await page.keyboard.press('Escape');

    await page.goto(`${base}/audit`);
    await page.getByRole('table', { name: 'Audit log' }).waitFor();
    await page
      .getByText(/Chain (verified|broken)/)
      .first()
      .waitFor();
    await shoot(page, `web-audit-${colorScheme}`, { fullPage: true });

    await page.goto(`${base}/audit?outcome=failed`);
    await page
      .getByText(/No rows match|rows? match/)
      .first()
      .waitFor();
    await shoot(page, `web-audit-filtered-${colorScheme}`);

    await page.goto(`${base}/account`);
    await page.getByRole('heading', { name: 'My account' }).waitFor();
    await shoot(page, `web-account-${colorScheme}`, { fullPage: true });

    await page.setViewportSize({ width: 390, height: 800 });
    await page.goto(`${base}/users`);
    await page.getByRole('table', { name: 'Users' }).waitFor();
    await shoot(page, `web-users-narrow-${colorScheme}`);

    console.log(`${colorScheme}: ${errors.length === 0 ? 'no console errors' : errors.join('\n')}`);
    await context.close();
  }

  // Two-step sign-in end to end: enrol, sign in with a recovery code, then the admin resets their own
  // TOTP, which revokes the session: the next request gets 401 and the app asks to sign in again.
  const context = await browser.newContext({
    bypassCSP: true,
    colorScheme: 'light',
    viewport: { width: 1280, height: 800 },
  });
  const page = await context.newPage();
  await page.goto(`${base}/account`);
  await signIn(page);
  await page.getByRole('button', { name: 'Set up two-step sign-in' }).click();
  const secret = await page.getByRole('textbox', { name: 'Secret' }).inputValue();
  await page.getByLabel('Code from the app').fill(totp(secret));
  await page.getByRole('button', { name: 'Turn on two-step sign-in' }).click();
  const recoveryCodes = (
    await page.getByRole('textbox', { name: 'Recovery codes' }).inputValue()
  ).split('\n');
  await shoot(page, 'web-account-recovery-codes-light', { fullPage: true });
  await page.getByRole('button', { name: 'I have saved them' }).click();
  await page.getByRole('button', { name: /Account menu/ }).click();
  await page.getByRole('menuitem', { name: 'Sign out' }).click();
  await page.waitForURL(`${base}/sign-in`);
  await signIn(page);
  await page.getByLabel('Authentication code').waitFor();
  await page.getByRole('button', { name: 'Verify and sign in' }).waitFor();
  // Let the button's colour transition out of its loading state finish before the picture.
  await page.waitForTimeout(400);
  await shoot(page, 'web-sign-in-totp-light');
  await page.getByLabel('Authentication code').fill(recoveryCodes[0]);
  await page.getByRole('button', { name: 'Verify and sign in' }).click();
  await page.waitForURL(`${base}/audit`);
  // The export buttons download the filtered set (the session cookie goes with the link).
  await page.goto(`${base}/audit?outcome=refused`);
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('link', { name: 'Export CSV' }).click(),
  ]);
  const csv = readFileSync(await download.path(), 'utf8')
    .trim()
    .split('\n');
  const outcomeColumn = csv[0].split(',').indexOf('outcome');
  if (outcomeColumn < 0 || csv.length < 2)
    throw new Error(`unexpected export: ${csv.slice(0, 2).join(' / ')}`);
  console.log(
    `export: ${download.suggestedFilename()}, ${csv.length - 1} rows, header ${csv[0].slice(0, 40)}…`,
  );

  // One's own two-step sign-in is reset by another administrator: the own row does not offer it.
  await page.goto(`${base}/users`);
  await page.getByRole('table', { name: 'Users' }).waitFor();
  if ((await page.getByRole('button', { name: `Reset two-step sign-in of ${email}` }).count()) > 0)
    throw new Error('the own row offers Reset two-step');
  console.log('two-step sign-in: enrolled, signed in with a recovery code; own reset not offered');
  await context.close();
} finally {
  await browser.close();
}
console.log(
  violations.length === 0 ? 'axe: no serious or critical violations' : violations.join('\n'),
);
if (violations.length > 0) process.exitCode = 1;
