/**
 * A DUST-less user on a running devnet, funded with NIGHT by its faucet, and distinct unproven
 * transfers from that one UTXO (distinct amounts → distinct bytes → no dedupe between them), built
 * with the ledger of the devnet's era (`era`, the devnet's default unless said).
 */
import WebSocket from 'ws';
import { createClient } from 'graphql-ws';
import { DEFAULT_ERA, type Era, type L } from '../../../src/infra/ledger/index.js';
import type { DevnetEndpoints } from '../../../src/infra/app-context.js';
import { freshUser, fundViaFaucet, transferFrom, type User } from '../../fixtures/dust/user-tx.js';

export interface FundedUser {
  user: User;
  utxo: L.Utxo;
  /** An unproven NIGHT transfer of `1000 + n` STAR to a fixed recipient. */
  transfer(n: number): L.UnprovenTransaction;
}

export async function fundedUser(devnet: DevnetEndpoints, seedByte: number, era: Era = DEFAULT_ERA): Promise<FundedUser> {
  const client = createClient({ url: devnet.graphqlWsUrl, webSocketImpl: WebSocket, lazy: true, retryAttempts: 0 });
  const user = freshUser(seedByte, era);
  const to = freshUser(seedByte + 1, era).address;
  try {
    const utxo = await fundViaFaucet(devnet.faucetUrl, client, user, 1_000_000_000n);
    return { user, utxo, transfer: (n) => transferFrom(user, utxo, to, 1_000n + BigInt(n)) };
  } finally {
    await client.dispose();
  }
}
