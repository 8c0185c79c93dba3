import { type ApiClient, RecordingReceiver } from '@jumbe/testing';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { type Browser, chromium, type Page } from 'playwright-core';
import { expectError } from './support/expect-error';
import { createAccount, type TestAccount } from './support/operator';
import { eventually, randomPhone } from './support/sandbox-helpers';
import { startAllInOne, type Topology } from './support/topology';

const SCREENSHOTS = join(__dirname, '..', '..', 'docs', 'screenshots');
const DIST = join(__dirname, '..', '..', 'dist', 'dashboard');
const CHROMIUM = process.env['JUMBE_TEST_CHROMIUM'] ?? '/usr/bin/chromium';
/** Screenshots are rewritten only on request, so an ordinary run leaves the tree clean. */
const TAKE_SCREENSHOTS = process.env['JUMBE_SCREENSHOTS'] === '1';

/**
 * The dashboard in Debian's Chromium, headless, against the all-in-one process on the sandbox
 * network: what a newcomer does, click by click, through the public API only.
 */
describe('dashboard in a real browser (all-in-one, sandbox network)', () => {
  let topology: Topology;
  let api: ApiClient;
  let account: TestAccount;
  let receiver: RecordingReceiver;
  let browser: Browser;
  let page: Page;
  const base = () => `${api.baseUrl}/dashboard/`;
  const missing: string[] = [];
  /** Whether the gateway has the live event stream (it answers a stream, not a 404). */
  async function hasEventStream(): Promise<boolean> {
    const response = await fetch(`${api.baseUrl}/api/v1/events`, {
      headers: { 'x-api-key': account.key, accept: 'text/event-stream' },
    });
    // A stream never ends by itself: cancelling the body closes it.
    await response.body?.cancel();
    return response.status !== 404;
  }
  /** The page's requests to the API while `during` runs. */
  async function apiRequestsDuring(during: () => Promise<void>): Promise<string[]> {
    const seen: string[] = [];
    const listener = (request: { url(): string; method(): string }) => {
      if (request.url().includes('/api/v1/')) seen.push(`${request.method()} ${request.url()}`);
    };
    page.on('request', listener);
    try {
      await during();
    } finally {
      page.off('request', listener);
    }
    return seen;
  }
  /** Makes the page believe its browser tab was hidden or shown again. */
  const setTabVisible = (visible: boolean) =>
    page.locator('html').evaluate((html, shown) => {
      const shownDocument = html.ownerDocument;
      Object.defineProperty(shownDocument, 'visibilityState', {
        configurable: true,
        get: () => (shown ? 'visible' : 'hidden'),
      });
      shownDocument.dispatchEvent(new Event('visibilitychange'));
    }, visible);

  beforeAll(async () => {
    [topology, receiver, browser] = await Promise.all([
      startAllInOne({ JUMBE_ALLOW_PRIVATE_NETWORKS: 'true' }),
      RecordingReceiver.start(),
      chromium.launch({
        executablePath: CHROMIUM,
        args: [
          '--no-sandbox',
          '--disable-gpu',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
          '--no-first-run',
        ],
      }),
    ]);
    api = topology.gateways[0]!;
    account = await createAccount(api, topology.adminToken, { maxSessions: 2 });
    page = await browser.newPage({ viewport: { width: 1000, height: 900 } });
    page.setDefaultTimeout(10_000);
    page.on('dialog', (dialog) => void dialog.accept());
    page.on('response', (response) => {
      // The API's refusals are part of the tests; the page's own files must all load.
      if (response.status() >= 400 && !response.url().includes('/api/v1/')) missing.push(response.url());
    });
    if (TAKE_SCREENSHOTS) mkdirSync(SCREENSHOTS, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await topology?.stop();
  });

  const shot = async (name: string) => {
    if (TAKE_SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  };
  const tab = (name: string) =>
    page.getByRole('navigation').getByRole('button', { name, exact: true }).click();
  async function signIn(secret: string, kind: 'key' | 'admin' = 'key') {
    await page.goto(base());
    if (kind === 'admin') await page.getByLabel('Operator (admin token)').check();
    await page.getByLabel(kind === 'key' ? 'API key' : 'Admin token', { exact: true }).fill(secret);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }
  async function signOut() {
    await page.getByRole('button', { name: 'Sign out' }).click();
  }

  it('serves hashed assets for a year, the page uncached, both under a CSP that allows only itself', async () => {
    const redirect = await fetch(`${api.baseUrl}/dashboard`, { redirect: 'manual' });
    expect([301, 302, 308]).toContain(redirect.status);
    const index = await fetch(base());
    expect(index.status).toBe(200);
    expect(index.headers.get('cache-control')).toBe('no-cache');
    const csp = index.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/unsafe|https?:|\*/);
    const html = await index.text();
    const script = /src="(\/dashboard\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${api.baseUrl}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(asset.headers.get('content-security-policy')).toBe(csp);
    expect((await fetch(`${api.baseUrl}/dashboard/assets/nope.js`)).status).toBe(404);

    const files = readdirSync(join(DIST, 'assets'));
    const gzip = files.reduce(
      (sum, file) => sum + gzipSync(readFileSync(join(DIST, 'assets', file))).length,
      0,
    );
    process.stdout.write(`dashboard bundle: ${files.join(', ')}; ${gzip} bytes gzip\n`);
  });

  it('shows the sign-in screen fast, and a wrong key gets an error message, not a blank page', async () => {
    const started = Date.now();
    await page.goto(base());
    await page.getByLabel('API key', { exact: true }).waitFor();
    const firstScreenMs = Date.now() - started;
    const paint = await page.evaluate(
      () => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null,
    );
    process.stdout.write(
      `dashboard first screen: ${firstScreenMs} ms to the sign-in form, FCP ${paint} ms\n`,
    );
    await shot('sign-in');
    const icon = await fetch(`${api.baseUrl}/dashboard/favicon.svg`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toContain('image/svg+xml');
    expect(await page.locator('link[rel="icon"]').getAttribute('href')).toBe('/dashboard/favicon.svg');
    // Each radio button sits right before its label's words, on the same line.
    for (const name of ['Customer (API key)', 'Operator (admin token)']) {
      const gap = await page.getByLabel(name).evaluate((radio) => {
        const text = radio.parentElement!.lastChild!;
        const range = radio.ownerDocument.createRange();
        range.selectNodeContents(text);
        const words = range.getBoundingClientRect();
        const box = radio.getBoundingClientRect();
        return {
          apart: words.left - box.right,
          rows: Math.abs(words.top + words.height / 2 - (box.top + box.height / 2)),
        };
      });
      expect(gap.apart).toBeGreaterThanOrEqual(0);
      expect(gap.apart).toBeLessThanOrEqual(12);
      expect(gap.rows).toBeLessThanOrEqual(6);
    }
    await page.getByLabel('API key', { exact: true }).fill('jmb_not_a_real_key_0000000000000000');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Missing or invalid API key' }).waitFor();
    expect(await page.getByLabel('API key', { exact: true }).isVisible()).toBe(true);
  });

  it('starts a session, shows its QR, links it from the sandbox panel and sees it connected', async () => {
    await signIn(account.key);
    await page.getByTestId('session-cap').filter({ hasText: '0 of 2 sessions' }).waitFor();
    await page.getByRole('button', { name: 'Start session' }).click();
    const qr = page.getByTestId('qr');
    await qr.waitFor({ timeout: 20_000 });
    expect((await qr.boundingBox())!.width).toBeGreaterThanOrEqual(250);
    await shot('session-qr');

    await tab('Sandbox');
    expect(await page.getByLabel('Session', { exact: true }).inputValue()).toBe('default');
    await page.getByLabel('Scan the QR as phone number').fill(randomPhone());
    await page.getByRole('button', { name: 'Scan QR' }).click();
    await page.getByRole('status').filter({ hasText: 'session default is connected' }).waitFor();
    // Scanning a linked session again: the refusal says once what is wrong and what to do.
    await page.getByRole('button', { name: 'Scan QR' }).click();
    const refusal = page.getByRole('alert').filter({ hasText: 'session_not_ready' });
    await refusal.waitFor();
    const said = (await refusal.textContent()) ?? '';
    expect(said).toContain('start the session, then scan its QR code or enter its pairing code');
    expect(said.match(/not waiting/g)).toHaveLength(1);
    expect(said).not.toContain('/api/v1');
    await tab('Sessions');
    await page
      .getByTestId('session-state')
      .filter({ hasText: /^connected$/ })
      .waitFor({ timeout: 10_000 });
    await page.setViewportSize({ width: 1280, height: 900 });
    await shot('sessions');
    await page.setViewportSize({ width: 1000, height: 900 });
  });

  it('fits a 390 px phone: nothing wider than the screen, every Sessions column readable', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await tab('Sessions');
      const row = page.getByTestId('sessions').locator('tr[data-session="default"]');
      await row.waitFor();
      expect(await page.locator('html').evaluate((html) => html.scrollWidth)).toBeLessThanOrEqual(390);
      // Each cell of the row (state, reason, phone, updated, its button) lies within the screen.
      for (const cell of await row.locator('td').all()) {
        const box = await cell.boundingBox();
        expect(box).not.toBeNull();
        expect(box!.x).toBeGreaterThanOrEqual(0);
        expect(box!.x + box!.width).toBeLessThanOrEqual(390);
      }
      expect(await row.locator('td[data-label="State"]').textContent()).toBe('connected');
      await shot('phone-sessions');
    } finally {
      await page.setViewportSize({ width: 1000, height: 900 });
    }
  });

  it('costs no API hits for what it reads or changes: it calls with a dashboard session, never the key', async () => {
    const hits = async () =>
      (await api.get('/api/v1/usage', { key: account.key })).body.data.apiHits as number;
    const before = await hits();
    const credentials: string[] = [];
    const recordCredential = (request: { url(): string; headers(): Record<string, string> }) => {
      if (!request.url().includes('/api/v1/')) return;
      const headers = request.headers();
      credentials.push(headers['x-api-key'] ?? headers['authorization'] ?? 'none');
    };
    page.on('request', recordCredential);
    const requests = await apiRequestsDuring(async () => {
      for (const name of ['Failed sends', 'Webhook', 'Usage', 'Chats', 'Sessions']) {
        await tab(name);
        await page.getByRole('heading', { level: 2 }).first().waitFor();
      }
      // A Sessions tab left open polls (every 5 s): at least one poll happens here.
      await page.waitForRequest((request) => request.url().endsWith('/api/v1/sessions'), { timeout: 8_000 });
      // One change: a contact writes to the session through the sandbox panel.
      await tab('Sandbox');
      await page.getByLabel('Text', { exact: true }).fill('Habari, bei gani?');
      await page.getByRole('button', { name: 'Send inbound' }).click();
      await page.getByRole('status').filter({ hasText: 'Message received by the session' }).waitFor();
    });
    page.off('request', recordCredential);
    const reads = requests.filter((r) => r.startsWith('GET '));
    expect(reads.length).toBeGreaterThanOrEqual(6);
    expect(requests.some((r) => r.startsWith('POST '))).toBe(true);
    // Only the second GET /usage above: nothing the dashboard read or changed.
    expect(await hits()).toBe(before + 1);
    // Every request carried the tab's dashboard session token; the tab keeps no key.
    expect(new Set(credentials.map((c) => c.replace(/^Bearer jds_[\w-]{43}$/, 'session')))).toEqual(
      new Set(['session']),
    );
    const kept = await page.evaluate<string>('JSON.stringify(sessionStorage)');
    expect(kept).toContain('jds_');
    expect(kept).not.toContain(account.key);
  });

  it('polls nothing while its browser tab is hidden, and catches up when it is shown', async () => {
    await tab('Sessions');
    await page.getByTestId('sessions').waitFor();
    await setTabVisible(false);
    const hidden = await apiRequestsDuring(() => page.waitForTimeout(6_000));
    expect(hidden).toEqual([]);
    const shown = await apiRequestsDuring(async () => {
      const caughtUp = page.waitForRequest((request) => request.url().endsWith('/api/v1/sessions'), {
        timeout: 3_000,
      });
      await setTabVisible(true);
      await caughtUp;
    });
    expect(shown).toContain(`GET ${api.baseUrl}/api/v1/sessions`);
  });

  it("shows the plan's session cap and, at the cap, the API's upgrade message", async () => {
    await page.getByLabel('Session id').fill('second');
    await page.getByRole('button', { name: 'Start session' }).click();
    await page.getByTestId('session-cap').filter({ hasText: '2 of 2 sessions' }).waitFor();
    await page.getByText("Your plan's session cap is reached").waitFor();
    await page.getByLabel('Session id').fill('third');
    await page.getByRole('button', { name: 'Start session' }).click();
    await page.getByRole('alert').filter({ hasText: 'Upgrade the plan' }).waitFor();
    await page.getByRole('alert').filter({ hasText: 'instance_limit_reached' }).waitFor();
    await page.getByRole('button', { name: 'Open second' }).click();
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByTestId('session-cap').filter({ hasText: '1 of 2 sessions' }).waitFor();
  });

  it('sends a message, counted as sent, and a failed send is shown with its error and found in the log', async () => {
    const usage = async () => (await api.get('/api/v1/usage', { key: account.key })).body.data;
    const sentBefore = (await usage()).messagesSent as number;
    await tab('Send');
    await page.getByLabel('To (phone number)').fill('254711111111');
    await page.getByRole('button', { name: 'Send message' }).click();
    await page.getByRole('status').filter({ hasText: 'message id' }).waitFor();

    // Another kind: a location, which the sandbox network receives as such.
    await page.getByLabel('Kind').selectOption('location');
    await page.getByLabel('Place name').fill('Duka la Mama');
    await page.getByRole('button', { name: 'Send message' }).click();
    await page.getByRole('status').filter({ hasText: 'message id' }).waitFor();

    // A refused send: its error is shown once, not once per detail.
    await page.getByLabel('Kind').selectOption('text');
    await page.getByLabel('To (phone number)').fill('12');
    await page.getByRole('button', { name: 'Send message' }).click();
    const refusal = page.getByRole('alert').filter({ hasText: 'invalid_phone' });
    await refusal.waitFor();
    const text = (await refusal.textContent()) ?? '';
    // The API's message names the problem, and so does its detail: the page says it once.
    expect(text.split('to must be an international number').length - 1).toBe(1);

    // The dashboard's sends count as messages sent, like any send (only the API hits are spared).
    expect((await usage()).messagesSent).toBe(sentBefore + 2);

    await tab('Sandbox');
    await page.getByTestId('outbox').filter({ hasText: 'Duka la Mama' }).waitFor();
    await shot('sandbox');

    await tab('Failed sends');
    await page.getByLabel('Session', { exact: true }).selectOption('default');
    await page.getByTestId('failures').filter({ hasText: 'invalid_phone' }).waitFor();
    await page.getByLabel('Error code').selectOption('invalid_phone');
    const rows = page.getByTestId('failures').locator('tbody tr');
    expect(
      await eventually(
        () => rows.count(),
        (count) => count === 1,
      ),
    ).toBe(1);
    await shot('failed-sends');
  });

  it('configures the webhook, sends a test event and lists the delivery', async () => {
    await tab('Webhook');
    await page.getByText('Signing secret: not set yet').waitFor();
    await page.getByLabel('Webhook URL').fill(`${receiver.url}/dashboard`);
    await page.getByLabel('session.status').check();
    await page.getByLabel('Automatic retries of a failed delivery').selectOption('3');
    await page.getByRole('button', { name: 'Save webhook' }).click();
    await page.getByTestId('shown-once').filter({ hasText: 'whsec_' }).waitFor();
    const saved = (await api.get('/api/v1/webhook', { key: account.key })).body.data;
    expect(saved.events).toEqual(expect.arrayContaining(['message.received', 'session.status']));
    expect(saved.retry).toEqual({ attempts: 3 });
    await page.getByRole('button', { name: 'Send test event' }).click();
    await receiver.waitFor('/dashboard', 1);
    const row = page
      .getByTestId('deliveries')
      .locator('tr', { hasText: 'webhook.test' })
      .filter({ hasText: 'success' });
    await row.waitFor();
    // What the receiver answered, as the delivery record keeps it.
    expect(await row.locator('td[data-label="Receiver answered"] summary').textContent()).toBe('ok');
    await shot('webhook');
  });

  it('redelivers a delivery from the list: the receiver gets the event again', async () => {
    const before = (await receiver.waitFor('/dashboard', 1)).length;
    const row = page.getByTestId('deliveries').locator('tr', { hasText: 'webhook.test' }).first();
    await row.getByRole('button', { name: 'Redeliver' }).click();
    await page.getByRole('status').filter({ hasText: 'Event redelivered' }).waitFor();
    const requests = await receiver.waitFor('/dashboard', before + 1);
    expect(requests.length).toBe(before + 1);
    // The redelivery is the same event again.
    expect(requests.at(-1)!.json.event).toBe(requests[0]!.json.event);
  });

  it("shows a chat of the picked session's messages, and replies from it", async () => {
    const streaming = await hasEventStream();
    await tab('Chats');
    await page.getByRole('button', { name: '254711111111' }).click();
    const chat = page.getByTestId('chat');
    await chat.locator('[data-direction="out"]', { hasText: 'Habari from the Jumbe dashboard' }).waitFor();
    await chat.locator('[data-direction="out"]', { hasText: '[location]' }).waitFor();
    if (streaming) {
      await page.getByTestId('stream-state').filter({ hasText: 'Live' }).waitFor();
      await api.post('/api/v1/sandbox/inbound', {
        key: account.key,
        body: { sessionId: 'default', from: '254711111111', text: 'Nataka viatu' },
      });
      await chat.locator('[data-direction="in"]', { hasText: 'Nataka viatu' }).waitFor();
    } else {
      await page.getByRole('alert').filter({ hasText: 'Event stream unavailable' }).waitFor();
    }
    await page.getByLabel('Reply').fill('Karibu!');
    await page.getByRole('button', { name: 'Send reply' }).click();
    await chat.locator('[data-direction="out"]', { hasText: 'Karibu!' }).waitFor();
    const outbox = await api.get('/api/v1/sandbox/outbox?sessionId=default&limit=5', { key: account.key });
    expect(outbox.body.data.map((m: { content: { text?: string } }) => m.content.text)).toContain('Karibu!');
    await page.setViewportSize({ width: 1280, height: 900 });
    await shot('chats');
    await page.setViewportSize({ width: 390, height: 844 });
    await shot('phone-chats');
    await page.setViewportSize({ width: 1000, height: 900 });
  });

  it('monitors live events from the event stream, or says plainly that there is none', async () => {
    // A gateway from before the stream answers its route 404: the monitor says so, and retries.
    const missingRoute = '**/api/v1/events**';
    await tab('Usage'); // closes the stream the Chats tab opened
    await page.route(missingRoute, (route) =>
      route.fulfill({
        status: 404,
        contentType: 'application/json',
        body: JSON.stringify({ message: 'Route GET:/api/v1/events not found', error: { code: 'not_found' } }),
      }),
    );
    await tab('Live events');
    await page.getByRole('alert').filter({ hasText: 'Event stream unavailable' }).waitFor();
    expect(await page.getByTestId('stream-state').textContent()).toContain('answered 404');
    await page.unroute(missingRoute);
    if (!(await hasEventStream())) return;
    // Leaving the tab and coming back opens the stream at once.
    await tab('Usage');
    await tab('Live events');
    await page.getByTestId('stream-state').filter({ hasText: 'Live' }).waitFor();
    await api.post('/api/v1/sandbox/inbound', {
      key: account.key,
      body: { sessionId: 'default', from: '254722222222', text: 'Monitor me' },
    });
    const event = page
      .getByTestId('events')
      .locator('li[data-event="message.received"]', { hasText: 'Monitor me' });
    await event.waitFor();
    await event.locator('summary').click();
    expect(JSON.parse((await event.locator('pre').textContent()) ?? '{}')).toMatchObject({
      event: 'message.received',
      sessionId: 'default',
    });
    await page.setViewportSize({ width: 1280, height: 900 });
    await shot('live-events');
    await page.setViewportSize({ width: 1000, height: 900 });
  });

  it('links a session with a pairing code instead of the QR', async () => {
    await tab('Sessions');
    await page.getByLabel('Session id').fill('paired');
    await page.getByRole('button', { name: 'Start session' }).click();
    await page.getByTestId('qr').waitFor({ timeout: 20_000 });
    const phone = randomPhone();
    await page.getByLabel('Or link with a code: phone number').fill(phone);
    await page.getByRole('button', { name: 'Get pairing code' }).click();
    const shown = page.getByRole('status').filter({ hasText: 'Pairing code:' });
    await shown.waitFor();
    const code = (await shown.locator('strong').textContent())!.trim();
    expect(code).toMatch(/^[A-Z0-9-]{8,9}$/);
    const state = await api.get('/api/v1/session/qr?sessionId=paired', { key: account.key });
    expect(state.body.data.state).toBe('pairing_code_ready');
    await page.getByTestId('detail-state').filter({ hasText: 'pairing_code_ready' }).waitFor();

    // The phone types the code: in the sandbox, the panel's "scan" as the number the code was for.
    await tab('Sandbox');
    expect(await page.getByLabel('Session', { exact: true }).inputValue()).toBe('paired');
    const choices = await page.getByLabel('Session', { exact: true }).locator('option').allTextContents();
    expect(choices.map((choice) => choice.split(' ')[0])).toEqual(
      expect.arrayContaining(['default', 'paired']),
    );
    await page.getByLabel('Scan the QR as phone number').fill(phone);
    await page.getByRole('button', { name: 'Scan QR' }).click();
    await page.getByRole('status').filter({ hasText: 'session paired is connected' }).waitFor();
    await tab('Sessions');
    await page
      .locator('tr', { hasText: 'paired' })
      .getByTestId('session-state')
      .filter({ hasText: /^connected$/ })
      .waitFor({ timeout: 10_000 });
    const listed = await api.get('/api/v1/sessions', { key: account.key });
    expect(listed.body.data).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ sessionId: 'paired', state: 'connected', phoneNumber: phone }),
      ]),
    );
  });

  it('creates a key shown once, which works, and revokes it, after which it is refused', async () => {
    await tab('API keys');
    await page.getByLabel('New key name').fill('from-browser');
    await page.getByLabel('Scope', { exact: true }).selectOption('read');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.getByTestId('shown-once').textContent())!.trim();
    expect((await api.get('/api/v1/usage', { key })).status).toBe(200);
    await shot('keys');
    await tab('Usage');
    await page.getByText('Messages sent').waitFor();
    const chart = page.getByTestId('hits-chart');
    await chart.waitFor();
    const today = new Date().toISOString().slice(0, 10);
    expect(await chart.locator('rect').count()).toBe(new Date().getUTCDate());
    expect(
      Number(await chart.locator(`rect[data-date="${today}"]`).getAttribute('data-hits')),
    ).toBeGreaterThan(0);
    expect(await chart.getAttribute('aria-label')).toMatch(/^API hits per day: \d+ over \d+ days/);
    await shot('usage');
    await tab('API keys');
    const row = page.locator('tr', { hasText: 'from-browser' });
    await row.getByRole('button', { name: /^Revoke/ }).click();
    await row.getByRole('button', { name: /^Revoke/ }).waitFor({ state: 'detached' });
    expectError(await api.get('/api/v1/usage', { key }), 401, 'unauthorized');
  });

  it('fits every tab, its tables full by now, on a 390 px phone', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      for (const name of await page.getByRole('navigation').getByRole('button').allTextContents()) {
        await tab(name);
        await page.getByRole('heading', { level: 2 }).first().waitFor();
        await page.waitForLoadState('networkidle').catch(() => undefined);
        const width = await page.locator('html').evaluate((html) => html.scrollWidth);
        expect({ tab: name, width }).toEqual({ tab: name, width: 390 });
      }
    } finally {
      await page.setViewportSize({ width: 1000, height: 900 });
    }
  });

  it('gives a read key a read-only view', async () => {
    const read = await api.post('/api/v1/keys', { key: account.key, body: { scope: 'read' } });
    await signOut();
    await signIn(read.body.key);
    await page.getByText('This is a read-only key').waitFor();
    await page
      .getByTestId('session-state')
      .filter({ hasText: /^connected$/ })
      .first()
      .waitFor();
    const sections = await page.getByRole('navigation').getByRole('button').allTextContents();
    expect(sections).toEqual(['Sessions', 'Chats', 'Live events', 'Failed sends', 'Webhook', 'Usage']);
    expect(await page.getByRole('button', { name: 'Start session' }).count()).toBe(0);

    // Its key revoked, the tab's dashboard session ends at once: its next poll is refused and the
    // sign-in form comes back.
    await api.delete(`/api/v1/keys/${read.body.data.id}`, { key: account.key });
    await page.getByRole('status').filter({ hasText: 'Your dashboard session has ended' }).waitFor();
    expect(await page.evaluate<string>('JSON.stringify(sessionStorage)')).not.toContain('jds_');
    await signIn(account.key);
    await page.getByTestId('sessions').waitFor();
  });

  it('as operator, suspends the account; its key is then refused, in the API and at sign-in', async () => {
    // Signing out ends the dashboard session on the gateway: its token is refused from then on.
    const token = (
      JSON.parse(await page.evaluate<string>('sessionStorage.getItem("jumbe.dashboard.credential")')) as {
        credential: { token: string };
      }
    ).credential.token;
    expect((await api.get('/api/v1/usage', { bearer: token })).status).toBe(200);
    const ended = page.waitForResponse(
      (response) =>
        response.url().endsWith('/api/v1/dashboard/sessions/current') &&
        response.request().method() === 'DELETE',
    );
    await signOut();
    expect((await ended).status()).toBe(200);
    await page.getByLabel('API key', { exact: true }).waitFor();
    expectError(await api.get('/api/v1/usage', { bearer: token }), 401, 'unauthorized');
    await signIn(topology.adminToken, 'admin');
    const { name } = (
      await api.get(`/api/v1/admin/accounts/${account.accountId}`, { bearer: topology.adminToken })
    ).body.data;
    await page.getByRole('button', { name: `Suspend ${name}` }).click();
    await page.getByRole('button', { name: `Reinstate ${name}` }).waitFor();
    // The operator's tab keeps a session token for the admin routes, not the admin token.
    const operatorTab = await page.evaluate<string>('JSON.stringify(sessionStorage)');
    expect(operatorTab).toContain('jds_');
    expect(operatorTab).not.toContain(topology.adminToken);
    await shot('operator');

    // The account's usage (with the per-day chart) and sessions, as the operator sees them.
    await page.getByRole('button', { name: `Keys of ${name}` }).click();
    await page.getByRole('heading', { name: 'Usage of the account' }).waitFor();
    await page.getByTestId('hits-chart').waitFor();
    const sessions = page.getByTestId('account-sessions');
    await sessions.locator('tr', { hasText: 'paired' }).filter({ hasText: 'connected' }).waitFor();
    await sessions.locator('tr', { hasText: 'default' }).waitFor();

    // Editing the plan's limits takes effect for the account.
    await page.getByLabel(`Monthly API hits of ${account.planName}`).fill('123456');
    await page.getByRole('button', { name: `Save ${account.planName}` }).click();
    await page.getByText(`${account.planName}: 123456 API hits a month`).waitFor();
    await page.getByRole('button', { name: `Reinstate ${name}` }).click();
    await page.getByRole('button', { name: `Suspend ${name}` }).waitFor();
    expect((await api.get('/api/v1/usage', { key: account.key })).body.data.apiHitLimit).toBe(123456);
    await page.getByRole('button', { name: `Suspend ${name}` }).click();
    await page.getByRole('button', { name: `Reinstate ${name}` }).waitFor();
    expectError(await api.get('/api/v1/usage', { key: account.key }), 403, 'account_suspended');
    await signOut();
    await signIn(account.key);
    await page.getByRole('alert').filter({ hasText: 'suspended' }).waitFor();
  });

  it('loaded every file of its own (the favicon included) without a 4xx', () => {
    expect(missing).toEqual([]);
  });
});
