/**
 * Bodies of a version nightgate does not read — a V3 proof preimage, a ZKIR v3 circuit (Compact
 * 0.37 / Midnight.js 6) — and `/proof-versions`, per backend:
 *   upstream, native  the body goes to the proof server byte for byte and is cached like any other;
 *                     `/proof-versions` is the proof server's own answer, reused for a minute
 *   dev, wasm         400 naming the version and what the backend proves; `/proof-versions` ["V2"]
 * The V3 bodies here are the request tag, discriminant 2, then bytes whose layout is not V2's:
 * nightgate must pass them on without reading them. Time is a ManualClock; nothing sleeps.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { request } from 'undici';
import { ManualClock } from '../helpers/manual-clock.js';
import { mountProver, PROVER_COMPONENT, type ProverComponent } from '../../src/features/proving/index.js';
import type { NativeBackend } from '../../src/features/proving/native-backend.js';
import { PROOF_VERSIONS_REUSE_MS } from '../../src/features/proving/upstream-backend.js';
import { TAG } from '../../src/features/proving/wire/wire.js';
import { startApp, TEST_KEY, type TestApp } from '../helpers/app.js';
import { upstreamConfig } from '../fixtures/prover/apps.js';
import { checkBody, proveBody } from '../fixtures/prover/samples.js';
import { STAND_IN } from '../fixtures/prover/stand-in.js';
import { ProofServerStub, unreadProof } from '../reliability/helpers/proof-server-stub.js';

const KEY = { 'x-api-key': TEST_KEY };
const HEADERS = { ...KEY, 'content-type': 'application/octet-stream' };
const T0 = Date.UTC(2026, 10, 20);

/** A request of `tag` whose preimage is V3: discriminant 2, then a V2 preimage's fields and more. */
function v3(tag: string, v2Body: Uint8Array): Buffer {
  const rest = Buffer.from(v2Body).subarray(tag.length + 1);
  return Buffer.concat([Buffer.from(tag), Buffer.from([2]), rest, Buffer.from('fields of a later layout')]);
}
const v3Prove = (): Buffer => v3(TAG.proveRequest, proveBody());
const v3Check = (): Buffer => v3(TAG.checkRequest, checkBody());
const zkirV3 = (): Buffer => Buffer.concat([Buffer.from('midnight:ir-source[v3]:'), Buffer.from([1, 2, 3, 4, 5, 6, 7, 8])]);

const post = (s: TestApp, path: string, body: Uint8Array, network = 'preview') =>
  request(`${s.url}${path}?network=${network}`, { method: 'POST', body, headers: HEADERS });
const bytes = async (res: Awaited<ReturnType<typeof request>>): Promise<Buffer> => Buffer.from(await res.body.arrayBuffer());

async function withStub(t: { teardown(fn: () => unknown): void }): Promise<{ stub: ProofServerStub; s: TestApp; clock: ManualClock }> {
  const stub = await ProofServerStub.start();
  stub.record = true;
  t.teardown(() => stub.stop());
  const clock = new ManualClock(T0);
  const s = await startApp(upstreamConfig(stub.url), { modules: [mountProver], clock });
  t.teardown(() => s.close());
  return { stub, s, clock };
}

t.test('upstream: a V3 /prove body reaches the proof server byte for byte; the repeat is a cache hit', async (t) => {
  const { stub, s } = await withStub(t);
  const body = v3Prove();

  const first = await post(s, '/prove', body);
  t.equal(first.statusCode, 200);
  t.match(first.headers, { 'x-prover': 'upstream', 'x-cache': 'MISS', 'x-midnight-ledger': '9' });
  t.same(await bytes(first), unreadProof(body), "the proof server's answer, which hashes the bytes it got");
  t.same(
    stub.received.map((r) => [r.method, r.path]),
    [['POST', '/prove']],
  );
  t.ok(stub.received[0]!.body.equals(body), 'the body arrived unchanged');

  const again = await post(s, '/prove', body);
  t.equal(again.statusCode, 200);
  t.equal(again.headers['x-cache'], 'HIT');
  t.same(await bytes(again), unreadProof(body));
  t.equal(stub.count('/prove'), 1, 'the repeat did not reach the proof server');

  const audit = s.logs.lines.filter((l) => l['audit'] === 'proof');
  t.match(audit, [
    { kind: 'prove', preimage: 'V3', cache: 'MISS', outcome: 'ok' },
    { kind: 'prove', preimage: 'V3', cache: 'HIT', outcome: 'ok' },
  ]);
  t.notOk(
    audit.some((l) => 'circuit' in l),
    'no circuit is named for a body nightgate did not read',
  );
});

t.test('upstream: /check with a V3 preimage and /k with a ZKIR v3 circuit go through unchanged too', async (t) => {
  const { stub, s } = await withStub(t);
  const check = v3Check();
  const res = await post(s, '/verify', check);
  t.equal(res.statusCode, 200);
  t.equal((await bytes(res)).subarray(0, TAG.checkResult.length).toString('latin1'), TAG.checkResult);
  const ir = zkirV3();
  const k = await post(s, '/k', ir);
  t.equal(k.statusCode, 200);
  t.equal(await k.body.text(), '14', "the proof server's k");
  t.same(
    stub.received.map((r) => r.path),
    ['/check', '/k'],
  );
  t.ok(stub.received[0]!.body.equals(check), '/check body unchanged');
  t.ok(stub.received[1]!.body.equals(ir), '/k body unchanged');

  // Only an unread version passes unwalked: a V2 body with trailing junk is still refused here.
  const junk = await post(s, '/prove', Buffer.concat([proveBody(), Buffer.from([0])]));
  t.equal(junk.statusCode, 400);
  t.match(await junk.body.json(), { code: 'INVALID_BODY', message: /unexpected bytes after the proving request/ });
  t.equal(stub.count('/prove'), 0, 'the malformed V2 body never reached the proof server');
});

t.test("upstream: /proof-versions is the proof server's answer, reused for a minute; a failure is not reused", async (t) => {
  const { stub, s, clock } = await withStub(t);
  const versions = async (): Promise<{ status: number; text: string }> => {
    const res = await request(`${s.url}/proof-versions`, { headers: KEY });
    return { status: res.statusCode, text: await res.body.text() };
  };
  stub.proofVersions = '["V2","V3"]';
  const direct = await (await request(`${stub.url}/proof-versions`)).body.text();
  t.same(await versions(), { status: 200, text: direct }, 'what the proof server answers');
  t.equal(stub.count('/proof-versions'), 2, 'one direct ask, one through nightgate');

  stub.proofVersions = '["V3"]';
  clock.advance(PROOF_VERSIONS_REUSE_MS - 1);
  t.same(await versions(), { status: 200, text: '["V2","V3"]' }, 'reused within the minute');
  t.equal(stub.count('/proof-versions'), 2, 'not asked again');
  clock.advance(1);
  t.same(await versions(), { status: 200, text: '["V3"]' }, 'asked again once the minute has passed');
  t.equal(stub.count('/proof-versions'), 3);

  clock.advance(PROOF_VERSIONS_REUSE_MS);
  await stub.stop();
  const down = await request(`${s.url}/proof-versions`, { headers: KEY });
  t.equal(down.statusCode, 502);
  t.match(await down.body.json(), { code: 'PROVER_UNREACHABLE' });
  await stub.restart();
  stub.proofVersions = '["V2","V3"]';
  t.same(await versions(), { status: 200, text: '["V2","V3"]' }, 'after a failure the next ask goes to the proof server');
  t.equal(stub.count('/proof-versions'), 4);
});

t.test('native: a V3 body reaches the supervised proof server unchanged; /proof-versions is its answer, reused', async (t) => {
  const clock = new ManualClock(T0);
  const all = { prover: 'native' as const };
  const s = await startApp(
    { prover: { nativeBinary: STAND_IN, nativePort: 0 }, networks: { mainnet: all, preprod: all, preview: all } },
    { modules: [mountProver], clock },
  );
  t.teardown(() => s.close());
  const sup = (s.app.context.component<ProverComponent>(PROVER_COMPONENT)!.backend('preview') as NativeBackend).supervisor;
  await sup.whenReady();
  const calls = async (): Promise<Record<string, number>> =>
    ((await (await request(`${sup.url}/__calls`, { method: 'POST' })).body.json()) as { calls: Record<string, number> }).calls;

  const body = v3Prove();
  // The stand-in derives its proof from the SHA-256 of the body it got: the same answer, the same bytes.
  const direct = await bytes(await request(`${sup.url}/prove`, { method: 'POST', body }));
  const via = await post(s, '/prove', body);
  t.equal(via.statusCode, 200);
  t.match(via.headers, { 'x-prover': 'native', 'x-cache': 'MISS' });
  t.same(await bytes(via), direct, "the proof server's bytes for the body as sent");
  const again = await post(s, '/prove', body);
  t.equal(again.headers['x-cache'], 'HIT');
  await again.body.dump();
  t.equal((await calls())['/prove'], 2, 'one direct, one through nightgate: the repeat was a cache hit');

  const theirs = await (await request(`${sup.url}/proof-versions`)).body.text();
  for (let i = 0; i < 3; i++) {
    const res = await request(`${s.url}/proof-versions`, { headers: KEY });
    t.equal(await res.body.text(), theirs);
  }
  t.equal((await calls())['/proof-versions'], 2, 'one direct ask, one through nightgate for three answers');
});

t.test('dev and wasm: /proof-versions ["V2"] on either era; V3 preimages and ZKIR v3 refused with 400 naming them', async (t) => {
  const keyDir = mkdtempSync(join(tmpdir(), 'nightgate-keys-'));
  t.teardown(() => rmSync(keyDir, { recursive: true, force: true }));
  const s = await startApp(
    {
      prover: { keyDir, threads: 1 },
      networks: { mainnet: { prover: 'wasm' }, preprod: { devnet: { ledger: 8, ledger9AtHeight: 0 } } },
    },
    { modules: [mountProver] },
  );
  t.teardown(() => s.close());

  for (const [network, backend, ledger] of [
    ['mainnet', 'wasm', '9'],
    ['preview', 'dev', '9'],
    ['preprod', 'dev', '8'],
  ] as const) {
    const res = await request(`${s.url}/proof-versions?network=${network}`, { headers: KEY });
    t.equal(res.statusCode, 200);
    t.match(res.headers, { 'x-prover': backend, 'x-midnight-ledger': ledger });
    t.same(JSON.parse(await res.body.text()), ['V2'], `${network} (${backend}, ledger ${ledger}): only what it proves`);

    const preimage = (path: string) =>
      `the body holds a V3 proof preimage (discriminant 2 at byte ${(path === '/prove' ? TAG.proveRequest : TAG.checkRequest).length}` +
      `); the ${backend} backend proves only V2 proof preimages (discriminant 1), the version both ledger 8 and ledger 9 build: V3 needs a proof ` +
      `server (backend upstream or native)`;
    for (const [path, body, message] of [
      ['/prove', v3Prove(), preimage('/prove')],
      ['/check', v3Check(), preimage('/check')],
      [
        '/k',
        zkirV3(),
        `the body holds a ZKIR v3 circuit (the tag "midnight:ir-source[v3]:"); the ${backend}` +
          ` backend proves only ZKIR v2 circuits: ZKIR v3 needs a proof server (backend upstream or native)`,
      ],
    ] as const) {
      const refused = await post(s, path, body, network);
      t.equal(refused.statusCode, 400, `${network} ${path}`);
      t.equal(refused.headers['x-prover'], backend);
      t.same(await refused.body.json(), { error: 'Invalid Body', message, code: 'INVALID_BODY' });
    }
  }
});
