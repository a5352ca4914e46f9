/**
 * The sponsorship service (main thread): per network, the shared allocator table, the wallet
 * snapshot, the reclaim timers; per request, dedupe, policy and one `balance` task.
 *
 * A request's life: syncing? → 503. Same bytes answered within the dedupe window? → the same
 * answer, no second reservation. Otherwise a worker reserves a UTXO, builds and proves; the main
 * thread then charges the key's budget (a lost race refunds nothing and releases the UTXO) and
 * starts the 5-minute reclaim timer. A task that ends without an answer (client abort, worker
 * crash, error) has its reservation released at once through the in-flight registry.
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { NetworkName } from '../config.js';
import { GatewayError, isGatewayError } from '../errors.js';
import type { AuthenticatedKey } from '../pipeline/auth.js';
import type { WorkerPoolComponent } from '../prover/worker-pool.js';
import type { ProverBackend } from '../prover/backend.js';
import { provingPort } from '../prover/proving-port.js';
import { ResultCache } from '../prover/result-cache.js';
import { SingleFlight } from '../single-flight.js';
import { DustAllocatorTable } from './allocator.js';
import type { BalanceArgs, ProvingTarget, SponsorKind } from './balance-task.js';
import { SponsorshipPolicy, type BudgetCharge } from './budget.js';
import { InFlightReservations } from './in-flight.js';
import type { ReservationJournal } from './reservation-journal.js';
import { reclaimAt, ReservationReclaimer } from './reservations.js';
import { sponsorTaskPort, type InputChecker } from './input-check.js';
import { KeyHealth } from './key-health.js';
import { SharedSnapshot } from './shared-snapshot.js';
import type { DustSyncHost } from './sync-host.js';
import { KEEPER_RESERVE, type PoolKeeper } from './pool-keeper.js';
import { startTimerWheel, TimerWheel, type TimerWheelDriver } from './timer-wheel.js';
import { eraName, type Era } from '../infra/ledger/era.js';
import { expectEra } from './transaction-tag.js';
import type { SponsorshipSharing } from '../state/sponsorship.js';

export interface SponsoredNetwork {
  name: NetworkName;
  networkId: string;
  seeds: readonly string[];
  table: DustAllocatorTable;
  snapshot: SharedSnapshot;
  prover: ProvingTarget;
  /** The main-thread backend, for upstream and native (the worker proves through a port to it). */
  backend: ProverBackend;
  /** The chain's block time: the unit of the fee margin (src/dust/fee-margin.ts). */
  blockTimeMs: number;
}

export interface SponsorshipOptions {
  networks: readonly SponsoredNetwork[];
  pool: WorkerPoolComponent;
  sync: DustSyncHost;
  policy: SponsorshipPolicy;
  clock: Clock;
  logger: Logger;
  margin: number;
  reservationTtlMs: number;
  ttlSafetyMs: number;
  /** Life of a fee intent (`dust.feeTtlMs`); 0: FEE_TTL_BLOCKS of the network. */
  feeTtlMs: number;
  /** UTXOs one key may hold reserved at once per network (`dust.maxReservationsPerKey`). */
  maxReservationsPerKey: number;
  dedupeWindowMs: number;
  /** Concurrent balancing tasks tracked in the in-flight registry (beyond: 503 QUEUE_FULL). */
  maxInFlight: number;
  /** Answered reservations are written here and restored after a restart (`dust.stateDir`). */
  journal?: ReservationJournal;
  /** Several instances (`state.redisUrl`): dedupe, the per-key share and the wallet leases over all of them (src/state/sponsorship.ts). */
  sharing?: SponsorshipSharing;
  /** Checks a transaction's unshielded inputs against the chain before anything is reserved (input-check.ts); absent: not checked. */
  inputs?: InputChecker;
  /** An answer's reservation is released this long after its fee intent's TTL once the chain is past it (`dust.expiryMarginMs`). */
  expiryMarginMs?: number;
  /** Per-key throttle of answers that expire unlanded (key-health.ts): `dust.throttleSlack`, `dust.keyHealthWindowMs`. */
  throttleSlack?: number;
  keyHealthWindowMs?: number;
}

export const POOL_KEY_ID = 'nightgate-pool';
const POOL_FEE_CAP_FACTOR = 10n;
/** The server's own key for its pool maintenance: POOL_FEE_CAP_FACTOR × the fee cap, a budget that never binds. */
const POOL_KEY: AuthenticatedKey = { id: POOL_KEY_ID, source: 'generated', dustBudget: 10n ** 40n };

/**
 * A fee intent's life when `dust.feeTtlMs` is 0: 30 s at Midnight's 6 s blocks. The fee must hold
 * at the prices of every block until then, and a run of blocks full in bytes churned raises a
 * transfer's price about ×1.108 a block: 10 blocks cost ≈ 3× the tip's fee in margin, 5 blocks
 * ≈ 1.8×. A wallet submits what it is answered within a second or two.
 */
export const FEE_TTL_BLOCKS = 5;

/**
 * How long, in blocks, a request waits for the wallets when they are syncing because the chain
 * just changed era (they are ready once the new era's first events and parameters are read).
 */
const SWITCH_WAIT_BLOCKS = 2;

/** How long after a cut-short task its reservations are looked for again: its thread has surely ended by then. */
const UNRECORDED_RECHECK_MS = 2_000;

/** What one key holds on one network: tasks running, and answered reservations not yet settled. */
interface KeyHold {
  computing: number;
  answered: Array<{ slot: number; generation: number; member?: string | undefined }>;
}

export interface SponsorAnswer {
  /** The JSON body, pre-serialized (the same bytes for a deduplicated repeat). */
  body: string;
  deduplicated: boolean;
}

function reservationLimit(net: SponsoredNetwork, cap: number): GatewayError {
  return new GatewayError('RESERVATION_LIMIT', `this key holds ${cap} DUST UTXO(s) of ${net.name} reserved, its share of the pool; one is freed when its transaction lands or its reservation expires`, {
    headers: { 'Retry-After': String(Math.max(1, Math.ceil(net.blockTimeMs / 1000))) },
  });
}

function eraChanged(from: Era, to: Era): GatewayError {
  return new GatewayError('LEDGER_ERA_CHANGED', `the network changed from ${eraName(from)} to ${eraName(to)} during this request; nothing stays reserved: rebuild the transaction for ${eraName(to)}`);
}

export class SponsorshipService {
  private readonly byName = new Map<NetworkName, SponsoredNetwork>();
  private readonly reclaimers = new Map<NetworkName, ReservationReclaimer>();
  private readonly wheel: TimerWheel;
  private readonly driver: TimerWheelDriver;
  private readonly inFlight: InFlightReservations;
  private readonly flights = new SingleFlight<string>();
  private readonly answers: ResultCache;
  /** Per network, the keeper that grows its pool (src/dust/pool-keeper.ts). */
  private readonly keepers = new Map<NetworkName, PoolKeeper>();
  /** `${network}|${keyId}` → what the key holds there (the per-key share of the pool, issue 17). */
  private readonly holds = new Map<string, KeyHold>();
  private sponsored = 0;
  private failed = 0;
  /** The last reservation deadline handed to a task: each task gets a later one (see `nextReclaimAt`). */
  private lastReclaimAt = 0;
  /** Per key and network: answers landed and expired unlanded, and the share of the pool that earns. */
  readonly health: KeyHealth;

  constructor(private readonly opts: SponsorshipOptions) {
    this.wheel = new TimerWheel({ clock: opts.clock });
    this.driver = startTimerWheel(this.wheel);
    this.inFlight = InFlightReservations.create(opts.maxInFlight);
    this.answers = new ResultCache(opts.clock, opts.dedupeWindowMs, 32 * 1024 * 1024);
    for (const n of opts.networks) {
      this.byName.set(n.name, n);
      this.reclaimers.set(n.name, new ReservationReclaimer(n.table, this.wheel, {
        reservationTtlMs: opts.reservationTtlMs, expiryMarginMs: opts.expiryMarginMs ?? 10_000, recheckMs: n.blockTimeMs,
        chainPast: (t) => this.chainPast(n, t),
      }));
    }
    this.health = new KeyHealth({ clock: opts.clock, windowMs: opts.keyHealthWindowMs ?? 600_000, slack: opts.throttleSlack ?? 10 });
    if (opts.sharing) {
      // Each synced block may have spent answered reservations: their places in the key's share
      // over all instances are given back then, not only when the key comes back here.
      opts.sync.onStatus((s) => {
        const net = this.byName.get(s.network as NetworkName);
        if (s.phase !== 'synced' || !net) return;
        for (const id of this.holds.keys()) if (id.startsWith(`${net.name}|`)) this.liveHold(net, id.slice(net.name.length + 1));
      });
    }
    const journal = opts.journal;
    if (journal) {
      // Listeners run in the message event that makes the network synced, before any request can
      // see it synced: restored reservations are in the table before the first sponsorship.
      const off = opts.sync.onStatus((s) => {
        const net = this.byName.get(s.network as NetworkName);
        if (s.phase !== 'synced' || !net || journal.pending(net.name).length === 0) return;
        this.restore(net, journal);
        if (opts.networks.every((n) => journal.pending(n.name).length === 0)) off();
      });
    }
  }

  /** Attaches a network's pool keeper: poked after every synced block, shown in status(), closed with the service. */
  addKeeper(keeper: PoolKeeper): void {
    this.keepers.set(keeper.network, keeper);
    this.opts.sync.onStatus((s) => {
      if (s.network === keeper.network && s.phase === 'synced') keeper.poke();
    });
  }

  keeper(name: NetworkName): PoolKeeper | undefined {
    return this.keepers.get(name);
  }

  network(name: NetworkName): SponsoredNetwork | undefined {
    return this.byName.get(name);
  }

  get networks(): readonly SponsoredNetwork[] {
    return [...this.byName.values()];
  }

  /** The era the network's DUST wallets are synced in (what the chain the sync follows runs). */
  eraOf(name: NetworkName): Era | undefined {
    return this.opts.sync.status(name)?.era;
  }

  /**
   * The era the sync has announced through shared memory (at once, before its status message
   * arrives), else the status's: what a finished task is checked against.
   */
  private currentEra(net: SponsoredNetwork): Era | undefined {
    return (net.snapshot.era as Era | undefined) ?? this.eraOf(net.name);
  }

  /**
   * The wallets are not synced. Just after the chain changed era that is only for a moment (until
   * the new era's first events and parameters are read): a body of the old era is refused as such
   * at once (400, nothing reserved) and one of the new era waits for the wallets, at most
   * SWITCH_WAIT_BLOCKS blocks, rather than be refused with a 503. Otherwise: 503 WALLET_SYNCING.
   */
  private async untilSynced(net: SponsoredNetwork, body: Buffer, signal: AbortSignal): Promise<void> {
    const status = this.opts.sync.status(net.name);
    if (status?.era !== undefined && status.eraSwitches > 0 && status.phase === 'syncing') {
      expectEra(body, status.era);
      if (!signal.aborted) await new Promise<void>((resolve) => {
        const done = (): void => {
          off();
          this.wheel.cancel(timer);
          signal.removeEventListener('abort', done);
          resolve();
        };
        const off = this.opts.sync.onStatus((s) => {
          if (s.network === net.name && s.phase !== 'syncing') done();
        });
        const timer = this.wheel.schedule(SWITCH_WAIT_BLOCKS * net.blockTimeMs, done);
        signal.addEventListener('abort', done);
      });
    }
    if (!this.opts.sync.isSynced(net.name) || this.eraOf(net.name) === undefined) throw new GatewayError('WALLET_SYNCING', `the server DUST wallets of ${net.name} are still syncing`, { headers: { 'Retry-After': '30' } });
  }

  async sponsor(kind: SponsorKind, name: NetworkName, key: AuthenticatedKey, body: Buffer, signal: AbortSignal): Promise<SponsorAnswer> {
    const net = this.byName.get(name);
    if (!net) throw new GatewayError('BALANCING_DISABLED', `sponsorship is not configured for ${name} (no server DUST wallets)`);
    if (!this.opts.sync.isSynced(name) || this.eraOf(name) === undefined) await this.untilSynced(net, body, signal);
    const sharing = this.opts.sharing;
    sharing?.admit(name);
    // Per key: each key's budget pays for what it gets, and one key's answer is never another's.
    // Per era: an answer given before the network changed era spends a DUST UTXO of the era it
    // left (marked SPENT since); the same bytes sent after it are answered afresh (refused).
    const dedupeKey = `${key.id}|${kind}|${name}|${this.eraOf(name)}|${createHash('sha256').update(body).digest('hex')}`;
    const cached = this.answers.get(dedupeKey);
    if (cached) return { body: Buffer.from(cached).toString('utf8'), deduplicated: true };
    if (sharing && !this.flights.has(dedupeKey)) {
      const remote = await sharing.lookup(dedupeKey, signal);
      if (remote !== undefined) return { body: remote, deduplicated: true };
    }
    const { shared, result } = this.flights.run(dedupeKey, (s) => this.compute(kind, net, key, body, s, dedupeKey), signal);
    try {
      return { body: await result, deduplicated: shared };
    } catch (err) {
      sharing?.abandoned(dedupeKey);
      throw err;
    }
  }

  /**
   * The key's share of the pool: tasks in flight plus answered reservations still live. Answered
   * ones leave when chain sync marks their UTXO spent or the reclaim frees it (checked lazily here,
   * at most `maxReservationsPerKey` entries).
   */
  private hold(net: SponsoredNetwork, key: AuthenticatedKey): KeyHold {
    let hold = this.liveHold(net, key.id);
    if (!hold) {
      hold = { computing: 0, answered: [] };
      this.holds.set(`${net.name}|${key.id}`, hold);
    }
    const share = this.shareOf(net, key.id);
    if (hold.computing + hold.answered.length >= share.limit) {
      throw share.throttledBy === undefined ? reservationLimit(net, share.limit) : this.throttled(net, share.limit, share.throttledBy);
    }
    hold.computing++;
    return hold;
  }

  /** What the key may hold on the network now: its full share, less while its answers keep expiring unlanded. */
  private shareOf(net: SponsoredNetwork, keyId: string): { limit: number; throttledBy?: number } {
    if (keyId === POOL_KEY_ID) return { limit: this.opts.maxReservationsPerKey };
    return this.health.share(net.name, keyId, this.opts.maxReservationsPerKey);
  }

  private throttled(net: SponsoredNetwork, limit: number, debt: number): GatewayError {
    // Its next place comes back when one of its answers lands or expires: within a fee intent's life.
    const retryS = Math.ceil(((this.opts.feeTtlMs || FEE_TTL_BLOCKS * net.blockTimeMs) + (this.opts.expiryMarginMs ?? 10_000)) / 1000);
    return new GatewayError('RESERVATION_LIMIT', `this key's share of the ${net.name} DUST pool is cut to ${limit} of ${this.opts.maxReservationsPerKey}: about ${Math.round(debt)} more of its recent sponsored transactions expired without landing than landed. Submit what you are answered before its expiresAt; the share grows back as its transactions land`, {
      headers: { 'Retry-After': String(Math.max(1, retryS)) },
    });
  }

  /**
   * Whether a fee intent with TTL `t` can no longer land and, had it landed, the sync would have
   * marked its UTXO spent: the chain's latest block the sync confirmed is after `t`, and the sync
   * is synced and has replayed every event the indexer had.
   */
  private chainPast(net: SponsoredNetwork, t: number): boolean {
    const s = this.opts.sync.status(net.name);
    return s?.phase === 'synced' && s.eventId >= s.maxId && net.snapshot.confirmedAt > t;
  }

  /** DUST UTXOs the key holds on the network now: tasks in flight plus live answered reservations. */
  held(name: NetworkName, keyId: string): number {
    const net = this.byName.get(name);
    const hold = net && this.liveHold(net, keyId);
    return hold ? hold.computing + hold.answered.length : 0;
  }

  /** The key's hold on the network with its settled answers dropped (spent or reclaimed since). */
  private liveHold(net: SponsoredNetwork, keyId: string): KeyHold | undefined {
    const hold = this.holds.get(`${net.name}|${keyId}`);
    if (hold) {
      hold.answered = hold.answered.filter((r) => {
        if (net.table.isLive(r)) return true;
        if (r.member !== undefined) this.opts.sharing?.release(net.name, keyId, r.member);
        return false;
      });
    }
    return hold;
  }

  private unhold(net: SponsoredNetwork, key: AuthenticatedKey, hold: KeyHold): void {
    hold.computing--;
    if (hold.computing === 0 && hold.answered.length === 0) this.holds.delete(`${net.name}|${key.id}`);
  }

  /**
   * Sponsors one of the server's own transactions (the pool keeper's splits) through the same
   * path as a user's: same checks, same reservation and reclaim. It counts as the key
   * POOL_KEY_ID, whose share of the pool (`maxReservationsPerKey`) bounds the splits in flight.
   */
  async sponsorOwn(name: NetworkName, body: Buffer, signal: AbortSignal): Promise<{ tx: Buffer; txHash: string; expiresAt: number; fee: string; dustUtxo: { wallet: number; slot: number } }> {
    const net = this.byName.get(name);
    if (!net) throw new GatewayError('BALANCING_DISABLED', `sponsorship is not configured for ${name}`);
    // Its splits spend the wallets' NIGHT: never from wallets whose lease another instance holds.
    this.opts.sharing?.owns(name);
    const json = JSON.parse(await this.compute('prove-and-balance', net, POOL_KEY, body, signal, undefined)) as { tx: string; txHash: string; expiresAt: string; fee: string; dustUtxo: { wallet: number; slot: number } };
    return { tx: Buffer.from(json.tx, 'hex'), txHash: json.txHash, expiresAt: Date.parse(json.expiresAt), fee: json.fee, dustUtxo: json.dustUtxo };
  }

  private async compute(kind: SponsorKind, net: SponsoredNetwork, key: AuthenticatedKey, body: Buffer, signal: AbortSignal, dedupeKey: string | undefined): Promise<string> {
    const now = this.opts.clock.now();
    // The era the task builds in: the one the network's wallets are synced in as it starts.
    const era = this.eraOf(net.name);
    if (era === undefined) throw new GatewayError('WALLET_SYNCING', `the server DUST wallets of ${net.name} are still syncing`, { headers: { 'Retry-After': '30' } });
    const policy = this.opts.policy;
    const budgetLeft = policy.budgetFor(key) - policy.spent(key.id, now);
    const budgetResetAt = policy.windowEndsAt(now);
    if (budgetLeft <= 0n) throw new GatewayError('DUST_BUDGET_EXCEEDED', `the DUST budget of this key is spent for this window`, { headers: { 'Retry-After': String(Math.max(1, Math.ceil((budgetResetAt - now) / 1000))) } });
    // The last few free UTXOs are the pool keeper's while it grows the pool (pool-keeper.ts). The
    // worker's reservation keeps them, atomically (a count checked here would race the other
    // requests); this check only spares a task when nothing but the reserve is left.
    const keeper = key.id === POOL_KEY_ID ? undefined : this.keepers.get(net.name);
    const keepFree = keeper?.wantsReserve() ? KEEPER_RESERVE : 0;
    if (keepFree > 0 && net.table.freeTokens() <= keepFree) {
      throw new GatewayError('NO_DUST_AVAILABLE', 'the DUST pool is growing: no free UTXO for now; retry after the next block', {
        headers: { 'Retry-After': String(Math.max(1, Math.ceil(net.blockTimeMs / 1000))) },
      });
    }
    const hold = this.hold(net, key);
    const deadline = this.nextReclaimAt(now);
    // The key's share over every instance: a place held until the reservation ends (or its deadline).
    let member: string | undefined;
    if (this.opts.sharing && key.id !== POOL_KEY_ID) {
      const share = this.shareOf(net, key.id);
      const held = await this.opts.sharing.hold(net.name, key.id, share.limit, deadline).catch(() => undefined);
      if (held === false) {
        this.unhold(net, key, hold);
        throw share.throttledBy === undefined ? reservationLimit(net, share.limit) : this.throttled(net, share.limit, share.throttledBy);
      }
      member = held;
    }
    const checked = this.opts.inputs !== undefined && key.id !== POOL_KEY_ID;
    const entry = this.inFlight.acquire();
    if (entry === undefined) {
      this.unhold(net, key, hold);
      if (member !== undefined) this.opts.sharing!.release(net.name, key.id, member);
      throw new GatewayError('QUEUE_FULL', 'too many sponsorships in flight', { headers: { 'Retry-After': '1' } });
    }
    const args: BalanceArgs = {
      sponsor: {
        kind, era, networkId: net.networkId, seeds: [...net.seeds], margin: this.opts.margin,
        // The server's own splits may pay up to POOL_FEE_CAP_FACTOR × the cap: a pool that cannot
        // grow while prices are high would fail the demand that raised them.
        maxFee: (key.id === POOL_KEY_ID ? policy.capFor(key) * POOL_FEE_CAP_FACTOR : policy.capFor(key)).toString(), budgetLeft: budgetLeft.toString(), budgetResetAt, keepFree, now,
        reservationTtlMs: this.opts.reservationTtlMs, ttlSafetyMs: this.opts.ttlSafetyMs, reclaimAt: deadline,
        blockTimeMs: net.blockTimeMs, feeTtlMs: this.opts.feeTtlMs || FEE_TTL_BLOCKS * net.blockTimeMs,
        // The server's own splits spend NIGHT it has just read from the indexer: not checked again.
        checkInputs: checked,
      },
      prover: net.prover,
      inFlightEntry: entry,
    };
    let answered = false;
    const proving = net.prover.backend === 'upstream' || net.prover.backend === 'native' ? provingPort(net.backend, signal) : undefined;
    const remote = checked ? sponsorTaskPort((inputs) => this.opts.inputs!.check(net.name, era, inputs), proving) : proving;
    try {
      // Refused at shutdown if it has not started: it then reserved nothing, and `finally` releases nothing.
      const res = await this.opts.pool.run('balance', { args, data: body, shared: [net.table.buffer, net.snapshot.buffer, this.inFlight.buffer], ...(remote ? { port: remote.port } : {}) }, { signal, work: 'the sponsorship' });
      const reservation = { slot: res.slot, generation: res.generation };
      this.expectEra(net, era, reservation);
      // The budget is charged while the reservation lives, and refunded if it is reclaimed
      // unspent (the transaction never landed): a key pays for what lands or is still pending.
      let charge: BudgetCharge;
      try {
        charge = await policy.admit(key, BigInt(res.fee), now);
      } catch (err) {
        net.table.release(reservation);
        throw err;
      }
      const refund = (): void => void policy.refund(charge).catch(() => undefined);
      // Released at the fee intent's TTL if it has not landed by then (it never can after), and
      // the key's record told which way it went.
      const expiry = { expiresAt: res.expiresAt, ...(key.id === POOL_KEY_ID ? {} : { onOutcome: (o: 'landed' | 'expired') => this.health.record(net.name, key.id, o) }) };
      if (this.reclaimers.get(net.name)!.track(reservation, now, refund, expiry)) this.journalAnswer(net, reservation, deadline);
      hold.answered.push({ ...reservation, member });
      answered = true;
      this.sponsored++;
      const json = JSON.stringify({
        tx: Buffer.from(res.tx).toString('hex'),
        txHash: res.txHash,
        identifiers: res.identifiers,
        network: net.name,
        fee: res.fee,
        feeUnit: 'SPECK',
        expiresAt: new Date(res.expiresAt).toISOString(),
        dustUtxo: { wallet: res.walletIndex, slot: res.slot },
      });
      if (dedupeKey) {
        this.answers.set(dedupeKey, Buffer.from(json));
        this.opts.sharing?.answered(dedupeKey, json);
      }
      return json;
    } catch (err) {
      this.failed++;
      throw this.eraChangedOr(net, era, err);
    } finally {
      this.unhold(net, key, hold);
      if (!answered && member !== undefined) this.opts.sharing!.release(net.name, key.id, member);
      remote?.close();
      // Whatever the task still held when it ended without an answer goes back at once.
      const held = this.inFlight.finish(entry);
      if (!answered && held) {
        net.table.release(held);
        this.opts.logger.debug({ network: net.name, slot: held.slot }, 'released the DUST reservation of a failed sponsorship');
      }
      if (!answered) {
        // A thread ended between reserving and recording the slot leaves a reservation nobody
        // knows; its deadline is this task's alone. A task whose client left may have been
        // stopped while its thread was still running: look again once that thread is surely gone.
        this.releaseUnrecorded(net, deadline);
        if (signal.aborted) this.wheel.schedule(UNRECORDED_RECHECK_MS, () => this.releaseUnrecorded(net, deadline));
      }
    }
  }

  /**
   * The network changed era while the task ran (the worker saw the old wallets): the answer would
   * spend a DUST UTXO the chain no longer has. Its reservation goes back (the sync has marked it
   * SPENT already, so it is never handed out again) and the request gets 409.
   */
  private expectEra(net: SponsoredNetwork, era: Era, reservation: { slot: number; generation: number }): void {
    const now = this.currentEra(net);
    if (now === undefined || now === era) return;
    net.table.release(reservation);
    throw eraChanged(era, now);
  }

  /** A failure of a task that the network's change of era caused is that change (409), not a 5xx. */
  private eraChangedOr(net: SponsoredNetwork, era: Era, err: unknown): GatewayError {
    const failure = isGatewayError(err) ? err : new GatewayError('INTERNAL', undefined, { cause: err });
    const now = this.currentEra(net);
    if (now !== undefined && now !== era && failure.status >= 500) return eraChanged(era, now);
    return failure;
  }

  /** A reservation deadline no earlier than `now + reservationTtlMs` and later than every one handed out before. */
  private nextReclaimAt(now: number): number {
    this.lastReclaimAt = Math.max(reclaimAt(now, this.opts.reservationTtlMs), this.lastReclaimAt + 1);
    return this.lastReclaimAt;
  }

  private releaseUnrecorded(net: SponsoredNetwork, deadline: number): void {
    const released = net.table.releaseWithDeadline(deadline);
    if (released > 0) this.opts.logger.warn({ network: net.name, released, deadline }, 'released a DUST reservation its task never recorded (its worker thread ended in between)');
  }

  /** Writes an answered reservation (reserved until `deadline`, its task's) to the journal, if there is one, before the answer leaves. */
  private journalAnswer(net: SponsoredNetwork, reservation: { slot: number; generation: number }, deadline: number): void {
    const journal = this.opts.journal;
    if (!journal) return;
    const entry = net.table.slotEntry(reservation.slot);
    // Chain sync may have marked it spent already: then there is nothing to keep reserved.
    if (!entry || entry.state !== 'reserved' || entry.generation !== reservation.generation) return;
    journal.record({ network: net.name, wallet: entry.walletIndex, key: entry.key, deadline });
  }

  /**
   * After a restart, once the network's wallets have synced: reserves again, until its original
   * deadline, every journaled UTXO the wallets still hold unspent.
   */
  private restore(net: SponsoredNetwork, journal: ReservationJournal): void {
    const now = this.opts.clock.now();
    const free = new Map<string, { slot: number; generation: number }>();
    for (let slot = 0; slot < net.table.capacity; slot++) {
      const e = net.table.slotEntry(slot);
      if (e?.state === 'free') free.set(`${e.walletIndex}:${e.key}`, { slot, generation: e.generation });
    }
    let restored = 0;
    let expired = 0;
    let gone = 0;
    // A UTXO released early (its fee intent expired unlanded) may be journaled again for a later
    // answer: the latest deadline is the one whose fee intent may still land.
    for (const entry of [...journal.pending(net.name)].sort((a, b) => b.deadline - a.deadline)) {
      if (entry.deadline <= now) {
        expired++;
        continue;
      }
      const id = `${entry.wallet}:${entry.key}`;
      const slot = free.get(id);
      const reservation = slot ? net.table.reserveExact(slot, entry.deadline) : null;
      if (!reservation) {
        gone++;
        continue;
      }
      free.delete(id);
      this.reclaimers.get(net.name)!.track(reservation, entry.deadline - this.opts.reservationTtlMs);
      restored++;
    }
    journal.restored(net.name);
    this.opts.logger.info({ network: net.name, restored, expired, gone }, 'DUST reservations restored from the journal');
  }

  /** Per network: balance, UTXO counts, sync state (for /health and /wallet-status). */
  status(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const n of this.byName.values()) {
      const sync = this.opts.sync.status(n.name);
      const counts = n.table.counts();
      out[n.name] = {
        sync: sync ? { phase: sync.phase, era: sync.era ?? null, eraSwitches: sync.eraSwitches, eventId: sync.eventId, maxId: sync.maxId, lastError: sync.lastError ?? null } : { phase: 'starting', failure: this.opts.sync.failure(n.name) ?? null },
        balance: sync?.balance ?? '0',
        balanceUnit: 'SPECK',
        wallets: sync?.wallets ?? [],
        utxos: { free: counts.free, reserved: counts.reserved, spent: counts.spent, total: counts.total },
        reclaimTimers: this.reclaimers.get(n.name)!.tracked,
        walletStateBytes: n.snapshot.length,
        prover: n.prover.backend,
        pool: this.keepers.get(n.name)?.status() ?? null,
      };
    }
    return out;
  }

  /** Resolves once the network's wallets are synced (tests and start-up checks wait on this). */
  whenSynced(name: NetworkName): Promise<void> {
    if (this.opts.sync.isSynced(name)) return Promise.resolve();
    return new Promise((resolve) => {
      const off = this.opts.sync.onStatus((s) => {
        if (s.network === name && s.phase === 'synced') {
          off();
          resolve();
        }
      });
    });
  }

  /** Fire every reclaim timer that is due by the clock now (the wheel's own interval does this each tick). */
  reclaimDue(): void {
    this.wheel.tick(this.opts.clock.now());
  }

  stats(): { sponsored: number; failed: number; inFlight: number } {
    return { sponsored: this.sponsored, failed: this.failed, inFlight: this.flights.size };
  }

  close(): void {
    for (const k of this.keepers.values()) k.close();
    this.opts.inputs?.close();
    this.driver.stop();
  }
}
