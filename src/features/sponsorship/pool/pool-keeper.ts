/**
 * A pool that grows with demand (docs/sponsorship.md, "A pool that grows with demand"). A DUST UTXO pays
 * one sponsored transaction per block at best, so sustained throughput is the number of UTXOs over
 * the time one takes to come back (inclusion, then the sync of that block). Per network the keeper
 * keeps up to `dust.targetUtxos` DUST UTXOs: after each synced block, if the wallets hold fewer and
 * fewer than half of them are free (demand), it splits the wallets' NIGHT — each split spends one NIGHT UTXO of a server wallet into
 * SPLIT_OUTPUTS UTXOs back to the same registered address, each generating DUST of its own — the
 * way bundlers refill their executor wallets from a utility wallet.
 *
 * Safety: splits are ordinary transactions sponsored through the ordinary path (checked, fee from
 * a reserved UTXO, never a reserved one), counted as the key `nightgate-pool` whose share of the
 * pool bounds the splits in flight. A NIGHT UTXO being split is not offered again until its
 * split's fee intent has expired; with `dust.stateDir` those NIGHT UTXOs are journaled
 * (write, fsync, rename), so a restart does not build a second split of the same UTXO — which the
 * chain would refuse anyway, at the cost of a wasted reservation.
 *
 * Where: networks nightgate can submit to (src/infra/node/submitter.ts): the node RPC of the
 * network (`networks.<n>.nodeRpc`, or the embedded devnet's own). Without one the keeper reports
 * itself unavailable and the operator grows the pool with a wallet.
 */
import { join } from 'node:path';
import { SplitJournal } from './split-journal.js';
import { KEEPER_FAILURE_REASONS, SplitRefused, failureReason, type KeeperFailureReason } from './keeper-failures.js';
import type { Logger } from 'pino';
import type { Clock } from '../../../core/clock.js';
import type { NetworkName } from '../../../core/config/index.js';
import type { WorkerPoolComponent } from '../../../infra/pool/worker-pool.js';
import type { Era } from '../../../infra/ledger/index.js';
import { readNightUtxos } from '../wallets/night-utxos.js';
import type { NightUtxo, WalletAddress } from '../common/pool-task.js';
import { KEEPER_RESERVE, POOL_KEY_ID, RESERVE_FLOOR_FEES } from '../common/pool-constants.js';
import { feeToTableUnits } from '../wallets/wallet-state.js';
import type { SponsoredNetwork } from '../common/sponsored-network.js';
import type { Metrics } from '../../../infra/metrics/metrics.js';
import type { UpstreamCredentials } from '../../../core/config/index.js';
import type { Submitter } from '../../../infra/node/submitter.js';
import type { WalletBook } from '../wallets/wallet-book.js';
import type { KeeperState, PoolStatus } from './pool-status.js';

/** DUST-generating outputs per split: the ledger allows about three per transaction (LEDGER.md). */
export const SPLIT_OUTPUTS = 3;
/** A NIGHT UTXO smaller than this (STAR) is not split: its shares would generate too little DUST to pay fees soon. */
const MIN_SPLIT_STAR = 3_000n * 1_000_000n;
/** How long a split's intent may wait to land (its fee intent has the ordinary, shorter TTL). */
const SPLIT_TTL_MS = 10 * 60_000;

/** Free DUST UTXOs below which the keeper grows the pool: half of those held. */
export function lowWater(live: number): number {
  return Math.ceil(live / 2);
}

/** What the keeper needs of the sponsorship service (sponsorship.ts): its splits are sponsored like any request. */
interface KeeperSponsor {
  /** The era the network's wallets are synced in, if known. */
  eraOf(name: NetworkName): Era | undefined;
  /** Reservations a key holds on the network. */
  held(name: NetworkName, keyId: string): number;
  /** Sponsors one of the server's own transactions (a split) through the ordinary path. */
  sponsorOwn(
    name: NetworkName,
    body: Buffer,
    signal: AbortSignal,
  ): Promise<{ tx: Buffer; txHash: string; expiresAt: number; fee: string; dustUtxo: { wallet: number; slot: number } }>;
}

export interface PoolKeeperOptions {
  net: SponsoredNetwork;
  target: number;
  /** How the network takes transactions; one that has nowhere to submit leaves the keeper unavailable. */
  submitter: Pick<Submitter, 'submit' | 'unavailable'>;
  indexerWsUrl: string;
  /** What the indexer wants with each request. */
  credentials?: UpstreamCredentials;
  service: KeeperSponsor;
  pool: WorkerPoolComponent;
  clock: Clock;
  logger: Logger;
  /** Splits at once (the pool key's share). */
  maxSplits: number;
  timeoutMs: number;
  /** `dust.stateDir`: NIGHT UTXOs being split survive a restart there. */
  stateDir?: string | undefined;
  /** Splits counted as sponsorships of kind `pool-split`, their fees with the users' (/metrics). */
  metrics?: Metrics | undefined;
  /** Each wallet's addresses, NIGHT and registration, for status (wallet-book.ts). */
  walletBook?: WalletBook;
  /** `dust.growAtStart`: grow to the target from the first synced block, demand or not; not ready until then. */
  growAtStart?: boolean;
}

export class PoolKeeper {
  private state: KeeperState;
  private reason: string | null = null;
  private addresses: { nightToken: string; wallets: WalletAddress[] } | undefined;
  /** `${intentHash}#${outputIndex}` → until when (ms) it is not offered again. */
  private readonly pending = new Map<string, number>();
  private readonly journal: SplitJournal;
  private running: Promise<void> | undefined;
  /**
   * Set when demand starts a round, cleared at the target: growth that demand started runs to the
   * target though the demand falls meanwhile (a burst that drained the pool comes back; a pool
   * that stops halfway would be drained again by the next one).
   */
  private growing = false;
  /** `growAtStart` and the target not reached yet (nor out of NIGHT to split): /readyz says so. */
  private filling = false;
  /** When each split of the last rounds was submitted (ms). */
  private recent: number[] = [];
  private submitted = 0;
  private failed = 0;
  private readonly failures = Object.fromEntries(KEEPER_FAILURE_REASONS.map((r) => [r, 0])) as Record<KeeperFailureReason, number>;
  private consecutive = 0;
  /** Why the last failed round failed; undefined once a round works. */
  private lastFailure: KeeperFailureReason | undefined;
  private lastRoundAt: number | undefined;
  private closed = false;
  private readonly abort = new AbortController();

  constructor(private readonly opts: PoolKeeperOptions) {
    const unavailable = opts.submitter.unavailable;
    this.state = unavailable === undefined ? 'idle' : 'unavailable';
    if (unavailable !== undefined) this.reason = `${unavailable}, or grow the pool by splitting the wallets' NIGHT with a wallet`;
    else if (opts.target === 0) this.reason = 'dust.targetUtxos is 0';
    this.growing = this.filling = opts.growAtStart === true && unavailable === undefined && opts.target > 0;
    this.journal = new SplitJournal(opts.stateDir ? join(opts.stateDir, this.network) : undefined);
    this.journal.load(this.pending, opts.clock.now());
  }

  get network(): NetworkName {
    return this.opts.net.name;
  }

  /**
   * After each synced block: starts a round when the pool, counting the splits submitted within
   * the last two blocks (they land in the next block and are synced after it), is below target
   * and either fewer than half of its UTXOs are free or an earlier shortage started a growth that
   * has not reached the target yet.
   */
  poke(): void {
    if (this.closed || this.running || this.state === 'unavailable' || this.opts.target === 0) return;
    const now = this.opts.clock.now();
    for (const [utxo, until] of this.pending) if (until <= now) this.pending.delete(utxo);
    this.recent = this.recent.filter((at) => at > now - 2 * this.opts.net.blockTimeMs);
    const { free, reserved } = this.opts.net.table.counts();
    const live = free + reserved;
    const missing = this.opts.target - live - SPLIT_OUTPUTS * this.recent.length;
    // Grows with demand: only once free capacity has run low, so an idle server leaves its NIGHT be.
    // A pool no larger than the keeper's reserve serves no user at all (a wallet just registered):
    // that is demand too.
    if (missing <= 0 && live >= this.opts.target) this.growing = this.filling = false;
    else if (missing > 0 && (free < lowWater(live) || free <= KEEPER_RESERVE)) this.growing = true;
    if (missing <= 0 || !this.growing) {
      this.state = this.recent.length > 0 ? 'waiting' : 'idle';
      if (this.state === 'idle') this.reason = null;
      return;
    }
    this.running = this.round(missing)
      .catch((err: unknown) => {
        this.state = 'failing';
        this.reason = (err as Error).message;
        this.roundFailed(failureReason(err), this.reason);
      })
      .finally(() => {
        this.running = undefined;
      });
  }

  /**
   * True while the pool is below target and the keeper can grow it: the last KEEPER_RESERVE free
   * UTXOs are then the keeper's. Not while its last round failed for a reason the reserve cannot
   * cure (no NIGHT left to split, the indexer unreachable, splits refused): users keep every UTXO
   * until a round works again. A round that failed for want of a free DUST UTXO keeps it: that
   * is the failure the reserve exists for, and dropping it then would hand the freed UTXOs back to
   * the demand that took them. `live`: the UTXOs held, when the caller has just counted them (the
   * count scans the table).
   */
  wantsReserve(live: number = this.live()): boolean {
    const failing = this.state === 'failing' && this.lastFailure !== 'no-dust';
    return this.state !== 'unavailable' && !failing && this.opts.target > 0 && live < this.opts.target;
  }

  /** Each wallet's addresses, NIGHT and registration as last read (wallet-book.ts). */
  wallets(): ReturnType<WalletBook['wallets']> {
    return this.opts.walletBook?.wallets() ?? { wallets: [], readAt: null, error: null };
  }

  /** Resolves when the round under way (if any) has ended (tests). */
  async settled(): Promise<void> {
    await this.running;
  }

  private live(): number {
    const c = this.opts.net.table.counts();
    return c.free + c.reserved;
  }

  private async round(missing: number): Promise<void> {
    const { net, pool } = this.opts;
    // The splits are built in the era the wallets are synced in; none while it is not known.
    const era = this.opts.service.eraOf(this.network);
    if (era === undefined) return;
    this.state = 'splitting';
    this.lastRoundAt = this.opts.clock.now();
    this.addresses ??= await pool.run(
      'poolAddresses',
      { args: { era, networkId: net.networkId, seeds: [...net.seeds] } },
      { signal: this.abort.signal, work: "deriving the server wallets' NIGHT addresses" },
    );
    const { nightToken, wallets } = this.addresses;
    const candidates: Array<{ wallet: number; utxo: NightUtxo }[]> = [];
    for (const [wallet, address] of wallets.entries()) {
      const utxos = await readNightUtxos(this.opts.indexerWsUrl, address.bech32, nightToken, this.opts.timeoutMs, this.opts.credentials);
      // Splits of a wallet whose key is not registered would generate no DUST; once it is, every
      // split output does, those of NIGHT held from before the registration too.
      const keyRegistered = utxos.some((u) => u.registered !== false);
      candidates.push(
        utxos
          .filter((u) => keyRegistered && BigInt(u.value) >= MIN_SPLIT_STAR && !this.pending.has(`${u.intentHash}#${u.outputIndex}`))
          .sort((a, b) => (BigInt(b.value) > BigInt(a.value) ? 1 : BigInt(b.value) < BigInt(a.value) ? -1 : 0))
          .map((utxo) => ({ wallet, utxo })),
      );
    }
    // Largest UTXOs first, taken round robin over the wallets so each wallet's pool grows.
    // Within the pool key's share, less what its splits still hold (unlanded splits of full blocks).
    const splitsHeld = this.opts.service.held(this.network, POOL_KEY_ID);
    const room = this.opts.maxSplits - splitsHeld;
    // Each split pays its fee from a free DUST UTXO worth the reserve's floor: no more splits than
    // there are. While requests hold UTXOs they are reserving more, and only the last
    // KEEPER_RESERVE of those are kept from them: a round counting on more would lose the rest to
    // them (measured: 2 of 10 splits refused NO_DUST_AVAILABLE while a burst took the pool).
    const free = net.table.freeTokens();
    const contested = net.table.counts().reserved > splitsHeld;
    const payable = contested ? Math.min(free, KEEPER_RESERVE) : free;
    const wanted = Math.min(Math.ceil(missing / SPLIT_OUTPUTS), room, payable);
    if (payable === 0 && room > 0) {
      this.state = 'failing';
      this.reason = "no free DUST UTXO to pay a split's fee; retrying after the next block";
      this.roundFailed('no-dust', this.reason);
      return;
    }
    if (wanted <= 0) {
      this.state = 'waiting';
      return;
    }
    const splits: Array<{ wallet: number; utxo: NightUtxo }> = [];
    for (let i = 0; splits.length < wanted && candidates.some((c) => c.length > i); i++) {
      for (const c of candidates) if (c[i] && splits.length < wanted) splits.push(c[i]!);
    }
    if (splits.length === 0) {
      this.state = 'failing';
      this.reason =
        `no registered NIGHT UTXO of at least ${MIN_SPLIT_STAR / 1_000_000n}` +
        ` NIGHT left to split: fund the wallets' NIGHT addresses and register them (nightgate wallet register)`;
      this.roundFailed('no-night', this.reason);
      return;
    }
    const now = this.opts.clock.now();
    const bodies = await pool.run(
      'poolSplit',
      { args: { era, networkId: net.networkId, seeds: [...net.seeds], splits, outputs: SPLIT_OUTPUTS, ttl: now + SPLIT_TTL_MS } },
      { signal: this.abort.signal, work: 'building the pool splits' },
    );
    const results = await Promise.allSettled(bodies.map((body, i) => this.submitOne(Buffer.from(body), splits[i]!.utxo)));
    const failures = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    this.failed += failures.length;
    if (failures.length > 0) this.journal.save(this.pending);
    const landed = results.length - failures.length;
    this.opts.logger.info(
      {
        network: this.network,
        target: this.opts.target,
        live: this.live(),
        splits: landed,
        failed: failures.length,
        firstError: failures[0] ? String((failures[0].reason as Error).message) : undefined,
      },
      'growing the DUST pool: NIGHT split into more DUST-generating UTXOs',
    );
    this.state = landed > 0 ? 'waiting' : 'failing';
    this.reason = failures.length > 0 ? String((failures[0]!.reason as Error).message) : null;
    for (const f of failures.slice(1)) this.failures[failureReason(f.reason)]++;
    if (landed === 0) this.roundFailed(failureReason(failures[0]?.reason), this.reason ?? 'no split built');
    else {
      if (failures[0]) this.failures[failureReason(failures[0].reason)]++;
      if (this.consecutive > 0) this.opts.logger.info({ network: this.network, after: this.consecutive }, 'the DUST pool keeper works again');
      this.consecutive = 0;
      this.lastFailure = undefined;
    }
  }

  /**
   * A round failed: counted by reason (/metrics), and a warning. The warning is logged for the
   * first failure of a run, when the reason changes, and at the 2nd, 4th, 8th… in a row: a keeper
   * that fails at every block (one round per block) logs a few lines an hour, not one a block.
   */
  private roundFailed(reason: KeeperFailureReason, message: string): void {
    // Nothing left to split: the pool will not reach its target, and waiting for it would never end.
    if (reason === 'no-night') this.filling = false;
    this.failures[reason]++;
    this.consecutive++;
    const changed = reason !== this.lastFailure;
    this.lastFailure = reason;
    if (changed || (this.consecutive & (this.consecutive - 1)) === 0) {
      this.opts.logger.warn(
        {
          network: this.network,
          code: 'POOL_SPLIT_FAILED',
          reason,
          consecutiveFailures: this.consecutive,
          err: message,
          live: this.live(),
          target: this.opts.target,
          free: this.opts.net.table.freeTokens(),
        },
        'growing the DUST pool failed; retrying after the next block',
      );
    }
  }

  private async submitOne(body: Buffer, utxo: NightUtxo): Promise<void> {
    const answer = await this.opts.service.sponsorOwn(this.network, body, this.abort.signal);
    // The server's own fee is DUST spent too: counted and audited like a user's.
    this.opts.metrics?.sponsorships.inc({ network: this.network, kind: 'pool-split', outcome: 'sponsored' });
    if (/^\d+$/.test(answer.fee ?? '')) {
      this.opts.metrics?.sponsorshipFees.inc({ network: this.network }, Number(answer.fee));
      // The reserve holds UTXOs that can pay the next splits, not any UTXO: decayed ones below
      // the floor are left to requests (allocator.ts, `setReserveFloor`).
      this.opts.net.table.setReserveFloor(feeToTableUnits(BigInt(answer.fee)) * RESERVE_FLOOR_FEES);
    }
    this.opts.logger.info(
      {
        audit: 'sponsorship',
        keyId: POOL_KEY_ID,
        kind: 'pool-split',
        network: this.network,
        outcome: 'sponsored',
        txHash: answer.txHash,
        fee: answer.fee,
        feeUnit: 'SPECK',
        dustUtxo: answer.dustUtxo,
      },
      'sponsorship',
    );
    // Journaled before it leaves: not offered again until the split's fee intent has expired,
    // plus a block to land in.
    const id = `${utxo.intentHash}#${utxo.outputIndex}`;
    this.pending.set(id, answer.expiresAt + this.opts.net.blockTimeMs);
    this.journal.save(this.pending);
    try {
      await this.opts.submitter.submit(answer.tx);
    } catch (err) {
      this.pending.delete(id);
      throw new SplitRefused(`the network refused a pool split: ${(err as Error).message.slice(0, 300)}`);
    }
    this.submitted++;
    this.recent.push(this.opts.clock.now());
  }

  status(): PoolStatus {
    const live = this.live();
    return {
      target: this.opts.target,
      live,
      filling: this.filling,
      maintenance: {
        state: this.state,
        reason: this.reason,
        pendingSplits: this.pending.size,
        splitsSubmitted: this.submitted,
        splitsFailed: this.failed,
        lastRoundAt: this.lastRoundAt === undefined ? null : new Date(this.lastRoundAt).toISOString(),
      },
      sustainableTxPerSecond: Math.round((live / ((2 * this.opts.net.blockTimeMs) / 1000)) * 100) / 100,
    };
  }

  /** For /metrics: failures since start by reason (each failed split, each round failed before splitting), and rounds failed in a row. */
  failureCounts(): { byReason: Record<KeeperFailureReason, number>; consecutive: number } {
    return { byReason: { ...this.failures }, consecutive: this.consecutive };
  }

  close(): void {
    this.opts.walletBook?.close();
    this.closed = true;
    this.abort.abort();
  }
}
