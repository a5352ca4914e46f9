/**
 * An address's unshielded activity. The indexer has no query for it, only the
 * `unshieldedTransactions(address)` subscription, which replays the address's transactions from
 * the first and interleaves progress events carrying the highest transaction id it knows for the
 * address (LEDGER.md, "Indexer"). We read until we have seen that id, then hang up: one
 * short-lived graphql-transport-ws connection per lookup (lookups are cached and single-flight).
 */
import { GatewayError, toGatewayError } from '../../core/errors.js';
import { GraphqlWsConnection } from '../../infra/indexer/graphql-ws.js';
import { ADDRESS_ACTIVITY } from './queries.js';
import { AddressEvent, expectShape } from './upstream-types.js';
import type { UpstreamCredentials } from '../../core/config/index.js';

/** Beyond this many events an address is too busy to summarise in one lookup. */
const MAX_ADDRESS_EVENTS = 50_000;

type Event = AddressEvent['unshieldedTransactions'];
export type AddressTransactionEvent = Extract<Event, { __typename: 'UnshieldedTransaction' }>;

interface StreamOptions {
  wsUrl: string;
  credentials?: UpstreamCredentials;
  address: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

/**
 * Stream the address's events to `onTransaction` until caught up (or until `onTransaction`
 * returns true: seen enough). Resolves to the highest transaction id the indexer reported.
 */
export function streamAddressActivity(opts: StreamOptions, onTransaction: (ev: AddressTransactionEvent) => boolean | void): Promise<number> {
  return new Promise((resolve, reject) => {
    let highest: number | undefined;
    let lastSeen = -1;
    let events = 0;
    let settled = false;
    const finish = (err: unknown, value?: number): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      conn.close();
      if (err) reject(err);
      else resolve(value ?? highest ?? 0);
    };
    const onAbort = (): void => finish(opts.signal!.reason);
    const timer = setTimeout(
      () => finish(new GatewayError('INDEXER_TIMEOUT', `The indexer did not finish the address activity of ${opts.address} within ${opts.timeoutMs} ms`)),
      opts.timeoutMs,
    );
    const conn = new GraphqlWsConnection(opts.wsUrl, {
      ackTimeoutMs: opts.timeoutMs,
      ...(opts.credentials ? { credentials: opts.credentials } : {}),
      onClose: (err) => err && finish(err),
    });
    if (opts.signal?.aborted) return finish(opts.signal.reason);
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    conn.subscribe(
      ADDRESS_ACTIVITY,
      { address: opts.address },
      {
        next: (data) => {
          let ev: Event;
          try {
            ev = expectShape(AddressEvent, data, ADDRESS_ACTIVITY.name).unshieldedTransactions;
          } catch (err) {
            return finish(toGatewayError(err));
          }
          if (++events > MAX_ADDRESS_EVENTS)
            return finish(
              new GatewayError('INDEXER_BAD_RESPONSE', `The address ${opts.address} has more than ${MAX_ADDRESS_EVENTS} events; too many to summarise`),
            );
          if (ev.__typename === 'UnshieldedTransactionsProgress') {
            highest = ev.highestTransactionId;
          } else {
            lastSeen = Math.max(lastSeen, ev.transaction.id);
            if (onTransaction(ev) === true) return finish(undefined, Math.max(highest ?? 0, lastSeen));
          }
          if (highest !== undefined && lastSeen >= highest) finish(undefined, highest);
          else if (highest === 0) finish(undefined, 0);
        },
        error: (err) => finish(err),
        complete: () => finish(undefined),
      },
    );
  });
}
