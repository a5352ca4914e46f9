// Turns a produced block into indexer records, as the real indexer derives them from a node:
// UTXOs from the ledger's UTXO-set delta, ledger events split into zswap and DUST streams (their
// `raw` is the ledger's own serialization, so wallets can replay them) and contract events (a
// contract's `contractLog`, contract-events.ts), contract actions from the intents, Merkle roots
// from an observer that replays the zswap events, and each contract's filtered commitment tree
// after the block (contract-zswap.ts).
import { release, type L, type LedgerKit } from './ledger-kit.js';
import { bytesToHex, deriveSeed } from './keys.js';
import { decodeContractLog, type ContractLogContent } from './contract-events.js';
import { contractZswapTrees } from './contract-zswap.js';
import type { AppliedTx, ProducedBlock } from './chain.js';
import type { IndexerStore } from './indexer-store.js';
import type {
  BlockBundle,
  BlockRecord,
  ContractActionRecord,
  ContractEventRecord,
  ContractZswapTrees,
  DustEventRecord,
  DustEventTypename,
  TransactionRecord,
  TransactionResultStatus,
  UtxoRecord,
  ZswapEventRecord,
} from './indexer-records.js';

const DUST_EVENT_TYPES: Record<string, DustEventTypename> = {
  dustInitialUtxo: 'DustInitialUtxo',
  dustGenerationDtimeUpdate: 'DustGenerationDtimeUpdate',
  dustSpendProcessed: 'DustSpendProcessed',
  paramChange: 'ParamChange',
};
const ZSWAP_EVENT_TAGS = new Set(['zswapInput', 'zswapOutput']);
const EMPTY_ROOT = '0'.repeat(64);

// The ledger exposes a DUST output's nonce only in the event's rendering, not as a field.
const OUTPUT_NONCE = /output:\s*QualifiedDustOutput\s*\{[^}]*?nonce:\s*([0-9a-f]{64})/;

const STATUS: Record<L.TransactionResult['type'], TransactionResultStatus> = {
  success: 'SUCCESS',
  partialSuccess: 'PARTIAL_SUCCESS',
  failure: 'FAILURE',
};

function utxoKey(intentHash: string, outputNo: number): string {
  return `${intentHash}#${outputNo}`;
}

function rootHex(local: L.ZswapLocalState): string {
  const root = local.merkleTreeRoot;
  // A field element, rendered little-endian like the ledger renders Merkle roots.
  return root === undefined ? EMPTY_ROOT : Buffer.from(root.toString(16).padStart(64, '0'), 'hex').reverse().toString('hex');
}

function firstFree(state: L.LedgerState): number {
  const zswap = state.zswap;
  const index = Number(zswap.firstFree);
  release(zswap);
  return index;
}

function tokenTypeHex(token: L.TokenType): string {
  return token.tag === 'dust' ? EMPTY_ROOT : token.raw;
}

/** Indexes the blocks of one ledger era: its records carry that era's protocol version. */
export class BlockIndexer {
  readonly #kit: LedgerKit;
  readonly #store: IndexerStore;
  readonly #author: string;
  readonly #observerKeys: L.ZswapSecretKeys;
  #observer: L.ZswapLocalState;

  constructor(kit: LedgerKit, store: IndexerStore, seed: string, observer?: Uint8Array) {
    const { L } = kit;
    this.#kit = kit;
    this.#store = store;
    this.#author = bytesToHex(deriveSeed(seed, 'block-author'));
    this.#observerKeys = L.ZswapSecretKeys.fromSeed(deriveSeed(seed, 'indexer-observer'));
    this.#observer = observer ? L.ZswapLocalState.deserialize(observer) : new L.ZswapLocalState();
  }

  snapshot(): Uint8Array {
    return this.#observer.serialize();
  }

  /**
   * The block's records, and its DUST and Zswap events serialized and concatenated in order (what
   * `replayRawEvents` takes; each stream alone, since replaying an event costs even when it is of
   * no interest). Events are read once: ledger-v8 consumes an `Event` passed to a replay.
   */
  index(block: ProducedBlock, state: L.LedgerState): { bundle: BlockBundle; dustEvents: Uint8Array; zswapEvents: Uint8Array } {
    const ids = this.#store.nextIds();
    const params = state.parameters;
    const zswap = state.zswap;
    const parent = this.#store.latestBlock;
    const bundle: BlockBundle = {
      block: {
        height: block.height,
        hash: block.hash,
        parentHash: block.parentHash,
        timestamp: block.timestampMs,
        author: this.#author,
        protocolVersion: this.#kit.protocolVersion,
        ledgerParameters: bytesToHex(params.serialize()),
        zswapMerkleTreeRoot: '',
        zswapEndIndex: Number(zswap.firstFree),
        transactionIds: [],
      },
      transactions: [],
      createdUtxos: [],
      spentUtxos: [],
      dustEvents: [],
      zswapEvents: [],
      contractActions: [],
    };
    release(params);
    /** Contracts this block's new coin commitments belong to. */
    const owners = new Set<string>();
    try {
      for (const applied of block.applied) {
        const record = this.#indexTransaction(applied, ids.transaction++, block.height, bundle, ids, owners);
        bundle.transactions.push(record);
        bundle.block.transactionIds.push(record.id);
      }
      bundle.block.zswapMerkleTreeRoot = rootHex(this.#observer);
      bundle.block.contractZswap = this.#contractZswap(bundle.block, parent, zswap, owners);
    } finally {
      release(zswap);
    }
    return {
      bundle,
      dustEvents: Buffer.concat(bundle.dustEvents.map((e) => e.raw)),
      zswapEvents: Buffer.concat(bundle.zswapEvents.map((e) => e.raw)),
    };
  }

  #indexTransaction(
    applied: AppliedTx,
    id: number,
    height: number,
    bundle: BlockBundle,
    ids: ReturnType<IndexerStore['nextIds']>,
    owners: Set<string>,
  ): TransactionRecord {
    const { candidate, result, before, after } = applied;
    const zswapRaws: Uint8Array[] = [];
    const dustEventIds: number[] = [];
    const zswapEventIds: number[] = [];
    const contractEvents: ContractEventRecord[] = [];
    const generationNonces = new Set<string>();
    let fee = 0n;
    const events = result.events;
    for (const event of events) {
      const content = event.content;
      const raw = event.serialize();
      const typename = DUST_EVENT_TYPES[content.tag];
      if (typename) {
        const record: DustEventRecord = {
          id: ids.dustEvent++,
          typename,
          raw,
          protocolVersion: this.#kit.protocolVersion,
          transactionId: id,
          outputNonce: typename === 'DustInitialUtxo' ? (OUTPUT_NONCE.exec(event.toString())?.[1] ?? null) : null,
        };
        bundle.dustEvents.push(record);
        dustEventIds.push(record.id);
        if ('generation' in content) generationNonces.add(content.generation.nonce);
        if ('vFee' in content) fee += content.vFee;
      } else if (ZSWAP_EVENT_TAGS.has(content.tag)) {
        const record: ZswapEventRecord = { id: ids.zswapEvent++, raw, protocolVersion: this.#kit.protocolVersion, transactionId: id };
        bundle.zswapEvents.push(record);
        zswapEventIds.push(record.id);
        zswapRaws.push(raw);
        const owner = contractOfOutput(content);
        if (owner) owners.add(owner);
      } else if (content.tag === 'contractLog') {
        const log = content as unknown as ContractLogContent;
        const decoded = decodeContractLog(log);
        if (decoded) {
          contractEvents.push({
            id: ids.contractEvent++,
            ...decoded,
            raw,
            protocolVersion: this.#kit.protocolVersion,
            contractAddress: log.address,
            transactionId: id,
            blockHeight: height,
            entryPoint: entryPointText(log.entryPoint),
            contractActionId: null,
          });
        }
      }
    }
    release(...events);
    if (zswapRaws.length > 0) {
      const replayed = this.#observer.replayRawEvents(this.#observerKeys, Buffer.concat(zswapRaws));
      release(this.#observer);
      this.#observer = replayed.state;
      release(replayed);
    }
    const utxosAfter = after.utxo;
    const utxosBefore = before.utxo;
    const [created, spent] = utxosAfter.delta(utxosBefore);
    const createdUtxoKeys: string[] = [];
    for (const utxo of created) {
      const initialNonce = this.#kit.L.dustInitialNonce(BigInt(utxo.outputNo), utxo.intentHash);
      const meta = utxosAfter.lookupMeta(utxo);
      const ctime = meta?.ctime;
      release(meta);
      const record: UtxoRecord = {
        key: utxoKey(utxo.intentHash, utxo.outputNo),
        owner: utxo.owner,
        tokenType: utxo.type,
        value: utxo.value.toString(),
        intentHash: utxo.intentHash,
        outputIndex: utxo.outputNo,
        ctime: ctime ? Math.floor(ctime.getTime() / 1000) : null,
        initialNonce,
        registeredForDustGeneration: generationNonces.has(initialNonce),
        createdAtTransactionId: id,
        spentAtTransactionId: null,
      };
      bundle.createdUtxos.push(record);
      createdUtxoKeys.push(record.key);
    }
    release(utxosAfter, utxosBefore);
    const spentUtxoKeys = [...spent].map((u) => utxoKey(u.intentHash, u.outputNo));
    for (const key of spentUtxoKeys) bundle.spentUtxos.push({ key, transactionId: id });
    const contractActionIds = this.#contractActions(applied, id, bundle, ids);
    attributeEvents(
      contractEvents,
      bundle.contractActions.filter((a) => a.transactionId === id),
    );
    const segments = result.successfulSegments ? [...result.successfulSegments].map(([segment, success]) => ({ id: segment, success })) : null;
    return {
      id,
      hash: candidate.hash,
      protocolVersion: this.#kit.protocolVersion,
      raw: candidate.raw,
      blockHeight: height,
      identifiers: candidate.tx.identifiers(),
      status: STATUS[result.type],
      segments: result.type === 'partialSuccess' ? segments : null,
      fee: fee.toString(),
      zswapMerkleTreeRoot: rootHex(this.#observer),
      zswapStartIndex: firstFree(before),
      zswapEndIndex: firstFree(after),
      contractActionIds,
      createdUtxoKeys,
      spentUtxoKeys,
      zswapEventIds,
      dustEventIds,
      contractEvents,
    };
  }

  /**
   * Every contract's filtered commitment tree after the block. A block of this era that adds no
   * commitment (the tree's end index unchanged) and names no new owner shares its parent's.
   */
  #contractZswap(block: BlockRecord, parent: BlockRecord | undefined, zswap: L.ZswapChainState, owners: Set<string>): ContractZswapTrees {
    const sameEra = parent !== undefined && parent.protocolVersion === this.#kit.protocolVersion;
    const known = sameEra ? (parent.contractZswap?.owners ?? this.#ownersFromEvents()) : {};
    const unchanged = sameEra && parent.contractZswap !== undefined && parent.zswapEndIndex === block.zswapEndIndex;
    if (unchanged && [...owners].every((a) => a in known)) return parent.contractZswap as ContractZswapTrees;
    for (const address of Object.keys(known)) owners.add(address);
    return contractZswapTrees(zswap, owners);
  }

  /**
   * The owners of this era's commitments, read from the Zswap events held (the store's history,
   * and its archive): for a chain whose blocks were logged before the devnet kept the trees.
   */
  #ownersFromEvents(): Record<string, Uint8Array> {
    const owners: Record<string, Uint8Array> = {};
    const none = new Uint8Array();
    for (let id = 1; id <= this.#store.maxZswapEventId; id++) {
      const record = this.#store.zswapEvent(id);
      if (!record || record.protocolVersion !== this.#kit.protocolVersion) continue;
      const event = this.#kit.L.Event.deserialize(record.raw);
      const owner = contractOfOutput(event.content);
      if (owner) owners[owner] = none;
      release(event);
    }
    return owners;
  }

  #contractActions(applied: AppliedTx, txId: number, bundle: BlockBundle, ids: ReturnType<IndexerStore['nextIds']>): number[] {
    const { L } = this.#kit;
    const out: number[] = [];
    const intents = applied.candidate.tx.intents;
    if (!intents) return out;
    const succeeded = applied.result.successfulSegments;
    for (const [segment, intent] of [...intents].sort((a, b) => a[0] - b[0])) {
      if (succeeded && succeeded.get(segment) === false) {
        release(intent);
        continue;
      }
      const actions = intent.actions;
      for (const action of actions) {
        const address = action.address;
        const contract = applied.after.index(address);
        if (!contract) continue;
        const zswap = applied.after.zswap;
        const contractZswap = zswap.filter(address);
        const id = ids.contractAction++;
        const typename = action instanceof L.ContractDeploy ? 'ContractDeploy' : action instanceof L.MaintenanceUpdate ? 'ContractUpdate' : 'ContractCall';
        const record: ContractActionRecord = {
          id,
          typename,
          address,
          state: bytesToHex(contract.serialize()),
          zswapState: bytesToHex(contractZswap.serialize()),
          entryPoint: action instanceof L.ContractCall ? entryPointText(action.entryPoint) : null,
          transactionId: txId,
          deployId: typename === 'ContractDeploy' ? id : this.#deployId(address, bundle),
          balances: [...contract.balance].map(([token, amount]) => ({ tokenType: tokenTypeHex(token), amount: amount.toString() })),
        };
        release(contract, zswap, contractZswap);
        bundle.contractActions.push(record);
        out.push(id);
      }
      release(...actions, intent);
    }
    return out;
  }

  /** The deploy of `address`: in this block, or the one any held action on it refers to; -1 if none is held. */
  #deployId(address: string, bundle: BlockBundle): number {
    const pending = bundle.contractActions.find((a) => a.address === address && a.typename === 'ContractDeploy');
    if (pending) return pending.id;
    const first = this.#store.contractActionIds(address)[0];
    const held = first === undefined ? undefined : this.#store.contractAction(first);
    return held?.deployId ?? -1;
  }
}

/** The contract a new coin commitment belongs to, from its `zswapOutput` event (none: a user's). */
function contractOfOutput(content: L.Event['content']): string | undefined {
  return content.tag === 'zswapOutput' && 'contract' in content ? content.contract : undefined;
}

function entryPointText(entryPoint: string | Uint8Array): string {
  return typeof entryPoint === 'string' ? entryPoint : bytesToHex(entryPoint);
}

/**
 * Attributes each event to the call that logged it: the one call of its transaction with its
 * address and entry point. With several such calls it is left unattributed, as indexer 4.4 leaves
 * it (reachable through `Query.contractEvents` only).
 */
function attributeEvents(events: ContractEventRecord[], actions: ContractActionRecord[]): void {
  for (const e of events) {
    const calls = actions.filter((a) => a.typename === 'ContractCall' && a.address === e.contractAddress && a.entryPoint === e.entryPoint);
    e.contractActionId = calls.length === 1 ? (calls[0] as ContractActionRecord).id : null;
  }
}
