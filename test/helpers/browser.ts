import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** Debian's Chromium (package `chromium`); CI installs it when missing. */
export const CHROMIUM = process.env.VIGIL_CHROMIUM ?? '/usr/bin/chromium';

/** Why browser tests cannot run here, or null when they can. */
export function browserMissing(): string | null {
  return existsSync(CHROMIUM) ? null : `no Chromium at ${CHROMIUM} (install the Debian package chromium, or set VIGIL_CHROMIUM)`;
}

export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'];

/** Chromium resolves localhost to 127.0.0.1 only: pages at http://localhost (what WebAuthn needs) stay on IPv4 loopback. */
export const LOCALHOST_IPV4 = '--host-resolver-rules=MAP localhost 127.0.0.1';

/**
 * A headless Chromium with a fresh profile directory (removed by close): every run starts with
 * no cookies, cache or service workers left from another.
 */
export async function launchBrowser(extraArgs: string[] = []): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), 'vigil-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [...CHROMIUM_ARGS, ...extraArgs],
    viewport: { width: 1280, height: 800 },
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * A dashboard page signed in with `key`. `problems` collects every page error and console error
 * from then on (the signed-out page's 401 before signing in is not one).
 */
export async function signedInPage(context: BrowserContext, baseUrl: string, key: string): Promise<{ page: Page; problems: string[] }> {
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console error: ${msg.text()}`);
  });
  await page.goto(`${baseUrl}/dashboard`);
  await page.fill('#api-key', key);
  await page.press('#api-key', 'Enter');
  await page.waitForSelector('body[data-list-ready="true"]');
  problems.length = 0;
  return { page, problems };
}

/** What page-side predicates below read; the tests compile without the DOM library. */
type PageDocument = { document: { querySelectorAll(selector: string): ArrayLike<{ dataset: Record<string, string> }> } };

/**
 * Waits until `selector` matches exactly `count` elements. Page waits take functions, never
 * strings: Playwright evaluates a string predicate again on every poll with `eval`, which the
 * dashboard's Content-Security-Policy refuses, so a string wait fails whenever it has to poll.
 */
export async function waitForCount(page: Page, selector: string, count: number): Promise<void> {
  await page.waitForFunction(
    ([sel, n]) => (globalThis as unknown as PageDocument).document.querySelectorAll(sel).length === n,
    [selector, count] as const,
  );
}

/** Waits until every element `selector` matches has `data-<key>` starting with `prefix`. */
export async function waitForEveryData(page: Page, selector: string, key: string, prefix: string): Promise<void> {
  await page.waitForFunction(
    ([sel, k, p]) => Array.from((globalThis as unknown as PageDocument).document.querySelectorAll(sel)).every((el) => (el.dataset[k] ?? '').startsWith(p)),
    [selector, key, prefix] as const,
  );
}
