/** What the sponsorship service is built from, what one of its requests holds, and its balance task's arguments. */
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.js';
import type { AuthenticatedKey } from '../../core/guards/auth.js';
import type { Era } from '../../infra/ledger/index.js';
import type { WorkerPoolComponent } from '../../infra/pool/worker-pool.js';
import type { ProvingPort } from '../../infra/prover/proving-port.js';
import type { Admission } from './admission/admission.js';
import type { SponsorshipPolicy } from './admission/budget.js';
import type { KeyShares } from './admission/key-shares.js';
import type { SponsorshipSharing } from './admission/sharing.js';
import type { BalanceArgs, SponsorKind } from './common/balance-task.js';
import { feeTtlBlocks } from './admission/backlog.js';
import { POOL_KEY_ID } from './common/pool-constants.js';
import type { SponsoredNetwork } from './common/sponsored-network.js';
import type { PolicyGate } from './policy/gate.js';
import type { UsageRecorder } from './policy/ports.js';
import type { InputChecker } from './reservations/input-check.js';
import type { InputClaim, SharedInputHolds } from './reservations/input-holds.js';
import type { ReservationJournal } from './reservations/reservation-journal.js';
import type { DustSyncHost } from './wallets/sync-host.js';

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
  /** Life of a fee intent (`dust.feeTtlMs`); 0: blocks of the network by its queue (backlog.ts). */
  feeTtlMs: number;
  /** UTXOs one key may hold reserved at once per network (`dust.maxReservationsPerKey`). */
  maxReservationsPerKey: number;
  dedupeWindowMs: number;
  /** Concurrent balancing tasks tracked in the in-flight registry (beyond: 503 QUEUE_FULL). */
  maxInFlight: number;
  /** Answered reservations are written here and restored after a restart (`dust.stateDir`). */
  journal?: ReservationJournal;
  /** Several instances (`state.redisUrl`): dedupe, the per-key share and the wallet leases over all of them (src/features/sponsorship/redis/sponsorship.ts). */
  sharing?: SponsorshipSharing;
  /** Checks a transaction's unshielded inputs against the chain before anything is reserved (input-check.ts); absent: not checked. */
  inputs?: InputChecker;
  /** Several instances: the inputs' holds of live answers in Redis (shared/input-holds.ts). */
  sharedInputs?: SharedInputHolds;
  /** An answer's reservation is released this long after its fee intent's TTL once the chain is past it (`dust.expiryMarginMs`). */
  expiryMarginMs?: number;
  /** Per-key throttle of answers that expire unlanded (key-health.ts): `dust.throttleSlack`, `dust.keyHealthWindowMs`. */
  throttleSlack?: number;
  keyHealthWindowMs?: number;
  /** Keys' policies (policy/gate.ts): absent, no key's policy is read. */
  gate?: PolicyGate;
  /** Sponsorships per key, for GET /usage (policy/usage.ts). */
  usage?: UsageRecorder;
}

/** One sponsorship request from admission to its end: what it holds, and whether it was answered. */
export interface Attempt {
  readonly net: SponsoredNetwork;
  readonly key: AuthenticatedKey;
  readonly body: Buffer;
  readonly signal: AbortSignal;
  readonly era: Era;
  readonly now: number;
  readonly deadline: number;
  readonly hold: ReturnType<KeyShares['hold']>;
  readonly member: string | undefined;
  readonly entry: number;
  readonly admission: Admission;
  readonly args: BalanceArgs;
  claim?: InputClaim;
  proving?: ProvingPort;
  answered: boolean;
}

const POOL_FEE_CAP_FACTOR = 10n;

/** What a request's balance task is told: the network, the key's limits, the reservation's times and the fee intent's life. */
export function balanceArgs(
  opts: SponsorshipOptions,
  r: {
    kind: SponsorKind;
    era: Era;
    net: SponsoredNetwork;
    key: AuthenticatedKey;
    now: number;
    deadline: number;
    entry: number;
    budgetLeft: bigint;
    budgetResetAt: number;
    keepFree: number;
    share: number;
  },
): BalanceArgs {
  const cap = opts.policy.capFor(r.key);
  return {
    sponsor: {
      kind: r.kind,
      era: r.era,
      networkId: r.net.networkId,
      seeds: [...r.net.seeds],
      margin: opts.margin,
      // The server's own splits may pay up to POOL_FEE_CAP_FACTOR × the cap: a pool that cannot
      // grow while prices are high would fail the demand that raised them.
      maxFee: (r.key.id === POOL_KEY_ID ? cap * POOL_FEE_CAP_FACTOR : cap).toString(),
      budgetLeft: r.budgetLeft.toString(),
      budgetResetAt: r.budgetResetAt,
      keepFree: r.keepFree,
      now: r.now,
      reservationTtlMs: opts.reservationTtlMs,
      ttlSafetyMs: opts.ttlSafetyMs,
      reclaimAt: r.deadline,
      // The fee intent's life: fixed, or by the queue of unlanded answers as the task reserves (backlog.ts).
      blockTimeMs: r.net.blockTimeMs,
      feeTtlMs: opts.feeTtlMs || feeTtlBlocks(0) * r.net.blockTimeMs,
      queue: { network: r.net.name, share: r.share, refuse: r.key.id !== POOL_KEY_ID, fixedTtlMs: opts.feeTtlMs },
    },
    prover: r.net.prover,
    inFlightEntry: r.entry,
  };
}
