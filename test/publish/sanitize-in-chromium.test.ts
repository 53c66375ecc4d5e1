import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadHtmlSanitizer } from 'webhook-cms-receiver/publish';
import { describeWithChromium, launchChromium } from '../helpers/chromium.js';
import { VECTORS } from './xss-vectors.js';

// The corpus as a browser runs it: each vector's code is made to report itself (alert, a
// global), then the sanitized HTML is put in a real page by Chromium's own parser, every
// element is hovered, focused and clicked, and every URL the DOM holds is checked.
const reporting = (vector: string) =>
  vector.replaceAll('alert(1)', 'window.__ran=1').replaceAll('alert', 'window.__ran=');
const DEEP = [
  `${'<table><tr><td>'.repeat(390)}<img src=x onerror=window.__ran=1>${'</td></tr></table>'.repeat(390)}`,
  `${'<div>'.repeat(5000)}<a href="javascript:window.__ran=1">x</a>`,
  Array.from({ length: 300 }, (_, i) => `<p><b id=b${i}><img src=x onerror=window.__ran=${i}>`).join(''),
];

describeWithChromium('sanitizeHtml output rendered in Chromium', () => {
  let browser: Browser;
  let page: Page;
  let served = '';
  const sanitize = loadHtmlSanitizer();
  beforeAll(async () => {
    browser = await launchChromium();
    page = await browser.newPage();
    // The page itself is served from memory; anything it would load (an image) is answered empty.
    await page.route('**/*', (route) =>
      route.request().url() === 'http://site.test/'
        ? route.fulfill({ status: 200, contentType: 'text/html', body: served })
        : route.fulfill({ status: 204, body: '' }),
    );
  }, 60_000);
  afterAll(() => browser?.close());

  const cases = [...VECTORS.map(reporting), ...DEEP].map((vector, index) => [index, vector] as const);
  it.each(cases)('runs no code: vector %i', async (_index, vector) => {
    const html = (await sanitize)(vector);
    let dialogs = 0;
    page.removeAllListeners('dialog');
    page.on('dialog', (dialog) => {
      dialogs++;
      void dialog.dismiss();
    });
    served = `<!doctype html><html><head><title>t</title></head><body>${html}</body></html>`;
    await page.goto('http://site.test/', { waitUntil: 'load' });
    const found = await page.evaluate(async () => {
      const bad: string[] = [];
      const safe = new Set(['http:', 'https:', 'mailto:', 'irc:', 'ircs:', 'xmpp:']);
      for (const element of document.querySelectorAll('*')) {
        for (const { name, value } of element.attributes) {
          if (/^on/i.test(name) || name === 'style' || name === 'srcdoc') bad.push(`${element.tagName}[${name}]`);
          if (['href', 'src', 'action', 'formaction', 'data', 'poster', 'xlink:href', 'background'].includes(name)) {
            const protocol = new URL(value, document.baseURI).protocol;
            if (!safe.has(protocol)) bad.push(`${element.tagName}[${name}=${value}]`);
          }
        }
        if (/^(SCRIPT|IFRAME|OBJECT|EMBED|BASE|META|LINK|FORM|STYLE)$/.test(element.tagName) && element.closest('body'))
          bad.push(element.tagName);
        for (const type of ['mouseover', 'focus', 'click'])
          element.dispatchEvent(new Event(type, { bubbles: true, cancelable: true }));
      }
      await new Promise((resolve) => setTimeout(resolve, 0));
      return { bad, ran: (globalThis as { __ran?: unknown }).__ran !== undefined };
    });
    expect(found).toEqual({ bad: [], ran: false });
    expect(dialogs).toBe(0);
  });
});
