/**
 * The pages in a real browser (Debian's Chromium through playwright-core), against nightgate on the
 * embedded devnet with all three networks: `/` loads with no console error (a refused script or
 * style, a failed request and a thrown exception are all console errors), each network's tip is the
 * one `/api/v1/{network}/latest-block` answers, the height moves within two blocks, and an operator
 * key shows the sponsorship pool, each server wallet's NIGHT address and registration, the fee
 * prices, and its requests and usage (Keys); with a stubbed /wallet-status, a wallet without NIGHT
 * and an unregistered one are shown as warnings that say what to do; `/api` lists
 * every route of the OpenAPI document and its "Try it out" of the summary answers 200. Screenshots
 * go to test-artifacts/ (git-ignored), for CI to keep.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import type { Browser, Page } from 'playwright-core';
import { mountStats } from '../../src/features/stats/index.js';
import { mountProver } from '../../src/features/proving/index.js';
import { mountSponsorship } from '../../src/features/sponsorship/index.js';
import { NETWORKS } from '../../src/core/config/index.js';
import { startApp, TEST_KEY, type TestApp } from '../helpers/app.js';
import { USAGE_COMPONENT, type UsageComponent } from '../../src/features/sponsorship/policy/usage-component.js';

const CHROMIUM = process.env['NIGHTGATE_CHROMIUM'] ?? '/usr/bin/chromium';
const ARTIFACTS = join(fileURLToPath(new URL('../../', import.meta.url)), 'test-artifacts', 'browser');
/** The shortest block time the config allows with all three networks on the devnet. */
const BLOCK_MS = 3000;

const skip = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (Debian: apt-get install chromium; or set NIGHTGATE_CHROMIUM)`;

/** Polls until `check` returns a value; bounded, and says what it waited for. */
async function until<T>(what: string, check: () => Promise<T | undefined>, deadlineMs: number): Promise<T> {
  const end = Date.now() + deadlineMs;
  let last: unknown;
  for (;;) {
    const v = await check().catch((err: unknown) => void (last = err));
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out after ${deadlineMs} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Console errors, uncaught exceptions and failed requests of a page. */
function watch(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`exception: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText ?? ''}`));
  // Chrome's console line for an error answer does not name the URL: this does.
  page.on('response', (r) => {
    if (r.status() >= 400)
      void r.text().then(
        (b) => problems.push(`answer ${r.status()}: ${r.url()} ${b.slice(0, 200)}`),
        () => problems.push(`answer ${r.status()}: ${r.url()}`),
      );
  });
  return problems;
}

const heightOn = async (page: Page, network: string): Promise<number | undefined> => {
  const v = await page.getAttribute(`[data-network="${network}"]`, 'data-height');
  return v === null ? undefined : Number(v);
};

t.test('the dashboard and the API reference in Chromium', { skip, timeout: 240_000 }, async (t) => {
  mkdirSync(ARTIFACTS, { recursive: true });
  const s: TestApp = await startApp(
    // The devnet's indexer shares one thread with block production for all three networks: on 2
    // busy cores a block lookup may take longer than the default 10 s, and its 500 is a console error.
    { devnet: { blockTimeMs: BLOCK_MS }, dust: { targetUtxos: 8 }, stats: { upstreamTimeoutMs: 30_000 } },
    { devnet: true, modules: [mountStats, mountProver, mountSponsorship] },
  );
  t.teardown(() => s.close());
  // Ready: every network has statistics and synced DUST wallets, so the chain's start-up is behind it
  // and the page meets a devnet in its stride.
  await until('/readyz', async () => ((await fetch(`${s.url}/readyz`)).status === 200 ? true : undefined), 150_000);

  const { chromium } = await import('playwright-core');
  const browser: Browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-dev-shm-usage',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  t.teardown(() => browser.close());

  t.test('/: tips, live heights, operator panel, no console error', async (t) => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    t.teardown(() => context.close());
    const page = await context.newPage();
    const problems = watch(page);
    const res = await page.goto(`${s.url}/`);
    t.equal(res?.status(), 200);
    t.match(res?.headers()['content-security-policy'], /script-src 'self'/, 'scripts from nightgate only');

    for (const n of NETWORKS) {
      // The page follows the push channel; the route may be a block ahead for a moment: equal once both have it.
      const seen = await until(
        `${n}: the page's tip to equal latest-block`,
        async () => {
          const shown = await heightOn(page, n);
          const api = ((await (await fetch(`${s.url}/api/v1/${n}/latest-block`)).json()) as { height: number }).height;
          return shown === api ? shown : undefined;
        },
        4 * BLOCK_MS + 10_000,
      );
      t.pass(`${n}: the page shows tip ${seen}, as /api/v1/${n}/latest-block`);
      t.match(await page.textContent(`[data-network="${n}"] [data-field="protocol"]`), /^\d+ · (8|9)$/, `${n}: protocol version and ledger era`);
    }

    const before = (await heightOn(page, 'preview'))!;
    // Two blocks, and room for a loaded machine: the devnet yields its thread to serving.
    const after = await until(
      'the height to move on',
      async () => {
        const h = await heightOn(page, 'preview');
        return h !== undefined && h > before ? h : undefined;
      },
      2 * BLOCK_MS + 6000,
    ).catch(async (err: Error) => {
      // Tell a page that missed a block from a chain that made none.
      const api = ((await (await fetch(`${s.url}/api/v1/preview/latest-block`)).json()) as { height: number }).height;
      throw new Error(`${err.message} (the page shows ${await heightOn(page, 'preview')}, latest-block says ${api})`);
    });
    t.pass(`the height moved on from ${before} to ${after} without a reload`);
    await page.waitForSelector('[data-network="preview"] .uplot canvas', { state: 'attached', timeout: 15_000 });
    t.pass('the block chart is drawn');

    // The key's usage, as the sponsorship service records it (TEST_KEY is env-1): shown in the Keys section.
    const usage = s.app.context.component<UsageComponent>(USAGE_COMPONENT)!.ledger;
    usage.sponsored('env-1', 'preview', ['alice'], 2_500_000_000_000_000n, Date.now());
    usage.refused('env-1', 'preview', 'allow.contracts', Date.now());
    await page.fill('#key', TEST_KEY);
    await page.click('#key-save');
    await page.waitForSelector('[data-pool="preview"] [data-field="free"]', { timeout: 15_000 });
    for (const n of NETWORKS) {
      t.match(await page.textContent(`[data-pool="${n}"] [data-field="free"]`), /^[\d,]+$/, `${n}: free UTXOs shown`);
      t.match(await page.textContent(`[data-pool="${n}"] [data-field="target"]`), /\/ 8$/, `${n}: held against the target`);
      t.match(await page.textContent(`[data-pool="${n}"] [data-field="balance"]`), /DUST$/, `${n}: DUST balance`);
    }
    // Drawn with the pool, from the same /wallet-status answer.
    for (const n of NETWORKS) {
      t.match(
        await page.textContent(`[data-field="fees"] [data-fees="${n}"] [data-field="at-height"]`),
        /^[\d,]+$/,
        `${n}: the block the fee prices were read at`,
      );
      for (const price of ['overall', 'read', 'compute', 'block-usage', 'write']) {
        t.match(await page.textContent(`[data-field="fees"] [data-fees="${n}"] [data-field="${price}"]`), /^\d/, `${n}: fee price ${price}`);
      }
    }
    // The keeper reads the wallets' NIGHT once a block: their addresses show from the next refresh.
    for (const n of NETWORKS) {
      const cell = `[data-wallets="${n}"] [data-wallet="0"]`;
      const address = await until(
        `${n}: wallet 0's NIGHT address`,
        async () => {
          const a = await page.getAttribute(`${cell} [data-field="address"]`, 'title', { timeout: 1000 });
          return a ?? undefined;
        },
        30_000,
      );
      t.match(address, /^mn_addr(_[a-z]+)?1[a-z0-9]+$/, `${n}: wallet 0's NIGHT address`);
      t.equal(await page.textContent(`${cell} [data-field="address"]`), address, `${n}: the whole address is the cell's text`);
      t.match(await page.textContent(`${cell} [data-field="night"]`), /^[\d,.]+ NIGHT$/, `${n}: its NIGHT`);
      t.match(await page.textContent(`${cell} [data-field="dust"]`), /^[\d,.<\s]+ DUST$/, `${n}: its DUST`);
      t.match(
        await page.textContent(`${cell} [data-field="state"]`),
        /^(registered|No NIGHT — send NIGHT to mn_addr_\w+|Unregistered — run: nightgate wallet register --network \w+)$/,
        `${n}: its state`,
      );
    }
    await page.waitForSelector('[data-field="queue"] [data-field="worker-pool"]', { timeout: 10_000 });
    const keyCell = (name: string) => page.textContent(`[data-field="keys"] [data-key="env-1"] [data-field="${name}"]`);
    t.equal(await keyCell('sponsorships'), '1', "Keys: the key's sponsorships (GET /usage)");
    t.equal(await keyCell('dust'), '2.5 DUST', 'Keys: the DUST they cost');
    t.equal(await keyCell('expired'), '0', 'Keys: none expired');
    t.equal(await keyCell('rules'), 'allow.contracts 1', 'Keys: refusals by rule');
    t.equal(await keyCell('policy'), 'any transaction', 'Keys: what the key may sponsor (an env key has no policy)');
    // The panel's own requests carry the key: counted, and shown at a later refresh if not at the first.
    const requests = await until(
      "the key's requests to be counted",
      async () => {
        const n = Number((await keyCell('requests'))?.replace(/,/g, ''));
        return n > 0 ? n : undefined;
      },
      15_000,
    );
    t.pass(`Keys: the key's requests (${requests})`);
    t.match(await keyCell('refused'), /^(0|[\d,]+ · [A-Z_]+ \d)/, 'Keys: refused requests by code');
    t.equal(await page.evaluate('sessionStorage.getItem("nightgate.operatorKey")'), TEST_KEY, 'the key is kept for the tab');
    t.equal(await page.evaluate('localStorage.length'), 0, 'and nowhere else');

    await page.screenshot({ path: join(ARTIFACTS, 'dashboard-1280.png'), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    // Not waitForFunction: its text predicates are eval'd in the page, which the page's CSP forbids.
    // The charts are redrawn to the new width shortly after the resize.
    const widths = async (): Promise<[number, number]> =>
      (await page.evaluate('[document.documentElement.scrollWidth, window.innerWidth]')) as [number, number];
    const fits = await until(
      'the page to fit the phone width',
      async () => {
        const [content, view] = await widths();
        return content <= view + 1 ? content : undefined;
      },
      5000,
    ).catch(async (err: Error) => {
      throw new Error(`${err.message}: ${(await widths()).join(' px in ')} px`);
    });
    t.pass(`no horizontal scroll at phone width (${fits} px)`);
    await page.screenshot({ path: join(ARTIFACTS, 'dashboard-390.png'), fullPage: true });
    t.strictSame(problems, [], 'no console error, exception or failed request');
  });

  t.test("/: each server wallet's state, its warnings and its address (a stubbed /wallet-status)", async (t) => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, permissions: ['clipboard-read', 'clipboard-write'] });
    t.teardown(() => context.close());
    const page = await context.newPage();
    const problems = watch(page);
    // The server's own answer, with preview's wallets in the three states and preprod's not read yet.
    const real = (await (await fetch(`${s.url}/wallet-status`, { headers: { 'x-api-key': TEST_KEY } })).json()) as Record<string, Record<string, unknown>>;
    const A = [
      'mn_addr_preview1qy3ykzjhn9ck0r5h6kl9f4wmx0eqprd7gj2lhy6sva2c8y5dqqsz3w2ax',
      'mn_addr_preview1x8n2tk6f0j5cmh7d4wq9ru3lesa0yzp2vkgx6n8jt4r5hc7m9fqs6de0u',
      'mn_addr_preview1v7ad9ehs4m2kq8j0xf6wu3ptgl5cyrz9nkd2h7q4s6m8x0a3jfeqs0k8t',
    ];
    const wallet = (index: number, night: string, nightUtxos: number, registered: boolean, problem: string | null) => ({
      index,
      balance: index === 0 ? '2500000000000000' : '0',
      utxos: index === 0 ? 3 : 0,
      address: A[index],
      dustAddress: `mn_dust_preview1${index}`,
      night,
      nightUtxos,
      idleNightUtxos: index === 0 ? 1 : nightUtxos,
      registered,
      problem,
    });
    const stubbed = {
      ...real,
      preview: {
        ...real['preview'],
        walletsReadAt: new Date().toISOString(),
        wallets: [wallet(0, '1500000000', 4, true, null), wallet(1, '0', 0, false, 'no NIGHT'), wallet(2, '150000000000', 2, false, 'unregistered')],
      },
      preprod: { ...real['preprod'], walletsReadAt: null, wallets: [{ index: 0, balance: '0', utxos: 0 }] },
    };
    await page.route('**/wallet-status', (route) => route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(stubbed) }));
    await page.goto(`${s.url}/`);
    await page.fill('#key', TEST_KEY);
    await page.click('#key-save');
    const row = (i: number) => `[data-wallets="preview"] [data-wallet="${i}"]`;
    await page.waitForSelector(`${row(2)} [data-field="state"]`, { timeout: 15_000 });

    for (const [i, a] of A.entries()) {
      t.equal(await page.textContent(`${row(i)} [data-field="address"]`), a, `wallet ${i}: its whole address is the cell's text (a selection copies it)`);
      t.equal(await page.getAttribute(`${row(i)} [data-field="address"]`, 'title'), a, `wallet ${i}: and its title`);
    }
    const [shown, whole] = await page.$eval(`${row(0)} .addr-head`, (e) => [e.clientWidth, e.scrollWidth]);
    t.ok(shown < whole, `the address is shortened on screen (${shown} of ${whole} px)`);
    t.equal(await page.textContent(`${row(0)} [data-field="night"]`), '1,500 NIGHT', 'NIGHT, from STAR');
    t.equal(await page.textContent(`${row(0)} [data-field="night-utxos"]`), '4 (1 idle)', 'NIGHT UTXOs, those that generate no DUST yet');
    t.equal(await page.textContent(`${row(0)} [data-field="dust"]`), '2.5 DUST', 'DUST, from SPECK');
    t.equal(await page.textContent(`${row(0)} [data-field="dust-utxos"]`), '3', 'DUST UTXOs');
    t.equal(await page.textContent(`${row(0)} [data-field="state"]`), 'registered');
    t.equal(await page.textContent(`${row(1)} [data-field="night"]`), '0 NIGHT');
    t.equal(await page.textContent(`${row(1)} [data-field="state"]`), `No NIGHT — send NIGHT to ${A[1]}`, 'a wallet without NIGHT: where to send it');
    t.equal(
      await page.textContent(`${row(2)} [data-field="state"]`),
      'Unregistered — run: nightgate wallet register --network preview',
      'an unregistered wallet: the command',
    );
    for (const i of [1, 2]) t.match(await page.getAttribute(`${row(i)} [data-field="state"]`, 'class'), /\bwarn\b/, `wallet ${i}: styled as a warning`);
    t.notMatch(await page.getAttribute(`${row(0)} [data-field="state"]`, 'class'), /\bwarn\b/, 'a registered wallet is not');
    t.equal(
      await page.textContent('[data-field="wallet-warning"]'),
      '2 server wallets cannot generate DUST: see State below.',
      'the panel says so above the tables',
    );
    t.equal(await page.textContent('[data-wallets="preprod"] [data-wallet="0"] [data-field="address"]'), 'not read yet', 'preprod: the address not read yet');
    t.equal(await page.textContent('[data-wallets="preprod"] [data-wallet="0"] [data-field="state"]'), 'not read yet', 'nor the state');
    t.ok(await page.$('[data-pool="preview"] [data-field="free"]'), 'the pool rows stay');
    t.ok(await page.$('[data-fees="preview"] [data-field="overall"]'), 'and the fee prices');

    await page.click(`${row(1)} [data-field="copy"]`);
    t.equal(await page.evaluate('navigator.clipboard.readText()'), A[1], 'Copy puts the whole address on the clipboard');

    await page.screenshot({ path: join(ARTIFACTS, 'dashboard-wallets-1280.png'), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    const widths = async (): Promise<[number, number]> =>
      (await page.evaluate('[document.documentElement.scrollWidth, window.innerWidth]')) as [number, number];
    const fits = await until(
      'the page to fit the phone width',
      async () => {
        const [content, view] = await widths();
        return content <= view + 1 ? content : undefined;
      },
      5000,
    ).catch(async (err: Error) => {
      throw new Error(`${err.message}: ${(await widths()).join(' px in ')} px`);
    });
    t.pass(`the wallets' warnings keep the page to the phone width (${fits} px)`);
    await page.screenshot({ path: join(ARTIFACTS, 'dashboard-wallets-390.png'), fullPage: true });
    t.strictSame(problems, [], 'no console error, exception or failed request');
  });

  t.test('/api: every route listed, "Try it out" of the summary answers 200', async (t) => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    t.teardown(() => context.close());
    const page = await context.newPage();
    const problems = watch(page);
    const res = await page.goto(`${s.url}/api`);
    t.equal(res?.status(), 200);
    await page.waitForSelector('.opblock', { timeout: 30_000 });

    const doc = (await (await fetch(`${s.url}/api/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const expected = Object.entries(doc.paths)
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`))
      .sort();
    const listed = (
      await page.$$eval('.opblock', (blocks) =>
        blocks.map(
          (b) =>
            `${b.querySelector('.opblock-summary-method')?.textContent ?? ''} ${b.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? ''}`,
        ),
      )
    ).sort();
    t.strictSame(listed, expected, `all ${expected.length} operations are listed`);

    const op = page.locator('.opblock', { has: page.locator('.opblock-summary-path[data-path="/api/v1/{network}/summary"]') });
    await op.locator('.opblock-summary').first().click();
    await op.locator('.try-out__btn').click();
    // The network is an enum in the document: Swagger UI offers the three as a list.
    const network = op.locator('tr[data-param-name="network"] select');
    t.strictSame(
      (await network.locator('option').allTextContents()).filter((o) => o !== '--'),
      ['mainnet', 'preprod', 'preview'],
      'the networks offered as a list',
    );
    await network.selectOption('preview');
    await op.locator('.execute').click();
    const status = op.locator('.live-responses-table tr.response .response-col_status').first();
    await status.waitFor({ timeout: 15_000 });
    t.equal(
      (await status.textContent())?.trim(),
      '200',
      `the summary, fetched from the page (${await op
        .locator('.request-url')
        .first()
        .textContent()
        .catch(() => '?')})`,
    );
    await page.screenshot({ path: join(ARTIFACTS, 'api-try-summary.png'), fullPage: false });
    t.strictSame(problems, [], 'no console error, exception or failed request');
  });
});
