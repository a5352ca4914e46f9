/**
 * Unspent unshielded UTXOs of an address, read the way a wallet reads them from the Midnight
 * indexer (LEDGER.md "Indexer"): the `unshieldedTransactions(address)` subscription over
 * graphql-transport-ws replays every transaction touching the address, then sends a progress
 * marker; created minus spent up to that marker is the unspent set.
 */
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';

export interface Utxo {
  tokenType: string;
  value: bigint;
  intentHash: string;
  outputIndex: number;
}

interface UtxoRow {
  tokenType: string;
  value: string;
  intentHash: string;
  outputIndex: number;
}

type Event =
  | { __typename: 'UnshieldedTransaction'; createdUtxos: UtxoRow[]; spentUtxos: UtxoRow[] }
  | { __typename: 'UnshieldedTransactionsProgress'; highestTransactionId: number };

const QUERY = `subscription Utxos($address: UnshieldedAddress!) {
  unshieldedTransactions(address: $address) {
    __typename
    ... on UnshieldedTransaction {
      createdUtxos { tokenType value intentHash outputIndex }
      spentUtxos { tokenType value intentHash outputIndex }
    }
    ... on UnshieldedTransactionsProgress { highestTransactionId }
  }
}`;

const key = (u: UtxoRow): string => `${u.intentHash}#${u.outputIndex}`;

export async function unspentUtxos(wsUrl: string, address: string, timeoutMs = 20_000): Promise<Utxo[]> {
  const client = createClient({ url: wsUrl, webSocketImpl: WebSocket, lazy: true, retryAttempts: 0 });
  const created = new Map<string, UtxoRow>();
  const spent = new Set<string>();
  const events = client.iterate<{ unshieldedTransactions: Event }>({ query: QUERY, variables: { address } });
  let caughtUp = false;
  const timer = setTimeout(() => void events.return?.(), timeoutMs);
  try {
    for await (const result of events) {
      if (result.errors?.length) throw new Error(`unshieldedTransactions: ${result.errors.map((e) => e.message).join('; ')}`);
      const event = result.data?.unshieldedTransactions;
      if (!event) continue;
      if (event.__typename === 'UnshieldedTransactionsProgress') {
        caughtUp = true;
        break;
      }
      for (const u of event.createdUtxos) created.set(key(u), u);
      for (const u of event.spentUtxos) spent.add(key(u));
    }
  } finally {
    clearTimeout(timer);
    await client.dispose();
  }
  if (!caughtUp) throw new Error(`unshieldedTransactions on ${wsUrl} did not catch up within ${timeoutMs} ms`);
  return [...created.entries()]
    .filter(([k]) => !spent.has(k))
    .map(([, u]) => ({ tokenType: u.tokenType, value: BigInt(u.value), intentHash: u.intentHash, outputIndex: u.outputIndex }));
}
