// Optional persistence of one network under `<stateDir>/<network>/`:
//   blocks.log  every block's indexer records, appended (4-byte big-endian length + msgpack)
//   blocks.idx  per block, 5 float64: the block's offset in blocks.log and the first transaction,
//               DUST event, Zswap event and contract action id it would hold (the ids then next),
//               so an archived record is found by height or id with a few small reads
//   chain.bin   the chain head after the last block: LedgerState, devnet wallet states, observer
// The log is written before the snapshot, so after a crash the log may hold one block more than
// the snapshot; loading truncates it to the snapshot's height and the chain resumes from there.
// The index is rebuilt from the log on every load.
//
// The log is also the indexer's archive: blocks older than the store's retained history are read
// back from it (indexer-store.ts), nothing of them is held in memory.
import { closeSync, existsSync, fstatSync, ftruncateSync, mkdirSync, openSync, readFileSync, readSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { Packr } from 'msgpackr';
import type { Era } from '@nightgate/ledger';
import { DevnetError, DevnetErrorCode } from './errors.js';
import type { BlockBundle, BlockRecord, ContractActionRecord, DustEventRecord, TransactionRecord, ZswapEventRecord } from './indexer-records.js';
import type { BlockArchive, IndexerStore } from './indexer-store.js';

export const SNAPSHOT_FORMAT = 1;
const packr = new Packr({ useRecords: false });

/** blocks.idx entry layout (float64 slots). */
const IDX_OFFSET = 0;
const IDX_TRANSACTION = 1;
const IDX_DUST_EVENT = 2;
const IDX_ZSWAP_EVENT = 3;
const IDX_CONTRACT_ACTION = 4;
const IDX_SLOTS = 5;
const IDX_ENTRY_BYTES = IDX_SLOTS * 8;
type IdSlot = typeof IDX_TRANSACTION | typeof IDX_DUST_EVENT | typeof IDX_ZSWAP_EVENT | typeof IDX_CONTRACT_ACTION;

/** Archived blocks read back and kept for the next read (feeds read consecutive ids). */
const CACHED_BUNDLES = 4;

type FirstIds = ReturnType<IndexerStore['nextIds']>;

export interface ChainSnapshot {
  format: number;
  networkId: string;
  /** Seed and sponsor keys the genesis was made with: a state dir resumes only the same genesis. */
  genesisFingerprint: string;
  /** The ledger era of `ledgerState` and the wallet states (absent: 8, the only era before). */
  era?: Era;
  /** With era 9: the height ledger 9 started at (0: genesis). */
  ledger9FromHeight?: number;
  height: number;
  hash: string;
  timestampMs: number;
  ledgerState: Uint8Array;
  /** The devnet DUST wallet's local state. */
  dust: Uint8Array;
  /** The shielded users' local states, in user order. */
  shielded: Uint8Array[];
  observer: Uint8Array;
}

export class NetworkPersistence implements BlockArchive {
  readonly #dir: string;
  readonly #logPath: string;
  readonly #idxPath: string;
  readonly #snapshotPath: string;
  #logFd: number | undefined;
  #readFd: number | undefined;
  #idxFd: number | undefined;
  #logSize = 0;
  #blocks = 0;
  readonly #entry = new Float64Array(IDX_SLOTS);
  readonly #cache = new Map<number, BlockBundle>();

  constructor(dir: string) {
    this.#dir = dir;
    this.#logPath = join(dir, 'blocks.log');
    this.#idxPath = join(dir, 'blocks.idx');
    this.#snapshotPath = join(dir, 'chain.bin');
  }

  /**
   * The saved chain head, if any, after passing every saved block, oldest first, to `onBlock`;
   * throws when it belongs to another genesis.
   */
  load(networkId: string, genesisFingerprint: string, onBlock: (bundle: BlockBundle) => void): ChainSnapshot | undefined {
    mkdirSync(this.#dir, { recursive: true });
    if (!existsSync(this.#snapshotPath)) {
      // No snapshot: any log is from a genesis that never finished. Start over.
      writeFileSync(this.#logPath, new Uint8Array());
      writeFileSync(this.#idxPath, new Uint8Array());
      this.#open();
      return undefined;
    }
    const snapshot = packr.unpack(readFileSync(this.#snapshotPath)) as ChainSnapshot;
    if (snapshot.format !== SNAPSHOT_FORMAT || snapshot.networkId !== networkId || snapshot.genesisFingerprint !== genesisFingerprint) {
      throw new DevnetError(
        DevnetErrorCode.STATE_MISMATCH,
        500,
        `${this.#dir} holds a chain made with another seed, sponsor keys or network id; remove it to start a new genesis`,
      );
    }
    this.#readLog(snapshot.height, onBlock);
    this.#open();
    return snapshot;
  }

  /** Streams the log into `onBlock` and rebuilds the index; truncates both to the snapshot's height. */
  #readLog(lastHeight: number, onBlock: (bundle: BlockBundle) => void): void {
    const fd = openSync(this.#logPath, 'r+');
    try {
      const size = fstatSync(fd).size;
      const header = Buffer.alloc(4);
      const entries: number[] = [];
      const next = { transaction: 1, dustEvent: 1, zswapEvent: 1, contractAction: 1 };
      let blocks = 0;
      let offset = 0;
      while (blocks <= lastHeight && offset + 4 <= size) {
        readSync(fd, header, 0, 4, offset);
        const length = header.readUInt32BE(0);
        if (offset + 4 + length > size) break;
        const body = Buffer.alloc(length);
        readSync(fd, body, 0, length, offset + 4);
        const bundle = packr.unpack(body) as BlockBundle;
        entries.push(offset, next.transaction, next.dustEvent, next.zswapEvent, next.contractAction);
        next.transaction += bundle.transactions.length;
        next.dustEvent += bundle.dustEvents.length;
        next.zswapEvent += bundle.zswapEvents.length;
        next.contractAction += bundle.contractActions.length;
        onBlock(bundle);
        blocks++;
        offset += 4 + length;
      }
      if (blocks !== lastHeight + 1) {
        throw new DevnetError(DevnetErrorCode.STATE_MISMATCH, 500, `${this.#logPath} holds ${blocks} blocks, the snapshot needs ${lastHeight + 1}`);
      }
      ftruncateSync(fd, offset);
      writeFileSync(this.#idxPath, new Uint8Array(Float64Array.from(entries).buffer));
      this.#logSize = offset;
      this.#blocks = blocks;
    } finally {
      closeSync(fd);
    }
  }

  #open(): void {
    this.#logFd = openSync(this.#logPath, 'a');
    this.#readFd = openSync(this.#logPath, 'r');
    this.#idxFd = openSync(this.#idxPath, 'r+');
  }

  /** Appends a block; `firstIds` are the ids its records start at (the store's next ids before it). */
  appendBlock(bundle: BlockBundle, firstIds: FirstIds): void {
    if (this.#logFd === undefined || this.#idxFd === undefined) throw new Error('persistence not loaded');
    const body = packr.pack(bundle);
    const header = Buffer.alloc(4);
    header.writeUInt32BE(body.length, 0);
    writeSync(this.#logFd, Buffer.concat([header, body]));
    const entry = Float64Array.of(this.#logSize, firstIds.transaction, firstIds.dustEvent, firstIds.zswapEvent, firstIds.contractAction);
    writeSync(this.#idxFd, new Uint8Array(entry.buffer), 0, IDX_ENTRY_BYTES, this.#blocks * IDX_ENTRY_BYTES);
    this.#logSize += header.length + body.length;
    this.#blocks++;
  }

  saveSnapshot(snapshot: ChainSnapshot): void {
    const tmp = `${this.#snapshotPath}.tmp`;
    writeFileSync(tmp, packr.pack(snapshot));
    renameSync(tmp, this.#snapshotPath);
  }

  close(): void {
    for (const fd of [this.#logFd, this.#readFd, this.#idxFd]) if (fd !== undefined) closeSync(fd);
    this.#logFd = undefined;
    this.#readFd = undefined;
    this.#idxFd = undefined;
    this.#cache.clear();
  }

  // --- the archive ---------------------------------------------------------------------------

  #readEntry(height: number): Float64Array {
    readSync(this.#idxFd as number, new Uint8Array(this.#entry.buffer), 0, IDX_ENTRY_BYTES, height * IDX_ENTRY_BYTES);
    return this.#entry;
  }

  #bundle(height: number): BlockBundle | undefined {
    const fd = this.#readFd;
    if (fd === undefined || height < 0 || height >= this.#blocks) return undefined;
    const cached = this.#cache.get(height);
    if (cached) return cached;
    const offset = this.#readEntry(height)[IDX_OFFSET] as number;
    const header = Buffer.alloc(4);
    readSync(fd, header, 0, 4, offset);
    const body = Buffer.alloc(header.readUInt32BE(0));
    readSync(fd, body, 0, body.length, offset + 4);
    const bundle = packr.unpack(body) as BlockBundle;
    if (this.#cache.size >= CACHED_BUNDLES) this.#cache.delete(this.#cache.keys().next().value as number);
    this.#cache.set(height, bundle);
    return bundle;
  }

  /** The block whose records of `slot` start at or below `id`: the last such block, by binary search. */
  #heightOf(slot: IdSlot, id: number): number | undefined {
    if (this.#idxFd === undefined || this.#blocks === 0) return undefined;
    let lo = 0;
    let hi = this.#blocks - 1;
    if ((this.#readEntry(lo)[slot] as number) > id) return undefined;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if ((this.#readEntry(mid)[slot] as number) <= id) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  #find<T extends { id: number }>(slot: IdSlot, id: number, of: (b: BlockBundle) => T[]): T | undefined {
    for (const bundle of this.#cache.values()) {
      const hit = of(bundle).find((r) => r.id === id);
      if (hit) return hit;
    }
    const height = this.#heightOf(slot, id);
    if (height === undefined) return undefined;
    const bundle = this.#bundle(height);
    return bundle && of(bundle).find((r) => r.id === id);
  }

  block(height: number): BlockRecord | undefined {
    return this.#bundle(height)?.block;
  }

  transaction(id: number): TransactionRecord | undefined {
    return this.#find(IDX_TRANSACTION, id, (b) => b.transactions);
  }

  dustEvent(id: number): DustEventRecord | undefined {
    return this.#find(IDX_DUST_EVENT, id, (b) => b.dustEvents);
  }

  zswapEvent(id: number): ZswapEventRecord | undefined {
    return this.#find(IDX_ZSWAP_EVENT, id, (b) => b.zswapEvents);
  }

  contractAction(id: number): ContractActionRecord | undefined {
    return this.#find(IDX_CONTRACT_ACTION, id, (b) => b.contractActions);
  }

  lastTransactionIdAt(height: number): number | undefined {
    if (this.#idxFd === undefined || height < 0 || height + 1 >= this.#blocks) return undefined;
    return (this.#readEntry(height + 1)[IDX_TRANSACTION] as number) - 1;
  }
}
