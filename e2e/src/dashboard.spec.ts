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
    await page.getByLabel('Scan the QR as phone number').fill(randomPhone());
    await page.getByRole('button', { name: 'Scan QR' }).click();
    await page.getByRole('status').filter({ hasText: 'session is connected' }).waitFor();
    await tab('Sessions');
    await page
      .getByTestId('session-state')
      .filter({ hasText: /^connected$/ })
      .waitFor({ timeout: 10_000 });
    await shot('sessions');
    await page.setViewportSize({ width: 390, height: 844 });
    await shot('phone-sessions');
    await page.setViewportSize({ width: 1000, height: 900 });
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

  it('sends a message, and a failed send is shown with its error and found in the log', async () => {
    await tab('Send');
    await page.getByLabel('To (phone number)').fill('254711111111');
    await page.getByRole('button', { name: 'Send message' }).click();
    await page.getByRole('status').filter({ hasText: 'message id' }).waitFor();

    await page.getByLabel('From session').fill('offline');
    await page.getByRole('button', { name: 'Send message' }).click();
    await page.getByRole('alert').filter({ hasText: 'session_not_connected' }).waitFor();

    await tab('Sandbox');
    await page.getByTestId('outbox').filter({ hasText: '254711111111' }).waitFor();
    await shot('sandbox');

    await tab('Failed sends');
    await page.getByLabel('Session', { exact: true }).fill('offline');
    await page.getByTestId('failures').filter({ hasText: 'session_not_connected' }).waitFor();
    await page.getByLabel('Error code').selectOption('session_not_connected');
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
    await page.getByRole('button', { name: 'Save webhook' }).click();
    await page.getByTestId('shown-once').filter({ hasText: 'whsec_' }).waitFor();
    await page.getByRole('button', { name: 'Send test event' }).click();
    await receiver.waitFor('/dashboard', 1);
    await page
      .getByTestId('deliveries')
      .locator('tr', { hasText: 'webhook.test' })
      .filter({ hasText: 'success' })
      .waitFor();
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
    await page.getByLabel('Session', { exact: true }).fill('paired');
    await page.getByLabel('Scan the QR as phone number').fill(phone);
    await page.getByRole('button', { name: 'Scan QR' }).click();
    await page.getByRole('status').filter({ hasText: 'session is connected' }).waitFor();
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
    expect(sections).toEqual(['Sessions', 'Failed sends', 'Webhook', 'Usage']);
    expect(await page.getByRole('button', { name: 'Start session' }).count()).toBe(0);
  });

  it('as operator, suspends the account; its key is then refused, in the API and at sign-in', async () => {
    await signOut();
    await signIn(topology.adminToken, 'admin');
    const { name } = (
      await api.get(`/api/v1/admin/accounts/${account.accountId}`, { bearer: topology.adminToken })
    ).body.data;
    await page.getByRole('button', { name: `Suspend ${name}` }).click();
    await page.getByRole('button', { name: `Reinstate ${name}` }).waitFor();
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
});
