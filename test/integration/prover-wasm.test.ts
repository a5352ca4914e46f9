import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import t from 'tap';
import { request } from 'undici';
import * as zkir from '@midnight-ntwrk/zkir-v2';
import { startApp, TEST_KEY } from '../helpers/app.js';
import { mountProver } from '../../src/features/proving/index.js';
import { ledgerOf, checkBody, outputPreimage, proveBody, midnightFile } from '../fixtures/prover/samples.js';

const HEADERS = { 'x-api-key': TEST_KEY, 'content-type': 'application/octet-stream' };
const keyDir = mkdtempSync(join(tmpdir(), 'nightgate-keys-'));
t.teardown(() => rmSync(keyDir, { recursive: true, force: true }));

const wasm = {
  prover: { keyDir, threads: 1 },
  networks: { preview: { prover: 'wasm' as const }, mainnet: { prover: 'wasm' as const }, preprod: { prover: 'wasm' as const } },
};

const s = await startApp(wasm, { modules: [mountProver] });
t.teardown(() => s.close());

t.test('wasm without key material fails at once, naming the circuit and the missing file; a corrupt key is refused', async (t) => {
  const t0 = performance.now();
  let res = await request(`${s.url}/prove`, { method: 'POST', body: proveBody(), headers: HEADERS });
  t.equal(res.statusCode, 503);
  t.equal(res.headers['x-prover'], 'wasm');
  t.same(await res.body.json(), {
    error: 'Service Unavailable',
    message: `prover key material not provisioned for midnight/zswap/output: prover key ${join(keyDir, 'zswap/9/output.prover')} is missing`,
    code: 'PROVER_KEYS_MISSING',
  });
  t.ok(performance.now() - t0 < 15_000, 'no hang, no download (the first request includes the worker start)');

  mkdirSync(join(keyDir, 'zswap/9'), { recursive: true });
  writeFileSync(join(keyDir, 'zswap/9/output.prover'), 'not the official key');
  res = await request(`${s.url}/prove`, { method: 'POST', body: proveBody(), headers: HEADERS });
  t.equal(res.statusCode, 503);
  t.match(await res.body.json(), {
    code: 'PROVER_KEYS_INVALID',
    error: 'Service Unavailable',
    message: /^prover key material for midnight\/zswap\/output failed its SHA-256 check: .*output\.prover hashes to [0-9a-f]{64}, expected d992b04f/,
  });
  rmSync(join(keyDir, 'zswap'), { recursive: true });
});

t.test('/check through wasm gives what zkir-v2 gives when called directly (IR in the request, or the built-in copy)', async (t) => {
  const preimage = outputPreimage();
  const ir = midnightFile('zk/zswap_output.bzkir');
  const none = new Uint8Array(0);
  const expected = await zkir.check(preimage, {
    lookupKey: async () => ({ ir, proverKey: none, verifierKey: none }),
    getParams: async () => none,
  });
  t.ok(
    expected.some((v) => v !== undefined),
    'a non-trivial result',
  );
  for (const [what, body] of [
    ['IR in the request', checkBody(preimage, ir)],
    ['built-in IR', checkBody(preimage)],
  ] as const) {
    const res = await request(`${s.url}/verify`, { method: 'POST', body, headers: HEADERS });
    t.equal(res.statusCode, 200, what);
    t.same(ledgerOf(9).parseCheckResult(new Uint8Array(await res.body.arrayBuffer())), expected, what);
  }
  const k = await request(`${s.url}/k`, { method: 'POST', body: ir, headers: HEADERS });
  t.equal(await k.body.text(), String(zkir.Zkir.deserialize(ir).getK()), '/k as zkir-v2 computes it');
  const versions = await request(`${s.url}/proof-versions`, { headers: { 'x-api-key': TEST_KEY } });
  t.equal(await versions.body.text(), '["V2"]', 'what zkir-v2 proves, on a ledger-9 network too');
});
