import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { ExampleTxError, exampleTransaction, isExampleKind, parseLedgerFlag } from '../../../src/cli/example-tx.js';
import { ERAS, eraOfBytes, ledger, release } from '../../../src/infra/ledger/index.js';
import { devnetTestAccount } from '../../../packages/devnet/src/test-accounts.js';
import { encodeUnshieldedAddress } from '../../../packages/ledger/src/address.js';
import { parseProveRequest, versionedPreimage } from '../../../src/features/proving/wire/wire.js';

t.test('the kinds', async (t) => {
  for (const k of ['unproven', 'proven', 'finalized', 'prove-payload']) t.ok(isExampleKind(k), k);
  t.notOk(isExampleKind('bound'));
  t.notOk(isExampleKind(undefined));
});

t.test('a proving request needs no server: the zswap-output preimage as a /prove body', async (t) => {
  const body = await exampleTransaction({ url: 'http://127.0.0.1:9', network: 'preview', kind: 'prove-payload' });
  const tag = 'midnight:(proof-preimage-versioned,option(proving-data),option(fr-bls)):';
  t.equal(Buffer.from(body.subarray(0, tag.length)).toString('latin1'), tag);
});

t.test('a transfer without a reachable server says where it looked', async (t) => {
  const err = await exampleTransaction({ url: '127.0.0.1:9', network: 'preview', kind: 'unproven' }).then(
    () => undefined,
    (e: unknown) => e,
  );
  t.ok(err instanceof ExampleTxError, 'an ExampleTxError: the CLI prints its message alone and exits 1');
  t.match((err as Error).message, /^cannot read the test account from http:\/\/127\.0\.0\.1:9 \(.+\): is nightgate running there\? \(--url\)$/);
});

t.test('--ledger: 9 when absent, 8 or 9 when given, anything else a usage error', async (t) => {
  t.equal(parseLedgerFlag(undefined), 9);
  t.equal(parseLedgerFlag('8'), 8);
  t.equal(parseLedgerFlag('9'), 9);
  for (const bad of ['7', '10', 'nine', '', '9.0x']) t.equal(parseLedgerFlag(bad), undefined, JSON.stringify(bad));
});

/** A stand-in for nightgate's address-activity route: one unspent NIGHT UTXO of the test account. */
async function accountServer(t: Test, network: string): Promise<string> {
  const L = ledger(9);
  const address = L.addressFromKey(L.signatureVerifyingKey(L.signingKeyFromBip340(new Uint8Array(Buffer.from(devnetTestAccount(network).nightSeed, 'hex')))));
  const utxo = { tokenType: L.nativeToken().raw, value: '1000000', intentHash: 'ab'.repeat(32), outputIndex: 0, spent: false };
  const server = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ address: encodeUnshieldedAddress(address, 'undeployed'), utxos: [utxo], path: req.url }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

for (const era of ERAS) {
  t.test(`--ledger ${era}: every kind is built with ledger ${era}`, async (t) => {
    const L = ledger(era);
    const payload = await exampleTransaction({ url: 'http://127.0.0.1:9', network: 'preview', kind: 'prove-payload', era });
    const request = parseProveRequest(payload);
    t.equal(request.keyLocation, 'midnight/zswap/output');
    t.doesNotThrow(() => release(L.PreProof.deserialize(versionedPreimage(payload, request))), 'the preimage reads in that era');

    const url = await accountServer(t, 'preview');
    const markers = { unproven: 'pre-proof', proven: 'proof', finalized: 'proof' } as const;
    for (const kind of ['unproven', 'proven', 'finalized'] as const) {
      const bytes = await exampleTransaction({ url, network: 'preview', kind, era });
      t.equal(eraOfBytes(bytes), era, `${kind}: a ledger-${era} transaction (its header tag)`);
      const tx = L.Transaction.deserialize('signature', markers[kind], kind === 'finalized' ? 'binding' : 'pre-binding', bytes);
      t.equal(tx.intents?.get(1)?.guaranteedUnshieldedOffer?.signatures.length, 1, `${kind}: one signature on the offer, readable by ledger ${era}`);
      release(tx);
    }
  });
}
