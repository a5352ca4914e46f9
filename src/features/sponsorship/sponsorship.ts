/**
 * The sponsorship service (main thread): per network, the shared allocator table, the wallet
 * snapshot, the reclaim timers; per request, dedupe, admission and one `balance` task.
 *
 * A request's life: syncing? → 503. Same bytes answered within the dedupe window? → the same
 * answer, no second reservation. A stale chain (no block for 10 block times)? → 503, for its fee
 * would be priced on old state. Its inputs and its key's policy are checked with no worker thread
 * held (admission.ts). Then a worker reserves a UTXO, builds and proves; the main thread then
 * charges the key's budget (a lost race refunds nothing and releases the UTXO) and
 * starts the 5-minute reclaim timer. A task that ends without an answer (client abort, worker
 * crash, error) has its reservation released at once through the in-flight registry.
 *
 * Its parts, one file each: the dedupe (answer-dedupe.ts), the era checks (era-guard.ts), the
 * per-key share (key-shares.ts), the tasks' deadlines (task-deadlines.ts), the journal of answered
 * reservations (reservation-restore.ts), the holds on the inputs of live answers (input-holds.ts).
 */
import type { NetworkName } from '../../core/config/index.js';
import { GatewayError, toGatewayError } from '../../core/errors.js';
import type { AuthenticatedKey } from '../../core/guards/auth.js';
import { provingPort } from '../../infra/prover/proving-port.js';
import { admit, needsAdmission } from './admission/admission.js';
import { AnswerDedupe, requestKey, type SponsorAnswer } from './admission/answer-dedupe.js';
import type { BalanceResult, SponsorKind } from './common/balance-task.js';
import { EraGuard } from './admission/era-guard.js';
import { SponsorBacklog, lifeBlocks, type BacklogStatus } from './admission/backlog.js';
import { InFlightReservations } from './allocator/in-flight.js';
import { holderOf, InputHolds } from './reservations/input-holds.js';
import { refuseEarly } from './admission/early-refusals.js';
import { KeyHealth } from './admission/key-health.js';
import { KeyShares } from './admission/key-shares.js';
import { POOL_KEY_ID } from './common/pool-constants.js';
import type { PoolKeeper } from './pool/pool-keeper.js';
import { restoreOnSync } from './reservation-restore.js';
import { Settlement } from './settlement.js';
import { ReservationReclaimer } from './reservations/reservations.js';
import type { SponsoredNetwork } from './common/sponsored-network.js';
import { networkStatus } from './network-status.js';
import { TaskDeadlines } from './reservations/task-deadlines.js';
import { startTimerWheel, TimerWheel, type TimerWheelDriver } from './reservations/timer-wheel.js';
import type { Era } from '../../infra/ledger/index.js';
import { balanceArgs, type Attempt, type SponsorshipOptions } from './service-types.js';

/** The server's own key for its pool maintenance: 10 × the fee cap (service-types.ts), a budget that never binds. */
const POOL_KEY: AuthenticatedKey = { id: POOL_KEY_ID, source: 'generated', dustBudget: 10n ** 40n };

export class SponsorshipService {
  private readonly byName = new Map<NetworkName, SponsoredNetwork>();
  private readonly reclaimers = new Map<NetworkName, ReservationReclaimer>();
  private readonly backlogs = new Map<NetworkName, SponsorBacklog>();
  private readonly wheel: TimerWheel;
  private readonly driver: TimerWheelDriver;
  private readonly inFlight: InFlightReservations;
  private readonly dedupe: AnswerDedupe;
  /** Per network, the keeper that grows its pool (src/features/sponsorship/pool/pool-keeper.ts). */
  private readonly keepers = new Map<NetworkName, PoolKeeper>();
  /** What each key holds of each network's pool, against its share. */
  private readonly shares: KeyShares;
  private readonly eras: EraGuard;
  /** Each task's reservation deadline, its own. */
  private readonly deadlines: TaskDeadlines;
  /** The inputs live answers spend, refused to any other transaction (input-holds.ts). */
  readonly inputHolds: InputHolds;
  private readonly settlement: Settlement;
  private failed = 0;
  private staleChain: ((network: NetworkName, now: number) => string | undefined) | undefined;
  /** Per key and network: answers landed and expired unlanded, and the share of the pool that earns. */
  readonly health: KeyHealth;

  constructor(private readonly opts: SponsorshipOptions) {
    this.wheel = new TimerWheel({ clock: opts.clock });
    this.driver = startTimerWheel(this.wheel);
    this.inFlight = InFlightReservations.create(opts.maxInFlight);
    this.dedupe = new AnswerDedupe(opts.clock, opts.dedupeWindowMs, opts.sharing);
    for (const n of opts.networks) {
      this.byName.set(n.name, n);
      this.backlogs.set(n.name, new SponsorBacklog());
      this.reclaimers.set(
        n.name,
        new ReservationReclaimer(n.table, this.wheel, {
          reservationTtlMs: opts.reservationTtlMs,
          expiryMarginMs: opts.expiryMarginMs ?? 10_000,
          recheckMs: n.blockTimeMs,
          chainPast: (t) => this.chainPast(n, t),
        }),
      );
    }
    this.health = new KeyHealth({ clock: opts.clock, windowMs: opts.keyHealthWindowMs ?? 600_000, slack: opts.throttleSlack ?? 10 });
    this.shares = new KeyShares({
      health: this.health,
      maxReservationsPerKey: opts.maxReservationsPerKey,
      feeTtlMs: opts.feeTtlMs,
      expiryMarginMs: opts.expiryMarginMs,
      sharing: opts.sharing,
    });
    this.eras = new EraGuard(opts.sync, this.wheel);
    this.deadlines = new TaskDeadlines(opts.reservationTtlMs, this.wheel, opts.logger);
    this.inputHolds = new InputHolds(opts.clock, opts.sharedInputs, (network, owners) => {
      for (const owner of owners) opts.inputs?.forget(network, owner);
    });
    this.settlement = new Settlement({
      opts,
      inputHolds: this.inputHolds,
      backlogs: this.backlogs,
      reclaimers: this.reclaimers,
      health: this.health,
      shares: this.shares,
      inFlight: this.inFlight,
      deadlines: this.deadlines,
    });
    // Each synced block may have spent answered reservations: their inputs are free again (and
    // judged on chain, where they are spent), and with several instances their places in the
    // key's share over all of them are given back then, not only when the key comes back here.
    opts.sync.onStatus((s) => {
      const net = this.byName.get(s.network as NetworkName);
      if (s.phase !== 'synced' || !net) return;
      this.inputHolds.settle(net);
      if (opts.sharing) this.shares.settle(net);
    });
    if (opts.journal)
      restoreOnSync(opts.journal, opts.sync, opts.networks, (net) => this.reclaimers.get(net.name)!, {
        clock: opts.clock,
        reservationTtlMs: opts.reservationTtlMs,
        logger: opts.logger,
      });
  }

  /** Who says why a chain is too stale to price fees on (the statistics: src/features/stats/derive.ts, `isStale`); unset, none is. */
  judgeChainsBy(judge: (network: NetworkName, now: number) => string | undefined): void {
    this.staleChain = judge;
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
    return this.eras.eraOf(name);
  }

  /** `clientId`: the request's `X-Client-ID`, the user for a policy that counts users by it. */
  async sponsor(kind: SponsorKind, name: NetworkName, key: AuthenticatedKey, body: Buffer, signal: AbortSignal, clientId?: string): Promise<SponsorAnswer> {
    try {
      return await this.sponsorOnce(kind, name, key, body, signal, clientId);
    } catch (err) {
      // Refusals per key, by the policy rule or the error code (GET /usage).
      const e = toGatewayError(err);
      this.opts.usage?.refused(key.id, name, e.rule ?? e.code, this.opts.clock.now());
      throw err;
    }
  }

  private async sponsorOnce(
    kind: SponsorKind,
    name: NetworkName,
    key: AuthenticatedKey,
    body: Buffer,
    signal: AbortSignal,
    clientId: string | undefined,
  ): Promise<SponsorAnswer> {
    const net = this.byName.get(name);
    if (!net) throw new GatewayError('BALANCING_DISABLED', `sponsorship is not configured for ${name} (no server DUST wallets)`);
    if (!this.opts.sync.isSynced(name) || this.eraOf(name) === undefined) await this.eras.untilSynced(net, body, signal);
    this.opts.sharing?.admit(name);
    const dedupeKey = requestKey(key.id, kind, name, this.eraOf(name), body);
    return this.dedupe.answer(dedupeKey, signal, (s) => this.compute(kind, net, key, body, s, dedupeKey, clientId));
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
    return net ? this.shares.held(net, keyId) : 0;
  }

  /**
   * Sponsors one of the server's own transactions (the pool keeper's splits) through the same
   * path as a user's: same checks, same reservation and reclaim. It counts as the key
   * POOL_KEY_ID, whose share of the pool (`maxReservationsPerKey`) bounds the splits in flight.
   */
  async sponsorOwn(
    name: NetworkName,
    body: Buffer,
    signal: AbortSignal,
  ): Promise<{ tx: Buffer; txHash: string; expiresAt: number; fee: string; dustUtxo: { wallet: number; slot: number } }> {
    const net = this.byName.get(name);
    if (!net) throw new GatewayError('BALANCING_DISABLED', `sponsorship is not configured for ${name}`);
    // Its splits spend the wallets' NIGHT: never from wallets whose lease another instance holds.
    this.opts.sharing?.owns(name);
    const json = JSON.parse(await this.compute('prove-and-balance', net, POOL_KEY, body, signal, undefined)) as {
      tx: string;
      txHash: string;
      expiresAt: string;
      fee: string;
      dustUtxo: { wallet: number; slot: number };
    };
    return { tx: Buffer.from(json.tx, 'hex'), txHash: json.txHash, expiresAt: Date.parse(json.expiresAt), fee: json.fee, dustUtxo: json.dustUtxo };
  }

  /** The queue of this server's unlanded answers on `net`, in blocks, against what a fee intent outlives; and how answers ended. */
  backlogOf(net: SponsoredNetwork): BacklogStatus {
    return this.backlogs.get(net.name)!.status(net.table.counts().reserved, lifeBlocks(this.opts.feeTtlMs, net.blockTimeMs));
  }

  /** One request, in three steps: admit (hold its places), run (its tasks), settle (charge and track its answer). */
  private async compute(
    kind: SponsorKind,
    net: SponsoredNetwork,
    key: AuthenticatedKey,
    body: Buffer,
    signal: AbortSignal,
    dedupeKey: string | undefined,
    clientId?: string,
  ): Promise<string> {
    const attempt = await this.admitRequest(kind, net, key, body, signal, dedupeKey, clientId);
    try {
      const json = await this.settlement.settle(attempt, await this.runTasks(attempt));
      if (dedupeKey) this.dedupe.record(dedupeKey, json);
      return json;
    } catch (err) {
      this.failed++;
      throw this.eras.eraChangedOr(net, attempt.era, err);
    } finally {
      await this.settlement.end(attempt);
    }
  }

  /**
   * The refusals decided before anything is held, then the places the request holds until it
   * ends: the key's share (here and over every instance), a deadline, an in-flight entry; its
   * admission (input check, policy) and the balance task's arguments.
   */
  private async admitRequest(
    kind: SponsorKind,
    net: SponsoredNetwork,
    key: AuthenticatedKey,
    body: Buffer,
    signal: AbortSignal,
    dedupeKey: string | undefined,
    clientId: string | undefined,
  ): Promise<Attempt> {
    const now = this.opts.clock.now();
    const gate = key.id === POOL_KEY_ID ? undefined : this.opts.gate;
    const policy = this.opts.policy;
    const backlog = this.backlogs.get(net.name)!;
    const { budgetLeft, budgetResetAt, keepFree } = refuseEarly(
      { staleChain: this.staleChain, policy, gate, keeper: this.keepers.get(net.name), backlog, feeTtlMs: this.opts.feeTtlMs },
      net,
      key,
      clientId,
      now,
    );
    // The era the task builds in: the one the network's wallets are synced in as it starts.
    const era = this.eraOf(net.name);
    if (era === undefined)
      throw new GatewayError('WALLET_SYNCING', `the server DUST wallets of ${net.name} are still syncing`, { headers: { 'Retry-After': '30' } });
    const hold = this.shares.hold(net, key);
    const deadline = this.deadlines.next(now);
    // The key's share over every instance: a place held until the reservation ends (or its deadline).
    let member: string | undefined;
    if (this.opts.sharing && key.id !== POOL_KEY_ID) member = await this.shares.holdShared(net, key, hold, deadline);
    const entry = this.inFlight.acquire();
    if (entry === undefined) {
      this.shares.unhold(net, key, hold);
      this.shares.releaseShared(net, key, member);
      throw new GatewayError('QUEUE_FULL', 'too many sponsorships in flight', { headers: { 'Retry-After': '1' } });
    }
    const attempt: Attempt = {
      net,
      key,
      body,
      signal,
      era,
      now,
      deadline,
      hold,
      member,
      entry,
      answered: false,
      admission: {
        kind,
        net,
        era,
        now,
        body,
        // The server's own splits spend NIGHT it has just read from the indexer: not checked again.
        inputs: key.id === POOL_KEY_ID ? undefined : this.opts.inputs,
        policy: gate?.asks(key) === true ? gate.forTask({ key, network: net.name, era, kind, clientId, now }, signal) : undefined,
        withFee: gate?.asksFee(key) === true,
      },
      args: balanceArgs(this.opts, { kind, era, net, key, now, deadline, entry, budgetLeft, budgetResetAt, keepFree, share: backlog.share }),
    };
    // Its inputs held from admission (before anything is reserved) until its answer's reservation ends.
    if (attempt.admission.inputs) {
      const holder = holderOf(dedupeKey ?? `${key.id}|${Math.random()}`);
      attempt.admission.holdInputs = async (inputs) => {
        attempt.claim = await this.inputHolds.acquire(net, inputs, holder, deadline);
      };
    }
    return attempt;
  }

  /** The admission task and its checks, with no worker thread held while they wait (admission.ts); then the balance task. */
  private async runTasks(a: Attempt): Promise<BalanceResult> {
    // Each task is the key's in the pool's fair share of its threads.
    const run = { signal: a.signal, work: 'the sponsorship', key: a.key.id };
    if (needsAdmission(a.admission)) a.args.sponsor.admittedTtl = await admit(this.opts.pool, a.admission, run);
    const net = a.net;
    a.proving = net.prover.backend === 'upstream' || net.prover.backend === 'native' ? provingPort(net.backend, a.signal) : undefined;
    // Refused at shutdown if it has not started: it then reserved nothing, and `end` releases nothing.
    const res = await this.opts.pool.run(
      'balance',
      { args: a.args, data: a.body, shared: [net.table.buffer, net.snapshot.buffer, this.inFlight.buffer], ...(a.proving ? { port: a.proving.port } : {}) },
      run,
    );
    this.backlogs.get(net.name)!.record(res.blockShare);
    this.eras.expectEra(net, a.era, { slot: res.slot, generation: res.generation });
    return res;
  }

  /** Per network: balance, UTXO counts, sync state, fee prices (for /health and /wallet-status). */
  status(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const n of this.byName.values())
      out[n.name] = networkStatus(n, this.opts.sync, this.reclaimers.get(n.name)!.tracked, this.keepers.get(n.name), this.backlogOf(n));
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
    return { sponsored: this.settlement.sponsored, failed: this.failed, inFlight: this.dedupe.size };
  }

  close(): void {
    for (const k of this.keepers.values()) k.close();
    this.opts.inputs?.close();
    this.driver.stop();
  }
}
