// One embedded network: chain, indexer, HTTP endpoint and block schedule. `start` resumes from the
// state directory when there is one, else makes a new genesis dated `genesisAgeMs` in the past;
// `run` then produces a block every `blockTimeMs`. Without `run`, blocks come only from
// `produceBlock()` — the deterministic mode tests use. Block production is serialized. The
// indexer keeps the newest `retainBlocks` blocks in memory; with a state directory, older ones
// are served from its block log (indexer-store.ts). A network of ledger 8 can switch to ledger 9
// at a configured height, from a fresh state (ledger-switch.ts).
import type { GraphQLSchema } from 'graphql';
import { DEFAULT_ERA, eraName } from '@nightgate/ledger';
import { candidateOf, type Candidate, type ProducedBlock } from './chain.js';
import { DevnetError, DevnetErrorCode, reasonOf } from './errors.js';
import { createWorld, retireWorld, type EraWorld } from './era-world.js';
import { FaucetQueue } from './faucet-queue.js';
import { genesisCandidates, registrationCandidates, REGISTRATION_DELAY_MS, SETUP_BLOCK_MS } from './genesis.js';
import type { GraphQLContext } from './graphql-context.js';
import { DevnetHttpServer, FAUCET_PATH, GRAPHQL_PATH, GRAPHQL_WS_PATH, RPC_PATH, SUBMIT_PATH } from './http-server.js';
import type { BlockRecord } from './indexer-records.js';
import { IndexerStore } from './indexer-store.js';
import { sha256Hex } from './keys.js';
import { decodeFinalized, ledgerDate, LIVE_CHECKS_REPORT, release, type Era, type L, type Ledger } from './ledger-kit.js';
import { ledgerReport, retireUtxos, switchNote, SWITCH_SETUP_BLOCK_MS } from './ledger-switch.js';
import type { DevnetLogger } from './logger.js';
import type { MockProver } from './mock-prover.js';
import { DEFAULT_RETAIN_BLOCKS, MIN_GENESIS_AGE_MS, SWITCH_FROM, SWITCH_TO, type NetworkConfig, type NetworkInfo } from './network-config.js';
import { mempoolCheck, rejection } from './node-rejections.js';
import { NetworkPersistence, SNAPSHOT_FORMAT, type ChainSnapshot } from './persistence.js';
import { yieldToServing } from './serving-turn.js';
import { resumeWorld, worldSnapshot } from './world-snapshot.js';

export type { NetworkConfig, NetworkInfo } from './network-config.js';

/** What the GraphQL layer needs of the network's current era beside the chain's Zswap state. */
interface EraContext {
  era: Era;
  ledger: Ledger;
  protocolVersion: number;
}

export class DevnetNetwork {
  readonly #config: NetworkConfig;
  readonly #now: () => number;
  readonly #log: DevnetLogger;
  readonly #store: IndexerStore;
  readonly #http: DevnetHttpServer;
  readonly #persistence: NetworkPersistence | undefined;
  #world: EraWorld;
  /** The height ledger 9 started at on this network, once it has (0: its genesis). */
  #ledger9From: number | undefined;
  /** Ledger-8 UTXO keys the next committed block shows spent (the switch's first block). */
  #retiring: string[] = [];
  #pending: Candidate[] = [];
  readonly #faucetQueue: FaucetQueue;
  #busy: Promise<unknown> = Promise.resolve();
  #timer: NodeJS.Timeout | undefined;
  #nextDue = 0;
  #closed = false;
  #info: NetworkInfo | undefined;

  /** `prover` is used while the network runs its era; the network makes its own otherwise. */
  constructor(config: NetworkConfig, schema: GraphQLSchema, prover: MockProver | undefined, log: DevnetLogger) {
    if (config.genesisAgeMs < MIN_GENESIS_AGE_MS) {
      throw new DevnetError(DevnetErrorCode.BAD_OPTIONS, 500, `genesisAgeMs must be at least ${MIN_GENESIS_AGE_MS}`);
    }
    const era = config.ledger ?? DEFAULT_ERA;
    const switchAt = config.ledger9AtHeight ?? 0;
    if (!Number.isSafeInteger(switchAt) || switchAt < 0)
      throw new DevnetError(DevnetErrorCode.BAD_OPTIONS, 500, 'ledger9AtHeight must be a non-negative integer');
    if (era === SWITCH_TO && switchAt > 0)
      throw new DevnetError(DevnetErrorCode.BAD_OPTIONS, 500, 'ledger9AtHeight needs ledger 8: a ledger-9 network runs ledger 9 from genesis');
    this.#config = config;
    this.#now = config.now ?? Date.now;
    this.#log = log;
    this.#persistence = config.stateDir ? new NetworkPersistence(config.stateDir) : undefined;
    this.#store = new IndexerStore({
      retainBlocks: config.retainBlocks ?? DEFAULT_RETAIN_BLOCKS,
      ...(this.#persistence ? { archive: this.#persistence } : {}),
    });
    this.#faucetQueue = new FaucetQueue(config.name, log);
    this.#world = createWorld(era, this.#settings(), undefined, prover);
    this.#ledger9From = era === SWITCH_TO ? 0 : undefined;
    this.#http = new DevnetHttpServer(this, schema, log, {
      ...(config.projectId ? { projectId: config.projectId } : {}),
      rpcOnly: config.profile === 'public',
    });
  }

  #settings(): Parameters<typeof createWorld>[1] {
    const { name, networkId, seed, sponsorWallets } = this.#config;
    return { name, networkId, seed, sponsorWallets, store: this.#store, log: this.#log };
  }

  /** The height configured for the switch to ledger 9 (0: none). */
  get #plannedSwitch(): number {
    return this.#config.ledger === SWITCH_FROM ? (this.#config.ledger9AtHeight ?? 0) : 0;
  }

  /** The era the network runs now. */
  get era(): Era {
    return this.#world.kit.era;
  }

  get info(): NetworkInfo {
    if (!this.#info) throw new Error('network not started');
    return this.#info;
  }

  get store(): IndexerStore {
    return this.#store;
  }

  get height(): number {
    return this.#world.chain.height;
  }

  #fingerprint(): string {
    return sha256Hex(this.#config.seed, ...this.#world.actors.sponsors.map((s) => s.dustPublicKey.toString(16)));
  }

  async start(): Promise<NetworkInfo> {
    const saved = this.#persistence?.load(this.#config.networkId, this.#fingerprint(), (bundle) => this.#store.append(bundle));
    if (saved) this.#resume(saved);
    else await this.#genesis();
    const startEra = this.era;
    // Live production starts after the newest block (a new genesis' head block is the setup's last).
    this.#store.liveSinceMs = this.#nextBlockTime();
    const base = await this.#http.listen(this.#config.port);
    this.#info = {
      name: this.#config.name,
      networkId: this.#config.networkId,
      graphqlUrl: `${base}${GRAPHQL_PATH}`,
      graphqlWsUrl: `${base.replace('http:', 'ws:')}${GRAPHQL_WS_PATH}`,
      nodeRpcUrl: `${base}${RPC_PATH}`,
      nodeRpcWsUrl: `${base.replace('http:', 'ws:')}${RPC_PATH}`,
      submitUrl: `${base}${SUBMIT_PATH}`,
      faucetUrl: `${base}${FAUCET_PATH}`,
      profile: this.#config.profile ?? 'default',
      ledger: startEra,
      ledger9AtHeight: this.#ledger9From ?? (this.#plannedSwitch || null),
    };
    this.#log.info(
      {
        network: this.#config.name,
        height: this.height,
        ledger: startEra,
        ledger9AtHeight: this.#info.ledger9AtHeight,
        resumed: saved !== undefined,
        url: base,
      },
      'devnet network up',
    );
    return this.#info;
  }

  /**
   * Starts the block schedule (not with blockTimeMs 0). Separate from `start` so a worker hosting
   * several networks makes every genesis before any of them competes for the thread with blocks.
   */
  run(): void {
    if (this.#config.blockTimeMs <= 0 || this.#closed || this.#timer) return;
    this.#nextDue = this.#now() + this.#config.blockTimeMs;
    this.#schedule();
  }

  /** Resumes the saved era: a saved ledger-8 chain may still switch; a ledger-9 one must be expected. */
  #resume(snapshot: ChainSnapshot): void {
    const era: Era = snapshot.era ?? SWITCH_FROM;
    const configured = this.#config.ledger ?? DEFAULT_ERA;
    if (era !== configured && !(era === SWITCH_TO && this.#plannedSwitch > 0)) {
      throw new DevnetError(
        DevnetErrorCode.STATE_MISMATCH,
        500,
        `${this.#config.stateDir} holds a ${eraName(era)} chain but the network is configured for ${eraName(configured)}` +
          `${configured === SWITCH_FROM ? ' without a switch height' : ''}` +
          `; remove the directory to start a new genesis, or configure ledger 8 (with ledger9AtHeight to switch it)`,
      );
    }
    this.#world = resumeWorld(this.#world, era, snapshot, this.#settings());
    this.#ledger9From = era === SWITCH_TO ? (snapshot.ledger9FromHeight ?? 0) : undefined;
  }

  /**
   * A genesis dated `genesisAgeMs` ago, its setup blocks, then an empty block dated now: a chain
   * that has been running since its genesis has a fresh head, so a client sees it live (not
   * stale) from the first read, before the schedule's first block.
   */
  async #genesis(): Promise<void> {
    await this.#setup(this.#now() - this.#config.genesisAgeMs, REGISTRATION_DELAY_MS, SETUP_BLOCK_MS);
    const { chain, kit } = this.#world;
    this.#commit(chain.produce([], this.#nextBlockTime(), kit.fullChecks()));
  }

  /** The earliest time a next block may carry: `now`, or just after the newest block. */
  #nextBlockTime(now = this.#now()): number {
    return Math.max(now, (this.#world.chain.timestampMs ?? 0) + 1);
  }

  /**
   * Mints the genesis accounts in one block at `t0` and registers their NIGHT for DUST in the
   * blocks after it; answers the last block's record.
   */
  async #setup(t0: number, registrationDelayMs: number, blockMs: number): Promise<BlockRecord> {
    const { chain, actors, prover, kit } = this.#world;
    const { networkId, seed } = this.#config;
    let record = this.#commit(chain.produce(genesisCandidates(chain, actors, networkId, seed, t0), t0, kit.genesisChecks()));
    let time = t0 + registrationDelayMs;
    let queue = await registrationCandidates(chain.state, actors, networkId, prover, time);
    while (queue.length > 0) {
      const block = chain.produce(queue, time, kit.fullChecks());
      for (const { candidate, reason } of block.rejected) this.#log.error({ hash: candidate.hash, reason }, 'genesis registration rejected');
      record = this.#commit(block);
      queue = block.deferred;
      time += blockMs;
    }
    return record;
  }

  #commit(block: ProducedBlock): BlockRecord {
    const { chain, actors, indexer, kit } = this.#world;
    const { bundle, dustEvents, zswapEvents } = indexer.index(block, chain.state);
    if (this.#retiring.length > 0) {
      retireUtxos(bundle, this.#retiring);
      this.#retiring = [];
    }
    actors.dust.replay(dustEvents);
    for (const wallet of actors.shielded) wallet.replay(zswapEvents);
    if (this.#persistence) {
      this.#persistence.appendBlock(bundle, this.#store.nextIds());
      this.#persistence.saveSnapshot({
        format: SNAPSHOT_FORMAT,
        networkId: this.#config.networkId,
        genesisFingerprint: this.#fingerprint(),
        era: kit.era,
        ...(this.#ledger9From !== undefined ? { ledger9FromHeight: this.#ledger9From } : {}),
        ...worldSnapshot(this.#world, block.timestampMs),
      });
    }
    this.#store.append(bundle);
    // Indexed, replayed and saved: free the block's ledger objects now (ledger-kit.ts, `release`).
    release(...block.retired, ...block.applied.map((a) => a.candidate.tx), ...block.rejected.map((r) => r.candidate.tx));
    return bundle.block;
  }

  #schedule(): void {
    if (this.#closed) return;
    this.#timer = setTimeout(
      () => {
        const now = this.#now();
        // Keep the cadence; after a stall, restart it from now rather than bursting to catch up.
        this.#nextDue = Math.max(this.#nextDue + this.#config.blockTimeMs, now + 1);
        this.produceBlock()
          .catch((err: unknown) => this.#log.error({ network: this.#config.name, err: reasonOf(err) }, 'block production failed'))
          .finally(() => this.#schedule());
      },
      Math.max(0, this.#nextDue - this.#now()),
    );
  }

  /** Produces the next block now; resolves with its record once it is visible through the API. */
  produceBlock(): Promise<BlockRecord> {
    const run = this.#busy.then(() => this.#produceLive());
    this.#busy = run.catch(() => undefined);
    return run;
  }

  async #produceLive(): Promise<BlockRecord> {
    if (this.#closed) throw new DevnetError(DevnetErrorCode.CLOSED, 503, 'the devnet is closed');
    const started = performance.now();
    const { chain, actors, prover, traffic, kit } = this.#world;
    const timestampMs = this.#nextBlockTime();
    const height = chain.height + 1;
    if (this.#switchDue(height)) return this.#switchToLedger9(timestampMs);
    const time = ledgerDate(timestampMs);
    const state = chain.state;
    const ctx = { kit, networkId: this.#config.networkId, params: state.parameters, time, prover };
    const payouts = await this.#faucetQueue.payouts(actors, state, ctx);
    const own: Candidate[] = payouts.map((p) => p.candidate);
    own.push(...(await traffic.build({ height, state, time, latestContract: this.#latestContract(state) })));
    release(ctx.params);
    // Packing, indexing and replaying the block run in one go, so that the chain state and the
    // indexer change together; requests are served before them (serving-turn.ts).
    await yieldToServing();
    // Taken only now: a submission accepted while the devnet's own transactions were built goes
    // into this block, and until then it is in `#pending` for the duplicate check of `submit`.
    const submitted = this.#pending.splice(0);
    const block = chain.produce([...submitted, ...own], timestampMs, kit.fullChecks());
    this.#faucetQueue.settle(block, payouts);
    this.#pending.unshift(...block.deferred.filter((c) => c.origin === 'submitted'));
    // The devnet's own transactions are built afresh for the next block.
    release(...block.deferred.filter((c) => c.origin !== 'submitted').map((c) => c.tx));
    for (const { candidate, reason } of block.rejected) {
      this.#log.warn({ network: this.#config.name, origin: candidate.origin, hash: candidate.hash, reason }, 'transaction dropped at block time');
    }
    const record = this.#commit(block);
    this.#log.debug(
      { network: this.#config.name, height: record.height, transactions: record.transactionIds.length, ms: Math.round(performance.now() - started) },
      'block produced',
    );
    return record;
  }

  /** The latest deployed contract when the current state holds it (not a ledger-8 one after the switch). */
  #latestContract(state: L.LedgerState): string | undefined {
    const address = this.#store.latestDeploy;
    if (address === undefined) return undefined;
    const contract = state.index(address);
    release(contract);
    return contract ? address : undefined;
  }

  #switchDue(height: number): boolean {
    return this.era === SWITCH_FROM && this.#plannedSwitch > 0 && height >= this.#plannedSwitch;
  }

  /**
   * Starts ledger 9 at the next height from a fresh state (ledger-switch.ts): its genesis block and
   * setup blocks are produced together; answers the last one. Ledger-8 submissions still waiting
   * are dropped: no ledger-9 block can hold them.
   */
  async #switchToLedger9(timestampMs: number): Promise<BlockRecord> {
    const previous = this.#world;
    const { height, hash, timestampMs: parentMs } = previous.chain;
    const dropped = this.#pending.splice(0);
    release(...dropped.map((c) => c.tx));
    this.#world = createWorld(9, this.#settings(), { height, hash, timestampMs: parentMs ?? timestampMs });
    retireWorld(previous);
    this.#ledger9From = height + 1;
    this.#retiring = this.#store.unspentUtxoKeys();
    this.#log.info(
      { network: this.#config.name, height: this.#ledger9From, droppedSubmissions: dropped.length, retiredUtxos: this.#retiring.length },
      'devnet switched to ledger 9 from a fresh state',
    );
    return this.#setup(timestampMs, SWITCH_SETUP_BLOCK_MS, SWITCH_SETUP_BLOCK_MS);
  }

  context(): GraphQLContext & EraContext {
    const { kit } = this.#world;
    return {
      store: this.#store,
      networkId: this.#config.networkId,
      now: this.#now,
      zswapState: () => this.#world.chain.state.zswap,
      era: kit.era,
      ledger: kit.L,
      protocolVersion: kit.protocolVersion,
    };
  }

  /** Checks a finalized transaction against the current state and queues it for the next block. */
  submit(bytes: Uint8Array): { accepted: true; hash: string; identifiers: string[]; expectedHeight: number } {
    const { chain, kit } = this.#world;
    const tx = decodeFinalized(kit, bytes, switchNote(this.#ledger9From, this.#plannedSwitch));
    const candidate: Candidate = { ...candidateOf(tx, 'submitted'), raw: bytes };
    if (this.#pending.some((c) => c.hash === candidate.hash) || this.#store.transactionsByHash(candidate.hash).length > 0) {
      throw new DevnetError(DevnetErrorCode.TX_DUPLICATE, 409, `transaction ${candidate.hash} was already submitted`);
    }
    const now = this.#now();
    try {
      chain.validate(tx, this.#nextBlockTime(now), kit.fullChecks());
      mempoolCheck(chain, tx, now);
    } catch (err) {
      throw rejection(err);
    }
    this.#pending.push(candidate);
    return { accepted: true, hash: candidate.hash, identifiers: tx.identifiers(), expectedHeight: chain.height + 1 };
  }

  faucet(body: unknown): { accepted: true; address: string; amount: string; queued: number } {
    return this.#faucetQueue.add(body);
  }

  health(): object {
    const latest = this.#store.latestBlock;
    return {
      status: 'ok',
      source: 'embedded-devnet',
      network: this.#config.name,
      networkId: this.#config.networkId,
      height: latest?.height ?? null,
      latestBlockTimestamp: latest?.timestamp ?? null,
      ledger: ledgerReport(this.#world.kit, this.#ledger9From, this.#plannedSwitch),
      checks: LIVE_CHECKS_REPORT,
      pendingTransactions: this.#pending.length,
      pendingFaucetRequests: this.#faucetQueue.length,
      retainedBlocks: this.#store.retainBlocks,
      oldestRetainedHeight: this.#store.oldestRetainedHeight,
      olderBlocks: this.#store.hasArchive ? 'served from the state directory' : 'pruned',
    };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#timer);
    await this.#busy;
    this.#store.close();
    await this.#http.close();
    this.#persistence?.close();
  }
}
