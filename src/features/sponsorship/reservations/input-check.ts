/**
 * Before a DUST UTXO is reserved for a transaction, every unshielded input it spends must be an
 * unspent UTXO on the chain the indexer follows, owned by the key that signed the input, of the
 * era the network runs, with the value and token type the input claims. A transaction spending
 * anything else passes `wellFormed` (which never looks UTXOs up) and is refused only at block time:
 * its sponsorship would hold a DUST UTXO for nothing.
 *
 * Where the facts come from: the indexer's `unshieldedTransactions(address)` subscription, the
 * same history a wallet reads its balance from (created minus spent up to the progress marker).
 * The v4 indexer has no look-up of one UTXO by intent hash, so the check reads the signer's
 * address: an input that is not among that address's unspent UTXOs either does not exist, is
 * spent, or belongs to someone else — refused alike, naming the input. A lookup per request,
 * not a follower: the unspent set of every address would be the whole chain's, and the
 * addresses that ask are few and bursty. Bounded by
 *  - one read per address at a time (single flight: a burst from one key is one read);
 *  - a short cache (`dust.inputCheckCacheMs`): what is found stays good that long; an input not
 *    found in a read that began before the request is read again in one that begins after it (a
 *    UTXO indexed a moment ago, which the client saw, is never refused from an older read, nor
 *    from a read in flight since before it), at most one read every RECHECK_MS per address, so a
 *    key sending made-up inputs costs at most a few reads a second;
 *  - at most MAX_ADDRESSES cached addresses (least recently used dropped), and no cache for an
 *    address with more than MAX_CACHED_UTXOS unspent UTXOs;
 *  - `timeoutMs` per read. An indexer that cannot answer in time fails the check closed
 *    (503 INPUTS_UNCHECKED with Retry-After): a sponsorship spends DUST, and a guess is not free.
 *
 * Eras: the devnet starts ledger 9 from a fresh state (no migration exists between the eras'
 * packages), so UTXOs created in ledger 8 are gone after the switch although the indexer still
 * lists their history. A UTXO counts only if the transaction that created it is of the era the
 * network runs now (its `protocolVersion`).
 *
 * Threads: the worker reads the inputs out of the transaction (admission.ts) and asks the main
 * thread over the task's port (task-port.ts); the main thread owns the cache and the reads, so all
 * workers share them.
 */
import type { UnshieldedInput } from '../common/balance-task.js';
import { bech32mEncode, eraOfProtocolVersion, type Era } from '../../../infra/ledger/index.js';
import type { Clock } from '../../../core/clock.js';
import { GatewayError, isGatewayError } from '../../../core/errors.js';
import { GraphqlWsConnection } from '../../../infra/indexer/graphql-ws.js';
import { UNSPENT_UTXOS } from '../common/queries.js';
import { eraChanged } from '../common/transaction-tag.js';
import type { UpstreamCredentials } from '../../../core/config/index.js';

interface UnspentUtxo {
  tokenType: string;
  value: string;
  era: Era;
  /** Created at, seconds since the epoch (when the indexer says). */
  ctime?: number;
  /** Its owner's NIGHT is registered for DUST generation (when the indexer says). */
  registered?: boolean;
}

/**
 * An address's unspent UTXOs by `intentHash#outputIndex` (lower-case hex); `spentIn`, when the
 * reader knows it, the era of the transaction that spent each UTXO made in an older era (the
 * UTXOs a change of era took, so at most those alive at the change).
 */
export type UnspentSet = ReadonlyMap<string, UnspentUtxo> & { readonly spentIn?: ReadonlyMap<string, Era> };

/** Reads the unspent UTXOs of a Bech32m address on a network (the indexer, or a test's stand-in). */
type UnspentReader = (network: string, address: string) => Promise<UnspentSet>;

/** Reads of one address for inputs not found start at least this far apart. */
const RECHECK_MS = 250;
const MAX_ADDRESSES = 10_000;
const MAX_CACHED_UTXOS = 4_096;
const RETRY_AFTER_S = '5';

export const utxoId = (intentHash: string, outputNo: number): string => `${intentHash.toLowerCase()}#${outputNo}`;

/** The indexer's Bech32m form of a 64-hex unshielded address (`mn_addr_<network id>…`, no suffix on mainnet). */
function unshieldedBech32(hexAddress: string, networkId: string): string {
  return bech32mEncode(networkId === 'mainnet' ? 'mn_addr' : `mn_addr_${networkId}`, Buffer.from(hexAddress, 'hex'));
}

type Event =
  | {
      __typename: 'UnshieldedTransaction';
      transaction?: { protocolVersion?: number };
      createdUtxos: Array<{ tokenType: string; value: string; intentHash: string; outputIndex: number; ctime?: number; registeredForDustGeneration?: boolean }>;
      spentUtxos: Array<{ intentHash: string; outputIndex: number }>;
    }
  | { __typename: 'UnshieldedTransactionsProgress'; highestTransactionId: number };

/**
 * One read: the address's history up to the progress marker, on `conn` (which it closes when
 * `own`). Unspent = created minus spent; each created UTXO tagged with its transaction's era.
 */
function readOn(conn: GraphqlWsConnection, own: boolean, address: string, timeoutMs: number): Promise<UnspentSet> {
  return new Promise((resolve, reject) => {
    const unspent = new Map<string, UnspentUtxo>();
    const spent = new Set<string>();
    const spentIn = new Map<string, Era>();
    let settled = false;
    const finish = (err: Error | undefined): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      stop();
      if (own) conn.close();
      if (err) return reject(err);
      for (const id of spent) unspent.delete(id);
      resolve(Object.assign(unspent, { spentIn }));
    };
    const timer = setTimeout(() => finish(new GatewayError('INDEXER_TIMEOUT', `the UTXOs of ${address} were not read within ${timeoutMs} ms`)), timeoutMs);
    const stop = conn.subscribe(
      UNSPENT_UTXOS,
      { address },
      {
        next: (data) => {
          const event = data['unshieldedTransactions'] as Event | undefined;
          if (!event) return;
          if (event.__typename === 'UnshieldedTransactionsProgress') return finish(undefined);
          const version = event.transaction?.protocolVersion;
          if (typeof version !== 'number')
            return finish(new GatewayError('INDEXER_BAD_RESPONSE', 'the indexer sent an unshielded transaction without its protocol version'));
          const era = eraOfProtocolVersion(version);
          for (const u of event.createdUtxos) {
            unspent.set(utxoId(u.intentHash, u.outputIndex), {
              tokenType: u.tokenType.toLowerCase(),
              value: u.value,
              era,
              ...(typeof u.ctime === 'number' ? { ctime: u.ctime } : {}),
              ...(typeof u.registeredForDustGeneration === 'boolean' ? { registered: u.registeredForDustGeneration } : {}),
            });
          }
          for (const u of event.spentUtxos) {
            const id = utxoId(u.intentHash, u.outputIndex);
            spent.add(id);
            const made = unspent.get(id)?.era;
            if (made !== undefined && made < era) spentIn.set(id, era);
          }
        },
        error: (err) => finish(err),
        // Only the progress marker says the history is whole: a subscription that ends before it
        // answered part of it, and an input missing from a part is not known to be spent.
        complete: () => finish(new GatewayError('INDEXER_BAD_RESPONSE', `the indexer ended the history of ${address} before its progress marker`)),
      },
    );
  });
}

/** One read over a connection of its own. */
export function readUnspentUtxos(wsUrl: string, address: string, timeoutMs: number, credentials?: UpstreamCredentials): Promise<UnspentSet> {
  return readOn(new GraphqlWsConnection(wsUrl, { ackTimeoutMs: timeoutMs, ...(credentials ? { credentials } : {}) }), true, address, timeoutMs);
}

/**
 * Reads over one connection per indexer, opened at the first read and kept while reads come
 * (closed after `idleMs` without one): a read is then one subscription, not a WebSocket handshake
 * each. A connection that fails fails the reads on it, and the next read opens a new one.
 */
export class UnspentUtxoReader {
  private conn: GraphqlWsConnection | undefined;
  private reading = 0;
  private idle: NodeJS.Timeout | undefined;

  constructor(
    private readonly wsUrl: string,
    private readonly timeoutMs: number,
    private readonly idleMs = 60_000,
    private readonly credentials?: UpstreamCredentials,
  ) {}

  async read(address: string): Promise<UnspentSet> {
    clearTimeout(this.idle);
    if (!this.conn) {
      const conn = new GraphqlWsConnection(this.wsUrl, {
        ackTimeoutMs: this.timeoutMs,
        ...(this.credentials ? { credentials: this.credentials } : {}),
        keepAliveMs: 15_000,
        onClose: () => {
          if (this.conn === conn) this.conn = undefined;
        },
      });
      this.conn = conn;
    }
    this.reading++;
    try {
      return await readOn(this.conn, false, address, this.timeoutMs);
    } finally {
      if (--this.reading === 0) {
        this.idle = setTimeout(() => this.close(), this.idleMs);
        this.idle.unref();
      }
    }
  }

  close(): void {
    clearTimeout(this.idle);
    const conn = this.conn;
    this.conn = undefined;
    conn?.close();
  }
}

interface Read {
  /** When the read began (clock ms): it knows every UTXO indexed before then. */
  startedAt: number;
  utxos: UnspentSet;
}

interface InputCheckerOptions {
  clock: Clock;
  /** How long a read's found UTXOs are trusted (`dust.inputCheckCacheMs`). */
  cacheMs: number;
  /** Ledger network id per network name, for the Bech32m addresses the indexer wants. */
  networkIdOf: (network: string) => string | undefined;
  reader: UnspentReader;
  /** Ends what the reader holds open (its connections), at shutdown. */
  close?: () => void;
}

export class InputChecker {
  private readonly cache = new Map<string, Read>();
  private readonly flights = new Map<string, { startedAt: number; promise: Promise<Read> }>();
  /** When the last read of each address began (the pace of re-reads). */
  private readonly lastStart = new Map<string, number>();
  /** Reads made (tests, status). */
  reads = 0;

  constructor(private readonly opts: InputCheckerOptions) {}

  close(): void {
    this.opts.close?.();
  }

  /**
   * Resolves when every input is an unspent UTXO of its owner in `era` on `network`; else throws
   * 400 TRANSACTION_REJECTED naming the first input that is not, or 503 INPUTS_UNCHECKED when the
   * indexer cannot say.
   */
  async check(network: string, era: Era, inputs: readonly UnshieldedInput[]): Promise<void> {
    if (inputs.length === 0) return;
    const networkId = this.opts.networkIdOf(network);
    if (networkId === undefined)
      throw new GatewayError('INPUTS_UNCHECKED', `no indexer to check inputs against on ${network}`, { headers: { 'Retry-After': RETRY_AFTER_S } });
    const asked = this.opts.clock.now();
    const byOwner = new Map<string, UnshieldedInput[]>();
    for (const input of inputs) {
      const list = byOwner.get(input.owner) ?? [];
      list.push(input);
      byOwner.set(input.owner, list);
    }
    await Promise.all(
      [...byOwner].map(async ([owner, mine]) => {
        const address = unshieldedBech32(owner, networkId);
        const key = `${network}|${address}`;
        let read = this.cached(key, asked) ?? (await this.read(key, network, address));
        let missing = mine.find((i) => !read.utxos.has(utxoId(i.intentHash, i.outputNo)));
        // A read that began before this request may predate the UTXO: not found there, read again.
        if (missing && read.startedAt < asked) {
          read = await this.freshRead(key, network, address, asked);
          missing = mine.find((i) => !read.utxos.has(utxoId(i.intentHash, i.outputNo)));
        }
        if (missing) {
          // Spent by a transaction of a newer era: the chain left this request's era (the old era's
          // UTXOs go with it) before the wallets' sync said so. That is the switch, not a bad input.
          const spentIn = read.utxos.spentIn?.get(utxoId(missing.intentHash, missing.outputNo));
          if (spentIn !== undefined && spentIn > era) throw eraChanged(era, spentIn);
          throw refused(missing, `which is not an unspent output of its signer ${address} on ${network} (spent, never created, or another key's)`);
        }
        for (const input of mine) {
          const utxo = read.utxos.get(utxoId(input.intentHash, input.outputNo))!;
          if (utxo.era !== era) throw refused(input, `an output made in ledger ${utxo.era}, gone since ${network} runs ledger ${era}`);
          if (utxo.tokenType !== input.type.toLowerCase()) throw refused(input, `whose token type is ${utxo.tokenType}, not ${input.type}`);
          if (utxo.value !== input.value) throw refused(input, `which holds ${utxo.value}, not ${input.value}`);
        }
      }),
    );
  }

  /** Forgets what was read of `owner`'s UTXOs on `network` (one of them was just spent): the next check reads the chain. */
  forget(network: string, owner: string): void {
    const networkId = this.opts.networkIdOf(network);
    if (networkId !== undefined) this.cache.delete(`${network}|${unshieldedBech32(owner, networkId)}`);
  }

  private cached(key: string, asked: number): Read | undefined {
    const read = this.cache.get(key);
    if (!read) return undefined;
    if (read.startedAt < asked - this.opts.cacheMs) {
      this.cache.delete(key);
      return undefined;
    }
    // Most recently used last: the first entry is the one dropped.
    this.cache.delete(key);
    this.cache.set(key, read);
    return read;
  }

  /**
   * A read that began at or after `asked`: one in flight since then, or a new one once the one in
   * flight since before has ended, no sooner than RECHECK_MS after the address's last read began.
   */
  private async freshRead(key: string, network: string, address: string, asked: number): Promise<Read> {
    let paced = false;
    for (;;) {
      const flight = this.flights.get(key);
      if (flight && flight.startedAt >= asked) return flight.promise;
      if (flight) {
        await flight.promise.catch(() => undefined);
        continue;
      }
      // Paced once, in real time (the injected clock may stand still).
      const wait = paced ? 0 : (this.lastStart.get(key) ?? -Infinity) + RECHECK_MS - this.opts.clock.now();
      paced = true;
      if (wait > 0) {
        await new Promise((resolve) => setTimeout(resolve, Math.min(wait, RECHECK_MS)).unref());
        continue;
      }
      return this.read(key, network, address);
    }
  }

  private read(key: string, network: string, address: string): Promise<Read> {
    const current = this.flights.get(key);
    if (current) return current.promise;
    const startedAt = this.opts.clock.now();
    this.reads++;
    this.lastStart.delete(key);
    this.lastStart.set(key, startedAt);
    if (this.lastStart.size > MAX_ADDRESSES) this.lastStart.delete(this.lastStart.keys().next().value!);
    const flight = this.opts.reader(network, address).then(
      (utxos) => {
        const read = { startedAt, utxos };
        if (utxos.size <= MAX_CACHED_UTXOS) {
          this.cache.delete(key);
          this.cache.set(key, read);
          if (this.cache.size > MAX_ADDRESSES) this.cache.delete(this.cache.keys().next().value!);
        }
        return read;
      },
      (err: unknown) => {
        const reason = isGatewayError(err) ? err.message : err instanceof Error ? err.message : String(err);
        throw new GatewayError(
          'INPUTS_UNCHECKED',
          `the indexer of ${network} could not be asked whether the transaction's inputs are unspent (${reason}); nothing was reserved`,
          { headers: { 'Retry-After': RETRY_AFTER_S } },
        );
      },
    );
    const entry = { startedAt, promise: flight };
    const done = (): void => {
      if (this.flights.get(key) === entry) this.flights.delete(key);
    };
    flight.then(done, done);
    this.flights.set(key, entry);
    return flight;
  }
}

function refused(input: UnshieldedInput, why: string): GatewayError {
  return new GatewayError(
    'TRANSACTION_REJECTED',
    `the transaction spends input ${input.intentHash}#${input.outputNo}, ${why}: it can never land, so nothing is reserved for it`,
  );
}
