import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { locateProofServer } from '../../../native/locate.js';

const dir = mkdtempSync(join(tmpdir(), 'nightgate-locate-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const exe = join(dir, 'midnight-proof-server');
writeFileSync(exe, '#!/bin/sh\n');
chmodSync(exe, 0o755);
const plain = join(dir, 'not-executable');
writeFileSync(plain, '');
chmodSync(plain, 0o644);

t.test('an executable file is found, relative paths from the given directory', async (t) => {
  t.equal(locateProofServer(exe, '/'), exe);
  t.equal(locateProofServer('./midnight-proof-server', dir), exe);
});

t.test('every failure names the setting and the fix', async (t) => {
  t.throws(() => locateProofServer('', dir), {
    code: 'PROVER_BINARY_NOT_FOUND',
    message: 'the native backend needs prover.nativeBinary (NIGHTGATE_PROVER_BINARY): the path of midnight-proof-server',
  });
  t.throws(() => locateProofServer('midnight-proof-server', dir), {
    code: 'PROVER_BINARY_NOT_FOUND',
    message:
      'prover.nativeBinary (NIGHTGATE_PROVER_BINARY) is "midnight-proof-server", a bare name; give the path of the binary, e.g. ' +
      '/usr/local/bin/midnight-proof-server',
  });
  t.throws(() => locateProofServer(join(dir, 'nope'), dir), {
    code: 'PROVER_BINARY_NOT_FOUND',
    message:
      `midnight-proof-server not found at ${join(dir, 'nope')}` +
      ` (prover.nativeBinary (NIGHTGATE_PROVER_BINARY)); install it there or point the setting at it`,
  });
  t.throws(() => locateProofServer(dir, '/'), {
    code: 'PROVER_BINARY_NOT_FOUND',
    message: `${dir} (prover.nativeBinary (NIGHTGATE_PROVER_BINARY)) is not a file`,
  });
  // Without any execute bit even root may not run it (access(2) X_OK), so this holds for every user.
  t.throws(() => locateProofServer(plain, dir), {
    code: 'PROVER_BINARY_NOT_EXECUTABLE',
    message: `${plain} (prover.nativeBinary (NIGHTGATE_PROVER_BINARY)) is not executable by this user; run: chmod +x ${plain}`,
  });
});
