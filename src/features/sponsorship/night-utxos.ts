/**
 * The unspent NIGHT UTXOs of an address, read the way a wallet reads them from the Midnight indexer
 * (LEDGER.md "Indexer"): the `unshieldedTransactions(address)` subscription replays every
 * transaction touching the address, then a progress marker; created minus spent up to it is the
 * unspent set. One short-lived connection per read: the pool keeper reads at most once a block.
 */
import { GatewayError } from '../../core/errors.js';
import { GraphqlWsConnection } from '../../infra/indexer/graphql-ws.js';
import type { NightUtxo } from './pool-task.js';
import { NIGHT_UTXOS } from './queries.js';

interface UtxoRow extends NightUtxo {
  tokenType: string;
}

type Event =
  | { __typename: 'UnshieldedTransaction'; createdUtxos: UtxoRow[]; spentUtxos: UtxoRow[] }
  | { __typename: 'UnshieldedTransactionsProgress'; highestTransactionId: number };

const key = (u: NightUtxo): string => `${u.intentHash}#${u.outputIndex}`;

export function readNightUtxos(wsUrl: string, address: string, nightToken: string, timeoutMs: number): Promise<NightUtxo[]> {
  return new Promise((resolve, reject) => {
    const created = new Map<string, UtxoRow>();
    const spent = new Set<string>();
    let settled = false;
    const finish = (err: Error | undefined): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      stop();
      ws.close();
      if (err) reject(err);
      else resolve([...created.entries()].filter(([k, u]) => !spent.has(k) && u.tokenType === nightToken).map(([, u]) => ({ value: u.value, intentHash: u.intentHash, outputIndex: u.outputIndex })));
    };
    const timer = setTimeout(() => finish(new GatewayError('INDEXER_TIMEOUT', `the NIGHT UTXOs of ${address} were not read within ${timeoutMs} ms`)), timeoutMs);
    const ws = new GraphqlWsConnection(wsUrl, { ackTimeoutMs: timeoutMs, onClose: (err) => err && finish(err) });
    const stop = ws.subscribe(NIGHT_UTXOS, { address }, {
      next: (data) => {
        const event = data['unshieldedTransactions'] as Event | undefined;
        if (!event) return;
        if (event.__typename === 'UnshieldedTransactionsProgress') return finish(undefined);
        for (const u of event.createdUtxos) created.set(key(u), u);
        for (const u of event.spentUtxos) spent.add(key(u));
      },
      error: (err) => finish(err),
      complete: () => finish(undefined),
    });
  });
}
