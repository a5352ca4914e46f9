/**
 * The refusals a sponsorship meets before it holds anything (sponsorship.ts): a stale chain, the
 * key's precheck and spent budget, a pool left with only the keeper's reserve, and a backlog of
 * unlanded answers its own answer could not outlast (backlog.ts). Each carries a Retry-After; none
 * reserves, charges or queues a task.
 */
import type { NetworkName } from '../../../core/config/index.js';
import { GatewayError } from '../../../core/errors.js';
import type { AuthenticatedKey } from '../../../core/guards/auth.js';
import { lifeBlocks, type SponsorBacklog } from './backlog.js';
import type { SponsorshipPolicy } from './budget.js';
import { secondsUntil } from '../common/fixed-window.js';
import type { PolicyGate } from '../policy/gate.js';
import { KEEPER_RESERVE, POOL_KEY_ID } from '../common/pool-constants.js';
import type { PoolKeeper } from '../pool/pool-keeper.js';
import type { SponsoredNetwork } from '../common/sponsored-network.js';

interface EarlyChecks {
  /** Why the network's chain is too stale to price fees on; undefined: it is not. */
  staleChain?: (network: NetworkName, now: number) => string | undefined;
  policy: SponsorshipPolicy;
  gate?: PolicyGate;
  keeper?: PoolKeeper;
  backlog: SponsorBacklog;
  /** `dust.feeTtlMs` (0: by the backlog). */
  feeTtlMs: number;
}

/** What the task is told of the key's budget and the pool's reserve. */
interface Admitted {
  budgetLeft: bigint;
  budgetResetAt: number;
  /** Free UTXOs the task's reservation must leave for the pool keeper. */
  keepFree: number;
}

const retryAfterBlock = (net: SponsoredNetwork): { headers: Record<string, string> } => ({
  headers: { 'Retry-After': String(Math.max(1, Math.ceil(net.blockTimeMs / 1000))) },
});

export function refuseEarly(c: EarlyChecks, net: SponsoredNetwork, key: AuthenticatedKey, clientId: string | undefined, now: number): Admitted {
  // A chain that stopped producing blocks would have its fee priced on old state: refused until it moves.
  const stale = c.staleChain?.(net.name, now);
  if (stale !== undefined) throw new GatewayError('CHAIN_STALE', `the ${net.name} chain is stale: ${stale}`, retryAfterBlock(net));
  const own = key.id === POOL_KEY_ID;
  if (!own) c.gate?.precheck(key, clientId, now);
  const budgetLeft = c.policy.budgetFor(key) - c.policy.spent(key.id, now);
  const budgetResetAt = c.policy.windowEndsAt(now);
  if (budgetLeft <= 0n)
    throw new GatewayError('DUST_BUDGET_EXCEEDED', `the DUST budget of this key is spent for this window`, {
      headers: { 'Retry-After': String(secondsUntil(budgetResetAt, now)) },
    });
  // The last few free UTXOs are the pool keeper's while it grows the pool (pool-keeper.ts). The
  // worker's reservation keeps them, atomically (a count checked here would race the other
  // requests); this check only spares a task when nothing but the reserve is left (UTXOs below
  // the reserve's floor are never held back).
  const keepFree = !own && c.keeper?.wantsReserve() ? KEEPER_RESERVE : 0;
  if (keepFree > 0 && net.table.freeTokens() <= keepFree && net.table.uncountedFree() === 0)
    throw new GatewayError('NO_DUST_AVAILABLE', 'the DUST pool is growing: no free UTXO for now; retry after the next block', retryAfterBlock(net));
  // The server's own splits are not held back: at most its share of them is ever in flight.
  if (!own) c.backlog.admit(net.name, net.table.counts().reserved, lifeBlocks(c.feeTtlMs, net.blockTimeMs), net.blockTimeMs);
  return { budgetLeft, budgetResetAt, keepFree };
}
