// Optional persistence of one network under `<stateDir>/<network>/`:
//   blocks.log  every block's indexer records, appended (4-byte big-endian length + msgpack)
//   chain.bin   the chain head after the last block: LedgerState, devnet wallet states, observer
// The log is written before the snapshot, so after a crash the log may hold one block more than
// the snapshot; loading truncates it to the snapshot's height and the chain resumes from there.
import { closeSync, existsSync, fstatSync, ftruncateSync, mkdirSync, openSync, readFileSync, readSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { Packr } from 'msgpackr';
import { DevnetError, DevnetErrorCode } from './errors.js';
import type { BlockBundle } from './indexer-records.js';

export const SNAPSHOT_FORMAT = 1;
const packr = new Packr({ useRecords: false });

export interface ChainSnapshot {
  format: number;
  networkId: string;
  /** Seed and sponsor keys the genesis was made with: a state dir resumes only the same genesis. */
  genesisFingerprint: string;
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

export interface LoadedState {
  snapshot: ChainSnapshot;
  bundles: BlockBundle[];
}

export class NetworkPersistence {
  readonly #dir: string;
  readonly #logPath: string;
  readonly #snapshotPath: string;
  #logFd: number | undefined;

  constructor(dir: string) {
    this.#dir = dir;
    this.#logPath = join(dir, 'blocks.log');
    this.#snapshotPath = join(dir, 'chain.bin');
  }

  /** The saved chain, if any; throws when it belongs to another genesis. */
  load(networkId: string, genesisFingerprint: string): LoadedState | undefined {
    mkdirSync(this.#dir, { recursive: true });
    if (!existsSync(this.#snapshotPath)) {
      // No snapshot: any log is from a genesis that never finished. Start over.
      writeFileSync(this.#logPath, new Uint8Array());
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
    return { snapshot, bundles: this.#readLog(snapshot.height) };
  }

  #readLog(lastHeight: number): BlockBundle[] {
    const fd = openSync(this.#logPath, 'r+');
    try {
      const size = fstatSync(fd).size;
      const header = Buffer.alloc(4);
      const bundles: BlockBundle[] = [];
      let offset = 0;
      while (bundles.length <= lastHeight && offset + 4 <= size) {
        readSync(fd, header, 0, 4, offset);
        const length = header.readUInt32BE(0);
        if (offset + 4 + length > size) break;
        const body = Buffer.alloc(length);
        readSync(fd, body, 0, length, offset + 4);
        bundles.push(packr.unpack(body) as BlockBundle);
        offset += 4 + length;
      }
      if (bundles.length !== lastHeight + 1) {
        throw new DevnetError(DevnetErrorCode.STATE_MISMATCH, 500, `${this.#logPath} holds ${bundles.length} blocks, the snapshot needs ${lastHeight + 1}`);
      }
      ftruncateSync(fd, offset);
      return bundles;
    } finally {
      closeSync(fd);
    }
  }

  appendBlock(bundle: BlockBundle): void {
    this.#logFd ??= openSync(this.#logPath, 'a');
    const body = packr.pack(bundle);
    const header = Buffer.alloc(4);
    header.writeUInt32BE(body.length, 0);
    writeSync(this.#logFd, Buffer.concat([header, body]));
  }

  saveSnapshot(snapshot: ChainSnapshot): void {
    const tmp = `${this.#snapshotPath}.tmp`;
    writeFileSync(tmp, packr.pack(snapshot));
    renameSync(tmp, this.#snapshotPath);
  }

  close(): void {
    if (this.#logFd !== undefined) closeSync(this.#logFd);
    this.#logFd = undefined;
  }
}
