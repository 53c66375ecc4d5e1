import type { Browser, Page } from 'playwright-core';

/** What a page did that it must not: dialogs, script errors, console lines and CSP violations. */
export interface PageTrouble {
  dialogs: string[];
  errors: string[];
  console: string[];
  /** Read with {@link violations}: the page's own `securitypolicyviolation` events. */
}

/**
 * A fresh page that records every dialog (an `alert` that ran), uncaught error, console line
 * and, through an init script (run by the browser, outside the page's CSP), every
 * `securitypolicyviolation` event.
 */
export async function watchedPage(browser: Browser): Promise<{ page: Page; trouble: PageTrouble }> {
  const page = await browser.newPage();
  const trouble: PageTrouble = { dialogs: [], errors: [], console: [] };
  page.on('dialog', (dialog) => {
    trouble.dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on('pageerror', (error) => trouble.errors.push(error.message));
  page.on('console', (message) => trouble.console.push(`${message.type()}: ${message.text()}`));
  await page.addInitScript(() => {
    const seen: string[] = [];
    (globalThis as { __violations?: string[] }).__violations = seen;
    document.addEventListener('securitypolicyviolation', (event) =>
      seen.push(`${event.violatedDirective} ${event.blockedURI}`),
    );
  });
  return { page, trouble };
}

/** The CSP violations the page reported since it loaded. */
export function violations(page: Page): Promise<string[]> {
  return page.evaluate(() => (globalThis as { __violations?: string[] }).__violations ?? []);
}
