/**
 * A real Prometheus (Debian's package, /usr/bin/prometheus) scrapes a running nightgate with the
 * shipped scrape config and rules, adapted only in port and interval (1 s), while proofs and a
 * sponsorship run on the embedded devnet; the series move in its query API, every dashboard query
 * is valid PromQL there, and the rules load and evaluate. Skipped only when the binary is absent
 * (.ci/run installs it). Bounded: every wait polls with a deadline.
 */
import t from 'tap';
import { createServer } from 'node:net';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { startApp, TEST_KEY } from '../../helpers/app.js';
import { runProcess } from '../../helpers/spawn.js';
import { PROMETHEUS_DIR, dashboardExprs } from '../../helpers/deploy-files.js';
import { mountStats } from '../../../src/features/stats/index.js';
import { mountProver } from '../../../src/features/proving/index.js';
import { mountSponsorship, SPONSORSHIP_COMPONENT, type SponsorshipComponent } from '../../../src/features/sponsorship/index.js';
import { freshUser, fundViaFaucet, transferFrom } from '../../fixtures/dust/user-tx.js';
import { proveBody } from '../../fixtures/prover/samples.js';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';

const PROMETHEUS = '/usr/bin/prometheus';
const CLOSED = { indexer: 'http://127.0.0.1:9/api/v4/graphql', prover: 'upstream' as const, proverUrl: 'http://127.0.0.1:9' };

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Polls `check` until it returns a value (not undefined) or the deadline passes. */
async function until<T>(what: string, check: () => Promise<T | undefined>, deadlineMs = 60_000): Promise<T> {
  const end = Date.now() + deadlineMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

t.test(
  'Prometheus scrapes nightgate and sees the series move',
  { skip: existsSync(PROMETHEUS) ? false : `${PROMETHEUS} is absent (Debian package prometheus; .ci/run installs it)` },
  async (t) => {
    // A 20 s fee intent at 1 s blocks is priced for 20 blocks of rising prices, which under load
    // passes the 5-DUST default cap (FEE_CAP_EXCEEDED beside a second copy of the suite): not under test.
    const s = await startApp(
      {
        networks: { mainnet: CLOSED, preprod: CLOSED },
        devnet: { blockTimeMs: 1000 },
        dust: { feeTtlMs: 20_000, targetUtxos: 0, maxFee: '100000000000000000' },
        prover: { defaultNetwork: 'preview' },
      },
      { devnet: true, modules: [mountStats, mountProver, mountSponsorship] },
    );
    t.teardown(() => s.close());
    const service = s.app.context.component<SponsorshipComponent>(SPONSORSHIP_COMPONENT)!.service!;

    // The shipped files, adapted to this test's port and a 1 s interval: nothing else changes.
    const dir = mkdtempSync(join(tmpdir(), 'nightgate-prometheus-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const shipped = readFileSync(join(PROMETHEUS_DIR, 'prometheus.yml'), 'utf8');
    t.match(shipped, /targets: \['127\.0\.0\.1:8080'\]/);
    writeFileSync(
      join(dir, 'prometheus.yml'),
      shipped.replace("'127.0.0.1:8080'", `'127.0.0.1:${s.port}'`).replace(/(scrape|evaluation)_interval: 15s/g, '$1_interval: 1s'),
    );
    copyFileSync(join(PROMETHEUS_DIR, 'nightgate-rules.yml'), join(dir, 'nightgate-rules.yml'));
    const promPort = await freePort();
    const prom = runProcess(
      PROMETHEUS,
      [
        `--config.file=${join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${promPort}`,
        '--log.level=warn',
      ],
      { PATH: process.env['PATH'] },
    );
    t.teardown(async () => {
      if (prom.child.exitCode === null) {
        prom.child.kill('SIGTERM');
        await prom.exited;
      }
    });
    const api = `http://127.0.0.1:${promPort}/api/v1`;
    const query = async (q: string): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>> => {
      const r = await request(`${api}/query?query=${encodeURIComponent(q)}`);
      const body = (await r.body.json()) as {
        status: string;
        error?: string;
        data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> };
      };
      if (body.status !== 'success') throw new Error(`${q}: ${body.error}`);
      return body.data.result;
    };
    const scalar = async (q: string): Promise<number | undefined> => {
      const r = await query(q);
      return r.length === 0 ? undefined : Number(r[0]!.value[1]);
    };

    await until('the target to be up', async () => {
      const r = await request(`${api}/targets`);
      const body = (await r.body.json()) as { data: { activeTargets: Array<{ health: string; labels: { job: string } }> } };
      return body.data.activeTargets.find((x) => x.labels.job === 'nightgate' && x.health === 'up');
    });
    t.pass('Prometheus scrapes nightgate with the shipped scrape config');
    t.equal(await scalar('sum(nightgate_http_requests_total{route="/prove"})'), undefined, 'no proof yet');

    // The chain moves by itself: the devnet's height, followed, rises in Prometheus.
    const h1 = await until('a devnet height', () => scalar('nightgate_devnet_height{network="preview"}'));
    await until('the height to rise', async () => ((await scalar('nightgate_devnet_height{network="preview"}'))! > h1 ? true : undefined));
    t.pass(`devnet height moved past ${h1}`);

    // Proofs and a sponsorship.
    for (let i = 0; i < 2; i++) {
      const r = await request(`${s.url}/prove`, {
        method: 'POST',
        headers: { 'x-api-key': TEST_KEY, 'content-type': 'application/octet-stream' },
        body: proveBody(),
      });
      t.equal(r.statusCode, 200);
      await r.body.dump();
    }
    await service.whenSynced('preview');
    const devnet = s.app.context.devnet.get('preview')!;
    const client = createClient({ url: devnet.graphqlWsUrl, webSocketImpl: WebSocket, lazy: true, retryAttempts: 0 });
    const user = freshUser(71);
    const utxo = await fundViaFaucet(devnet.faucetUrl, client, user, 100_000_000n);
    await client.dispose();
    const sponsored = await request(`${s.url}/prove-and-balance`, {
      method: 'POST',
      headers: { 'x-api-key': TEST_KEY, 'content-type': 'application/octet-stream' },
      body: transferFrom(user, utxo, freshUser(72).address, 1_000_000n).serialize(),
    });
    const answer = (await sponsored.body.json()) as { fee: string; code?: string };
    t.equal(sponsored.statusCode, 200, `sponsored (${answer.code ?? 'ok'})`);

    t.equal(
      await until('the proofs', () => scalar('sum(nightgate_http_requests_total{route="/prove",status_class="2xx"}) >= 2')),
      2,
      'HTTP requests by route and status class',
    );
    t.equal(await until('the proof outcomes', () => scalar('sum(nightgate_proofs_total{outcome="ok"}) >= 2')), 2, 'proofs by outcome');
    t.equal(await until('the sponsorship', () => scalar('sum(nightgate_sponsorships_total{outcome="sponsored"}) >= 1')), 1, 'sponsorships by outcome');
    t.equal(await until('the fee', () => scalar('sum(nightgate_sponsorship_fees_speck_total)')), Number(answer.fee), 'the fee paid');
    t.ok(
      (await until('the reserved UTXO', () => scalar('sum(nightgate_dust_utxos{network="preview",state="reserved"}) >= 1'))) >= 1,
      'the DUST pool shows the reservation',
    );
    t.equal(await until('a run time', () => scalar('sum(nightgate_proving_run_seconds_count{backend="dev"}) >= 1')), 1, 'proving run time');
    t.ok((await until('the event-loop delay', () => scalar('nodejs_eventloop_lag_p99_seconds'))) >= 0);

    // Every dashboard query is valid PromQL for this Prometheus, its variables substituted.
    for (const { panel, expr } of dashboardExprs()) {
      const q = expr.replaceAll('$__rate_interval', '1m').replaceAll('$instance', '.*').replaceAll('$network', '.*');
      await query(q).then(
        () => t.pass(`dashboard "${panel}": ${q.slice(0, 60)}…`),
        (err: unknown) => t.fail(`dashboard "${panel}": ${String(err)}`),
      );
    }

    // The shipped rules load and evaluate against the live series.
    const rules = await until('the rules to be evaluated', async () => {
      const r = await request(`${api}/rules`);
      const body = (await r.body.json()) as { data: { groups: Array<{ rules: Array<{ name: string; health: string; lastEvaluation: string }> }> } };
      const all = body.data.groups.flatMap((g) => g.rules);
      return all.length === 8 && all.every((x) => x.health === 'ok' && !x.lastEvaluation.startsWith('0001')) ? all : undefined;
    });
    t.equal(rules.length, 8, 'eight alerting rules, all evaluated without error');
  },
);
