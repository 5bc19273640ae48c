// Debian's Chromium driven by playwright-core (never a downloaded browser): one browser for the
// suite, a fresh context (cookies, storage) per signed-in user, screenshots under
// test/e2e/screenshots/ (git-ignored), page errors collected so a test can assert there were none,
// and axe-core run on a screen as the browser shows it (real layout and colours).
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { AxeResults } from 'axe-core';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { ROOT, type User } from './stack.js';

export const SCREENSHOTS = join(ROOT, 'test', 'e2e', 'screenshots');

export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function launchChromium(executablePath: string): Promise<Browser> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  return chromium.launch({ executablePath, args: CHROMIUM_FLAGS, headless: true });
}

export interface Session {
  context: BrowserContext;
  page: Page;
  /** uncaught page errors and console errors (the 401 of the first session check is expected) */
  errors: string[];
}

/**
 * A fresh context for `user`: opens `path`, is sent to sign-in, signs in and lands on `path` (or on
 * `landing`: "Choose your password" for a password an admin set).
 */
export async function signIn(
  browser: Browser,
  baseUrl: string,
  user: User,
  path: string,
  landing: string = path,
): Promise<Session> {
  const context = await browser.newContext({
    baseURL: baseUrl,
    viewport: { width: 1366, height: 900 },
    locale: 'en-GB',
    timezoneId: 'Europe/Berlin',
    colorScheme: 'light',
    reducedMotion: 'reduce',
  });
  context.setDefaultTimeout(20_000);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`${user.email}: ${String(error)}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().includes('401')) {
      errors.push(`${user.email}: ${message.text()}`);
    }
  });
  await page.goto(path);
  await page.getByLabel('E-mail').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  // Back where the user was going (the screen may add its own defaults to the query).
  const wanted = new URL(landing, baseUrl).pathname;
  await page.waitForURL((url) => url.pathname === wanted);
  return { context, page, errors };
}

/** Saves test/e2e/screenshots/e2e-<name>.png: the whole page, or the viewport while a dialog is open. */
export async function screenshot(page: Page, name: string, whole = true): Promise<void> {
  await page.screenshot({
    path: join(SCREENSHOTS, `e2e-${name}.png`),
    fullPage: whole,
    animations: 'disabled',
  });
}

const AXE_SOURCE = readFileSync(
  createRequire(import.meta.url).resolve('axe-core/axe.min.js'),
  'utf8',
);

/** axe-core's serious and critical violations on the page as shown, one line each (rule, where). */
export async function seriousViolations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol: the app's CSP (script-src 'self') rightly refuses an
  // injected <script>.
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run: () => Promise<AxeResults> } }).axe;
    return (await axe.run()).violations;
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) => `${v.id} (${String(v.impact)}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
    );
}

/**
 * How much wider than its box a table's scroll region is, in CSS pixels: 0 when the whole table
 * (its last column's buttons included) shows without scrolling sideways.
 */
/** How many pixels the whole page is wider than the window (0: nothing to scroll sideways). */
export function pageOverflow(page: Page): Promise<number> {
  return page
    .locator('html')
    .evaluate(
      (html: { scrollWidth: number; clientWidth: number }) => html.scrollWidth - html.clientWidth,
    );
}

export function sidewaysOverflow(page: Page, table: string): Promise<number> {
  return page
    .getByRole('region', { name: `${table} (scrolls sideways when wider than the screen)` })
    .evaluate(
      (region: { scrollWidth: number; clientWidth: number }) =>
        region.scrollWidth - region.clientWidth,
    );
}
