import { mkdirSync, readFileSync } from 'node:fs';
import { get } from 'node:http';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { describeWithChromium, launchChromium } from '../helpers/chromium.js';
import { send } from '../helpers/http-client.js';
import { type CopiedStarter, copyStarter } from '../helpers/copy-starter.js';
import { type RunningStarter, startStarter } from '../helpers/starter-process.js';
import { type RunningInspect, startInspect } from './start-inspect.js';

const token = 'whk_inspector_secret_token_7f3a9c';

describeWithChromium('the delivery inspector in a real browser', () => {
  let starter: CopiedStarter;
  let endpoint: RunningStarter;
  let inspector: RunningInspect;
  let browser: Browser;
  let file: string;

  beforeAll(async () => {
    // The express-publisher starter, copied out of the repo and started with the inspector on.
    starter = await copyStarter('express-publisher');
    const env = { WEBHOOK_TOKEN: token, PORT: '0', HOST: '127.0.0.1', WEBHOOK_INSPECTOR: '1' };
    endpoint = await startStarter(starter.dir, env);
    file = join(starter.dir, '.webhook-inspector', 'deliveries.jsonl');
    // The inspector as a user starts it: the built CLI (npm test builds dist/ first).
    inspector = await startInspect(['--file', file, '--target', endpoint.url], { WEBHOOK_TOKEN: token });
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    inspector?.stop();
    await endpoint?.stop();
    await starter?.remove();
  });

  // One connection per request, never retried: fetch's pool may send a request again when the
  // server closed a kept-alive connection after a refusal, and the inspector would list it twice.
  const post = (delivery: { headers: Record<string, string>; body: string | Uint8Array<ArrayBuffer> }) =>
    send(endpoint.url, { headers: delivery.headers, body: delivery.body });

  it('lists four deliveries with their verdicts, diagnoses re-serialization, replays and sends', async () => {
    const good = signDelivery({ token, payload: articleSyncPayload({ article: { slug: 'good-one' } }) });
    const tampered = signDelivery({ token, payload: articleSyncPayload({ article: { slug: 'tampered' } }) });
    const wrongToken = signDelivery({ token: 'whk_some_other_configuration', payload: articleSyncPayload() });
    const original = signDelivery({ token, payload: articleSyncPayload({ article: { slug: 'reserialized' } }) });
    expect((await post(good)).status).toBe(200);
    // Tampered: the body was changed after signing, so only a re-signed replay can pass.
    const changed = String(tampered.body).replace('"Ten SEO tips', '"Eleven SEO tips');
    expect((await post({ ...tampered, body: changed })).status).toBe(403);
    expect((await post(wrongToken)).status).toBe(401);
    const pretty = JSON.stringify(JSON.parse(String(original.body)), null, 2);
    expect((await post({ ...original, body: pretty })).status).toBe(403);

    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const seen: string[] = [];
    page.on('response', async (response) => seen.push(await response.text().catch(() => '')));
    await page.goto(inspector.url);
    await page.locator('#rows tr').nth(3).waitFor();
    expect(await page.locator('#rows tr').count()).toBe(4);
    const verdicts = await page
      .locator('#rows tr')
      .evaluateAll((rows: Element[]) => rows.map((row) => row.getAttribute('data-verdict')));
    expect(verdicts.sort()).toEqual(['accepted', 'refused', 'refused', 'refused']);

    const row = (delivery: { headers: Record<string, string> }) =>
      page.locator('#rows tr', { hasText: delivery.headers['X-Service-Delivery-Id']! });
    await row(original).getByRole('button').click();
    await expect.poll(() => page.locator('#detail').innerText()).toMatch(/serializ/i);
    mkdirSync(join(process.cwd(), '.scratch'), { recursive: true });
    await page.screenshot({ path: join(process.cwd(), '.scratch', 'inspector.png') });
    if (process.env.UPDATE_SCREENSHOTS) await page.screenshot({ path: join(process.cwd(), 'docs', 'inspector.png') });

    // Replay the tampered one re-signed: the target accepts it now.
    await row(tampered).getByRole('button').click();
    await page.getByRole('button', { name: 'Replay re-signed (new delivery id)' }).click();
    await expect.poll(() => page.locator('#result').innerText()).toMatch(/Target answered 200/);

    // Send a test delivery from the page.
    await page.getByLabel('New delivery').selectOption('test');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => page.locator('#rows tr').count()).toBe(6);
    // The starter published the good article and the replayed one, and logged the test delivery.
    await expect.poll(() => endpoint.output()).toMatch(/Test Connection received/);

    // Keyboard: the filter and the row buttons are reachable and usable without a mouse.
    await page.getByLabel('Verdict').selectOption('refused');
    expect(await page.locator('#rows tr').count()).toBe(3);

    const html = await page.content();
    for (const text of [html, ...seen, readFileSync(file, 'utf8'), endpoint.output(), inspector.output()]) {
      expect(text).not.toContain(token);
    }
    await page.close();
  });

  it('refuses requests without the per-run secret or with another Host', async () => {
    const { origin } = new URL(inspector.url);
    expect((await fetch(`${origin}/`)).status).toBe(404);
    expect((await fetch(`${origin}/s/wrong-secret/`)).status).toBe(404);
    expect((await fetch(inspector.url)).status).toBe(200);
    const rebound = await new Promise<number>((resolve, reject) => {
      const { port, pathname } = new URL(inspector.url);
      get({ host: '127.0.0.1', port, path: pathname, headers: { host: `evil.example:${port}` } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      }).on('error', reject);
    });
    expect(rebound).toBe(404);
  });
});
