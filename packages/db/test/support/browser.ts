/**
 * Debian's Chromium driven by playwright-core, for the Fauxton end-to-end tests: headless, no
 * sandbox (tests run as root in CI), nothing fetched from the network but the test server.
 * `scripts/test.mjs` finds or installs it and passes its path as DIVAN_TEST_CHROMIUM; a missing
 * browser fails the test with the command to run, never skips it.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { AUTH } from './server.js';

const CHROMIUM = process.env.DIVAN_TEST_CHROMIUM ?? '/usr/bin/chromium';
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
];
/** packages/db/dist/test/support/ → the repository's test-results/ (git-ignored). */
export const SCREENSHOTS = fileURLToPath(new URL('../../../../../test-results/fauxton/', import.meta.url));

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium not found at ${CHROMIUM}: apt-get install -y --no-install-recommends chromium`);
  }
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
}

/** A browser context logged in as the test admin by Basic credentials on every request. */
export function adminContext(browser: Browser): Promise<BrowserContext> {
  return browser.newContext({ extraHTTPHeaders: { Authorization: AUTH }, viewport: { width: 1280, height: 800 } });
}

/** A page that records its uncaught errors (each test asserts there were none). */
export async function openPage(context: BrowserContext): Promise<{ page: Page; errors: string[] }> {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  return { page, errors };
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}
