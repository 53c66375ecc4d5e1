import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';
import { describe } from 'vitest';

/** Debian's Chromium (`apt-get install chromium`), or CHROMIUM_PATH. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const HOW_TO_RUN = `skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH); .ci/run installs it`;

/**
 * A describe block that needs Chromium: without it, skipped under a name that says how to run
 * it (in CI, where .ci/run installs it, that fails the run).
 *
 * @example
 * ```ts
 * describeWithChromium('the published page in a browser', () => { … });
 * ```
 */
export const describeWithChromium = (name: string, body: () => void) =>
  existsSync(CHROMIUM) ? describe(name, body) : describe.skip(`${name} (${HOW_TO_RUN})`, body);

/**
 * Launches Debian's Chromium headless through playwright-core, with nothing that reaches the
 * internet on its own.
 *
 * @example
 * ```ts
 * const browser = await launchChromium();
 * onTestFinished(() => browser.close());
 * ```
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
}

/** What a browser shows of a page: its title, meta description, canonical link, h1, and whether a script of the article ran. */
export interface RenderedPage {
  status: number | undefined;
  title: string;
  description: string | null;
  canonical: string | null;
  heading: string | null;
  /** True when something set `window.__stolen`: the article's HTML ran a script. */
  scriptRan: boolean;
}

/**
 * Opens `url` in a fresh page (external requests, such as a featured image on a CDN, are
 * answered empty so the test never leaves the machine) and reads what a visitor and a crawler
 * rendering JavaScript see.
 *
 * @example
 * ```ts
 * expect(await renderPage(browser, `${site}/articles/hello`)).toMatchObject({ title: 'Hello' });
 * ```
 */
export async function renderPage(browser: Browser, url: string): Promise<RenderedPage> {
  const page = await browser.newPage();
  try {
    const origin = new URL(url).origin;
    await page.route(
      (requested) => requested.origin !== origin,
      (route) => route.fulfill({ status: 204, body: '' }),
    );
    const response = await page.goto(url, { waitUntil: 'load' });
    return {
      status: response?.status(),
      title: await page.title(),
      description: await page.locator('meta[name="description"]').getAttribute('content'),
      canonical: await page.locator('link[rel="canonical"]').getAttribute('href'),
      heading: await page.locator('h1').first().textContent(),
      scriptRan: await page.evaluate(() => (globalThis as { __stolen?: unknown }).__stolen !== undefined),
    };
  } finally {
    await page.close();
  }
}
