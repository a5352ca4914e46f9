/** What the sponsorship service is built from, and what one of its requests holds. */
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
import type { BalanceArgs } from './common/balance-task.js';
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
