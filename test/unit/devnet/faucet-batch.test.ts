// The faucet funds a load test: requests are paid FAUCET_PAYOUTS_PER_BLOCK (60) per block, in
// arrival order, from treasury transactions of up to 20 payouts each (their payouts in the fallible
// section, their fees guaranteed). 120 fresh addresses are funded in two blocks — a block holds about
// 64 NIGHT outputs by the ledger's bytes-churned limit, so no faucet can fund 100 in one. A
// recipient registered for DUST generation is paid in the same batches.
import t from 'tap';
import { encodeUnshieldedAddress } from '../../../packages/ledger/src/address.js';
import { hexToBytes } from '../../../packages/devnet/src/keys.js';
import { FAUCET_PAYOUTS_PER_BLOCK } from '../../../packages/devnet/src/faucet.js';
import { devnetTestAccount } from '../../../packages/devnet/src/test-accounts.js';
import { kitFor } from '../../../packages/devnet/src/ledger-kit.js';
import { Actor } from '../../../packages/devnet/src/wallet.js';

// Addresses are the same in both eras; the default era's keys make them.
const kit = kitFor(9);
import { startNetwork, type Harness } from '../../fixtures/devnet/harness.js';

function freshAddress(n: number): string {
  const seed = new Uint8Array(32);
  new DataView(seed.buffer).setUint32(0, 0x5eed0000 + n);
  return new Actor(seed, kit).address;
}

async function request(h: Harness, address: string, amount: string): Promise<void> {
  const res = await fetch(h.info.faucetUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ address, amount }) });
  if (res.status !== 202) throw new Error(`faucet answered ${res.status}: ${await res.text()}`);
}

/** The NIGHT outputs block `height` created, as [bech32 owner, value, registered]. */
async function createdOutputs(h: Harness, height: number): Promise<Array<[string, string, boolean]>> {
  const { data, errors } = await h.gql(
    'query($h: Int!) { block(offset: { height: $h }) { transactions { unshieldedCreatedOutputs { owner value registeredForDustGeneration } } } }',
    { h: height },
  );
  if (errors) throw new Error(errors.map((e) => e.message).join('; '));
  return data.block.transactions.flatMap((tx: any) => tx.unshieldedCreatedOutputs.map((o: any) => [o.owner, o.value, o.registeredForDustGeneration]));
}

t.test('120 fresh addresses are paid 60 per block, in arrival order', async (t) => {
  const h = await startNetwork();
  t.teardown(() => h.close());
  t.equal(FAUCET_PAYOUTS_PER_BLOCK, 60);
  const addresses = Array.from({ length: 120 }, (_, i) => freshAddress(i));
  for (const [i, address] of addresses.entries()) await request(h, address, String(1_000_000 + i));
  const bech32 = addresses.map((a) => encodeUnshieldedAddress(a, 'undeployed'));

  const first = await h.network.produceBlock();
  const second = await h.network.produceBlock();
  const paid = async (height: number) => {
    const outputs = await createdOutputs(h, height);
    return bech32.flatMap((owner, i) => (outputs.some(([o, v]) => o === owner && v === String(1_000_000 + i)) ? [i] : []));
  };
  t.same(
    await paid(first.height),
    Array.from({ length: 60 }, (_, i) => i),
    'the first block pays the first 60 requests',
  );
  t.same(
    await paid(second.height),
    Array.from({ length: 60 }, (_, i) => 60 + i),
    'the next block the other 60',
  );

  const health = (await (await fetch(new URL('/health', h.info.submitUrl))).json()) as { pendingFaucetRequests: number };
  t.equal(health.pendingFaucetRequests, 0, 'nothing left queued');
});

t.test('a recipient registered for DUST generation is paid in the same batch as fresh ones', async (t) => {
  const h = await startNetwork();
  t.teardown(() => h.close());
  const registered = new Actor(hexToBytes(devnetTestAccount('preview').nightSeed), kit).address;
  const batch = [freshAddress(1000), registered, freshAddress(1001), registered, freshAddress(1002)];
  for (const address of batch) await request(h, address, '4200000');
  const block = await h.network.produceBlock();
  const outputs = (await createdOutputs(h, block.height)).filter(([, value]) => value === '4200000');
  t.same(
    outputs.map(([owner, , dust]) => [owner, dust]).sort(),
    batch.map((a) => [encodeUnshieldedAddress(a, 'undeployed'), a === registered]).sort(),
    'every request paid in the next block; the registered recipient’s NIGHT generates DUST',
  );
});
