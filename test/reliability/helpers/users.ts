/**
 * A DUST-less user on a running devnet, funded with NIGHT by its faucet in `count` UTXOs (24 unless
 * said), and distinct unproven transfers (distinct amounts → distinct bytes → no dedupe between
 * them), built with the ledger of the devnet's era (`era`, the devnet's default unless said).
 *
 * A sponsored transaction holds its inputs until it lands or its answer expires (another spend
 * of a held input is refused 409 INPUT_HELD): `transfer(n)` spends `utxos[n % count]`, so up to
 * `count` sponsorships in a row are live at once without holding each other's inputs;
 * `transfer(n, utxo)` spends the one given.
 */
import WebSocket from 'ws';
import { createClient } from 'graphql-ws';
import { DEFAULT_ERA, type Era, type L } from '../../../src/infra/ledger/index.js';
import type { DevnetEndpoints } from '../../../src/infra/app-context.js';
import { freshUser, fundManyViaFaucet, transferFrom, type User } from '../../fixtures/dust/user-tx.js';

export interface FundedUser {
  user: User;
  /** The first of `utxos`. */
  utxo: L.Utxo;
  /** `count` UTXOs of 1 000 000 000 STAR each (one unless asked). */
  utxos: L.Utxo[];
  /** An unproven NIGHT transfer of `1000 + n` STAR to a fixed recipient, from `from` (default `utxos[n % count]`). */
  transfer(n: number, from?: L.Utxo): L.UnprovenTransaction;
}

export async function fundedUser(devnet: DevnetEndpoints, seedByte: number, era: Era = DEFAULT_ERA, count = 24): Promise<FundedUser> {
  const client = createClient({ url: devnet.graphqlWsUrl, webSocketImpl: WebSocket, lazy: true, retryAttempts: 0 });
  const user = freshUser(seedByte, era);
  const to = freshUser(seedByte + 1, era).address;
  try {
    const utxos = await fundManyViaFaucet(devnet.faucetUrl, client, user, 1_000_000_000n, count);
    const utxo = utxos[0]!;
    return { user, utxo, utxos, transfer: (n, from = utxos[n % utxos.length]!) => transferFrom(user, from, to, 1_000n + BigInt(n)) };
  } finally {
    await client.dispose();
  }
}
