/**
 * The chain as the bench sees it: ONE `blocks` subscription over one graphql-ws connection
 * (LEDGER.md "Indexer"), however many clients wait. Each block answers the clients waiting for a
 * transaction hash in it and the clients waiting for a NIGHT UTXO to reach their address (the
 * faucet's payout), and is recorded for the block-capacity figure. Hashes seen are remembered, so a
 * block that arrives before its waiter registers still answers it.
 */
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { sleep } from './http.js';
import type { NightUtxo } from './night-transfer.js';
import type { BlockSeen } from './sustained-stats.js';

const QUERY = `subscription Blocks($offset: BlockOffset) {
  blocks(offset: $offset) {
    height
    timestamp
    transactions {
      hash
      unshieldedCreatedOutputs { owner tokenType value intentHash outputIndex }
    }
  }
}`;

const RESUBSCRIBE_MS = 1000;
/** Transaction hashes remembered (a few minutes of full blocks at the target rate). */
const SEEN_KEPT = 50_000;

interface OutputRow {
  owner: string;
  tokenType: string;
  value: string;
  intentHash: string;
  outputIndex: number;
}

interface BlockRow {
  height: number;
  timestamp: number;
  transactions: Array<{ hash: string; unshieldedCreatedOutputs: OutputRow[] }>;
}

export interface Inclusion {
  seenAt: number;
  height: number;
  timestamp: number;
  /** NIGHT outputs of the transaction, by owner (bech32m, lower case). */
  outputs: Map<string, NightUtxo>;
}

export class ChainWatch {
  readonly blocks: BlockSeen[] = [];
  readonly #client: Client;
  readonly #night: string;
  readonly #seen = new Map<string, Inclusion>();
  readonly #txWaiters = new Map<string, (i: Inclusion | undefined) => void>();
  readonly #ownerWaiters = new Map<string, (u: NightUtxo) => void>();
  #lastHeight: number | undefined;
  #closed = false;
  #loop: Promise<void> | undefined;
  #firstBlock: Promise<void>;
  #onFirstBlock: () => void = () => undefined;
  /** Why the subscription last failed, for the error message of a run that saw no blocks. */
  lastError: string | undefined;

  /** `nightToken`: the raw NIGHT token type (ledger `nativeToken().raw`). */
  constructor(wsUrl: string, nightToken: string) {
    this.#client = createClient({ url: wsUrl, webSocketImpl: WebSocket, lazy: true, retryAttempts: 5, keepAlive: 10_000 });
    this.#night = nightToken;
    this.#firstBlock = new Promise((resolve) => (this.#onFirstBlock = resolve));
  }

  start(): void {
    this.#loop ??= this.#run();
  }

  /** Resolves with the first block delivered (the subscription is live from then on). */
  firstBlock(timeoutMs: number): Promise<boolean> {
    return Promise.race([this.#firstBlock.then(() => true), sleep(timeoutMs).then(() => false)]);
  }

  get height(): number | undefined {
    return this.#lastHeight;
  }

  /**
   * Resolves when `hash` is in a block, or with undefined once `deadlineMs` (epoch ms) has passed or
   * `signal` aborted (the devnet said the transaction was dropped: it will never be included).
   */
  waitForTransaction(hash: string, deadlineMs: number, signal?: AbortSignal): Promise<Inclusion | undefined> {
    const key = hash.toLowerCase();
    const seen = this.#seen.get(key);
    if (seen) return Promise.resolve(seen);
    if (signal?.aborted) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const finish = (i: Inclusion | undefined): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.#txWaiters.delete(key);
        resolve(i);
      };
      const onAbort = (): void => finish(undefined);
      const timer = setTimeout(onAbort, Math.max(0, deadlineMs - Date.now()));
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#txWaiters.set(key, finish);
    });
  }

  /** Resolves with the first NIGHT UTXO created for `bech32` from now on (register before asking the faucet). */
  waitForUtxo(bech32: string): Promise<NightUtxo> {
    return new Promise((resolve) => this.#ownerWaiters.set(bech32.toLowerCase(), resolve));
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#client.dispose();
    await this.#loop?.catch(() => undefined);
  }

  async #run(): Promise<void> {
    while (!this.#closed) {
      const from = this.#lastHeight;
      const events = this.#client.iterate<{ blocks: BlockRow }>({ query: QUERY, variables: from === undefined ? {} : { offset: { height: from + 1 } } });
      try {
        for await (const result of events) {
          if (result.errors?.length) throw new Error(result.errors.map((e) => e.message).join('; '));
          const block = result.data?.blocks;
          if (block) this.#onBlock(block);
        }
      } catch (err) {
        this.lastError = err instanceof Error ? err.message : String(err);
      }
      // Ended or failed: resubscribe from the block after the last one seen, so none is missed.
      if (!this.#closed) await sleep(RESUBSCRIBE_MS);
    }
  }

  #onBlock(block: BlockRow): void {
    if (this.#lastHeight !== undefined && block.height <= this.#lastHeight) return;
    this.#lastHeight = block.height;
    const seenAt = Date.now();
    for (const tx of block.transactions) {
      const outputs = new Map<string, NightUtxo>();
      for (const o of tx.unshieldedCreatedOutputs) {
        if (o.tokenType !== this.#night) continue;
        const owner = o.owner.toLowerCase();
        const utxo = { value: BigInt(o.value), intentHash: o.intentHash, outputIndex: o.outputIndex };
        outputs.set(owner, utxo);
        const fund = this.#ownerWaiters.get(owner);
        if (fund) {
          this.#ownerWaiters.delete(owner);
          fund(utxo);
        }
      }
      const hash = tx.hash.toLowerCase();
      const inclusion = { seenAt, height: block.height, timestamp: block.timestamp, outputs };
      // Remembered for a waiter that registers after its block arrived (a submit's answer can
      // race the block that includes it); the oldest are forgotten past SEEN_KEPT.
      this.#seen.set(hash, inclusion);
      if (this.#seen.size > SEEN_KEPT) this.#seen.delete(this.#seen.keys().next().value as string);
      this.#txWaiters.get(hash)?.(inclusion);
    }
    this.blocks.push({ height: block.height, timestamp: block.timestamp, transactions: block.transactions.length });
    this.#onFirstBlock();
  }
}
