/**
 * The installed `@nightgate/client` in a real browser (Debian's Chromium through playwright-core):
 * the client's tarball installed into an empty project, whose files a loopback static server
 * serves with a page that imports the package by its name (an import map made from the installed
 * package's `exports`). From that origin the page calls a nightgate on another one, listed in its
 * `server.corsOrigins`: summary('preview') answers, a missing block is a NightgateError 404, and a
 * keyed route called with a key (`health()`) is refused by the browser before nightgate answers:
 * routes that take a key get no CORS.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, normalize, sep } from 'node:path';
import t from 'tap';
import type { Browser, Page } from 'playwright-core';
import { TEST_KEY } from '../helpers/app.js';
import { packAndInstallClient, startStatsGateway } from '../helpers/client-tarball.js';

const CHROMIUM = process.env['NIGHTGATE_CHROMIUM'] ?? '/usr/bin/chromium';
const skip = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (Debian: apt-get install chromium; or set NIGHTGATE_CHROMIUM)`;

type Loaded = { client: typeof import('@nightgate/client'); midnight: typeof import('@nightgate/client/midnight') };

/** The page: the installed package's modules by their names. */
function html(imports: Record<string, string>): string {
  return `<!doctype html>
<meta charset="utf-8">
<title>@nightgate/client</title>
<link rel="icon" href="data:,">
<script type="importmap">${JSON.stringify({ imports })}</script>
<script type="module">
import * as client from '@nightgate/client';
import * as midnight from '@nightgate/client/midnight';
globalThis.nightgate = { client, midnight };
</script>
`;
}

/** The import map of the installed package: each export (`.`, `./midnight`) to the file its manifest names. */
function importMap(app: string): Record<string, string> {
  const pkg = JSON.parse(readFileSync(join(app, 'node_modules/@nightgate/client/package.json'), 'utf8')) as {
    exports: Record<string, string | { default: string }>;
  };
  return Object.fromEntries(
    Object.entries(pkg.exports)
      .filter(([sub]) => sub !== './package.json')
      .map(([sub, target]) => [
        `@nightgate/client${sub.slice(1)}`,
        `/node_modules/@nightgate/client/${(typeof target === 'string' ? target : target.default).slice(2)}`,
      ]),
  );
}

/** A static server on 127.0.0.1:0: the page at /, and the .js files under the project's node_modules/. */
async function serve(app: string): Promise<{ origin: string; server: Server }> {
  const page = html(importMap(app));
  const modules = join(app, 'node_modules');
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://page').pathname);
    if (path === '/') return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
    const file = normalize(join(app, path));
    if (!file.startsWith(modules + sep) || !file.endsWith('.js') || !existsSync(file)) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** Exceptions and failed loads of a page, to say why it did not load. */
function watch(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`exception: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText ?? ''}`));
  page.on('response', (r) => void (r.status() >= 400 && problems.push(`answer ${r.status()}: ${r.url()}`)));
  return problems;
}

t.test('the installed client in Chromium, on another origin than nightgate', { skip, timeout: 180_000 }, async (t) => {
  const { app } = await packAndInstallClient(t);
  const site = await serve(app);
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        site.server.closeAllConnections();
        site.server.close(() => resolve());
      }),
  );
  const s = await startStatsGateway(t, { server: { corsOrigins: [site.origin] } });
  t.not(site.origin, new URL(s.url).origin, `the page at ${site.origin}, nightgate at ${s.url}`);

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
  const page = await browser.newPage();
  const problems = watch(page);
  t.equal((await page.goto(`${site.origin}/`))?.status(), 200, 'the page is served');
  await page
    .waitForFunction(() => 'nightgate' in globalThis, undefined, { timeout: 30_000 })
    .catch((err: Error) => {
      throw new Error(`the page did not load the package: ${err.message}\n${problems.join('\n')}`);
    });
  t.same(problems, [], 'the installed modules load, by their names, with no error');

  const result = await page.evaluate(
    async ({ base, key }) => {
      const {
        client: { createClient, NightgateError },
        midnight,
      } = (globalThis as unknown as { nightgate: Loaded }).nightgate;
      const client = createClient({ baseUrl: base, retries: false });
      const summary = await client.summary('preview');
      const missing = await client.block('preview', 999).catch((e: unknown) => e);
      const keyed = await createClient({ baseUrl: base, apiKey: key, retries: false })
        .health()
        .catch((e: unknown) => e);
      // No named function in here: tsx would wrap it in a helper the page does not have.
      const [missingIs, keyedIs] = [missing, keyed].map((e) =>
        e instanceof NightgateError ? `NightgateError ${e.status} ${e.code}` : e instanceof TypeError ? 'TypeError (the browser refused)' : String(e),
      );
      return {
        network: summary.network.id,
        height: summary.latestBlock.height,
        missing: missingIs,
        keyed: keyedIs,
        adapter: typeof midnight.nightgateMidnightProvider(client).submitTx,
      };
    },
    { base: s.url, key: TEST_KEY },
  );
  t.strictSame(
    result,
    {
      network: 'preview',
      height: 2,
      missing: 'NightgateError 404 BLOCK_NOT_FOUND',
      keyed: 'TypeError (the browser refused)',
      adapter: 'function',
    },
    'summary() answers, a missing block is a NightgateError 404, a keyed route is not readable from this origin',
  );
});
