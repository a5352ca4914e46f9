// Helpers for the devnet tests that run on both ledger eras: a network of an era (manual blocks),
// and a wallet's view of it read from the network's indexer store, in that era's objects.
import { request } from 'undici';
import type { NetworkConfig } from '../../../packages/devnet/src/network.js';
import { hexToBytes } from '../../../packages/devnet/src/keys.js';
import { kitFor, NIGHT_TOKEN, STAR_PER_NIGHT, type Era, type L, type LedgerKit } from '../../../packages/devnet/src/ledger-kit.js';
import { MockProver } from '../../../packages/devnet/src/mock-prover.js';
import { devnetTestAccount } from '../../../packages/devnet/src/test-accounts.js';
import { buildFinalized, type TxSpec } from '../../../packages/devnet/src/tx-builder.js';
import { Actor, DustWallet } from '../../../packages/devnet/src/wallet.js';
import { startNetwork, type Harness } from '../../fixtures/devnet/harness.js';

export const ERAS: Era[] = [9, 8];

export function startEra(era: Era, overrides: Partial<NetworkConfig> = {}): Promise<Harness> {
  return startNetwork({ ledger: era, ...overrides });
}

/** The DUST wallet of `seedHex` after every DUST event the network has indexed from `fromHeight` on. */
export function syncDust(h: Harness, kit: LedgerKit, seedHex: string, fromHeight = 0): DustWallet {
  const store = h.network.store;
  const params = kit.L.LedgerParameters.initialParameters();
  const wallet = new DustWallet(hexToBytes(seedHex), params.dust, kit);
  const raws: Uint8Array[] = [];
  for (let id = 1; id <= store.maxDustEventId; id++) {
    const event = store.dustEvent(id);
    const tx = event && store.transaction(event.transactionId);
    if (event && tx && tx.blockHeight >= fromHeight) raws.push(event.raw);
  }
  wallet.replay(Buffer.concat(raws));
  return wallet;
}

/** The unspent NIGHT of `address` (hex) as the indexer shows it. */
export function unspentNight(h: Harness, address: string): L.Utxo[] {
  const store = h.network.store;
  const out: L.Utxo[] = [];
  for (const key of store.unspentUtxoKeys()) {
    const u = store.utxo(key);
    if (!u || u.owner !== address || u.tokenType !== NIGHT_TOKEN) continue;
    out.push({ owner: u.owner, type: u.tokenType, value: BigInt(u.value), intentHash: u.intentHash, outputNo: u.outputIndex });
  }
  return out.sort((a, b) => (a.value < b.value ? 1 : a.value > b.value ? -1 : 0));
}

export function latestParams(h: Harness, kit: LedgerKit): L.LedgerParameters {
  const block = h.network.store.latestBlock;
  if (!block) throw new Error('no block yet');
  return kit.L.LedgerParameters.deserialize(hexToBytes(block.ledgerParameters));
}

export const recipientSeed = new Uint8Array(32).fill(42);

/** A DUST-paid NIGHT transfer from the network's public test account, built in `era`. */
export async function testAccountTransfer(
  h: Harness,
  era: Era,
  opts: { timeMs?: number; spec?: Partial<TxSpec>; payer?: DustWallet; amountNight?: bigint } = {},
): Promise<{ tx: L.FinalizedTransaction; bytes: Uint8Array; owner: Actor; recipient: Actor }> {
  const kit = kitFor(era);
  const account = devnetTestAccount('preview');
  const owner = new Actor(hexToBytes(account.nightSeed), kit);
  const recipient = new Actor(recipientSeed, kit);
  const [utxo] = unspentNight(h, owner.address);
  if (!utxo) throw new Error('the test account has no NIGHT');
  const amount = (opts.amountNight ?? 7n) * STAR_PER_NIGHT;
  const spec: TxSpec = {
    signer: owner,
    payer: opts.payer ?? syncDust(h, kit, account.dustSeed),
    inputs: [utxo],
    outputs: [
      { owner: recipient.address, type: NIGHT_TOKEN, value: amount },
      { owner: owner.address, type: NIGHT_TOKEN, value: utxo.value - amount },
    ],
    ...opts.spec,
  };
  const time = new Date(Math.floor((opts.timeMs ?? Date.now()) / 1000) * 1000);
  const tx = await buildFinalized(spec, { kit, networkId: 'undeployed', params: latestParams(h, kit), time, prover: new MockProver('undeployed', kit) });
  return { tx, bytes: tx.serialize(), owner, recipient };
}

/** A connection per request: block production holds the thread past the server's keep-alive timeout. */
export async function post(h: Harness, bytes: Uint8Array): Promise<{ status: number; body: any }> {
  const res = await request(h.info.submitUrl, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: bytes, reset: true });
  return { status: res.statusCode, body: await res.body.json() };
}
