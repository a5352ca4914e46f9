import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { builtinCircuit, builtinIr, inspectKeyDir, kzgParams, readPinned } from '../../../native/key-material.js';
import { BUILTIN_CIRCUITS } from '../../../native/key-pins.js';

const dir = mkdtempSync(join(tmpdir(), 'nightgate-keys-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const sha = (b: Uint8Array | string): string => createHash('sha256').update(b).digest('hex');

t.test('the IR copies shipped in native/circuits/ match their pins and the reference files', async (t) => {
  for (const c of BUILTIN_CIRCUITS.values()) {
    const ir = await builtinIr(c);
    t.equal(sha(ir), c.sha256.ir, c.keyLocation);
    t.same(Buffer.from(ir), readFileSync(new URL(`../../fixtures/midnight/zk/${c.irFile}`, import.meta.url)));
  }
});

t.test('the prover-key pins are the official ones (test/fixtures/midnight/zk/*.prover.sha256)', async (t) => {
  for (const c of BUILTIN_CIRCUITS.values()) {
    const ref = readFileSync(new URL(`../../fixtures/midnight/zk/${c.irFile.replace('.bzkir', '.prover.sha256')}`, import.meta.url), 'utf8');
    t.equal(ref.slice(0, 64), c.sha256.prover, c.keyLocation);
    const vk = readFileSync(new URL(`../../fixtures/midnight/zk/${c.irFile.replace('.bzkir', '.verifier')}`, import.meta.url));
    t.equal(sha(vk), c.sha256.verifier);
  }
});

t.test('a pinned file is used only when its hash matches; missing says "not provisioned"', async (t) => {
  const path = join(dir, 'file');
  writeFileSync(path, 'content');
  t.same(Buffer.from(await readPinned(path, sha('content'), 'c/x', 'thing')), Buffer.from('content'));
  writeFileSync(join(dir, 'bad'), 'tampered');
  await t.rejects(readPinned(join(dir, 'bad'), sha('content'), 'c/x', 'thing'), {
    code: 'PROVER_KEYS_INVALID',
    message: new RegExp(`^prover key material for c/x failed its SHA-256 check: ${join(dir, 'bad')} hashes to ${sha('tampered')}, expected ${sha('content')}`),
  });
  await t.rejects(readPinned(join(dir, 'absent'), sha('content'), 'c/x', 'thing'), {
    code: 'PROVER_KEYS_MISSING',
    message: `prover key material not provisioned for c/x: thing ${join(dir, 'absent')} is missing`,
  });
  writeFileSync(join(dir, 'absent'), 'content');
  t.ok(await readPinned(join(dir, 'absent'), sha('content'), 'c/x', 'thing'), 'a failure is not remembered: provisioning later works');
  await t.rejects(kzgParams(dir, 14, 'midnight/zswap/output'), {
    code: 'PROVER_KEYS_MISSING',
    message: `prover key material not provisioned for midnight/zswap/output: public parameters ${join(dir, 'bls_midnight_2p14')} is missing`,
  });
  await t.rejects(kzgParams(dir, 26, 'c/x'), { message: 'prover key material not provisioned for c/x: no public parameters exist for k=26' });
});

t.test('inspectKeyDir reports presence per built-in circuit', async (t) => {
  t.same(inspectKeyDir(dir), { circuits: [], missing: [...BUILTIN_CIRCUITS.keys()], params: [] });
  t.ok(builtinCircuit('midnight/dust/spend'));
  t.equal(builtinCircuit('counter/increment'), undefined);
});
