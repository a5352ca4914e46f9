/**
 * POST /balance-only on the dev prover: a finalized (signed, proven, bound) NIGHT transfer in, the
 * DUST fee intent proven and merged out. Throughput in tx/s and p50/p99, one distinct transaction
 * per request.
 */
import type { Scenario } from '../lib/scenario.js';
import { measureSponsorship } from '../lib/sponsorship.js';

export const scenario: Scenario = {
  id: 'balance-only',
  title: 'sponsorship: /balance-only (dev prover)',
  run: (ctx) => measureSponsorship(ctx, 'balance-only', '/balance-only', 'finalized'),
};
