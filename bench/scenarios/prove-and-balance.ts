/**
 * POST /prove-and-balance on the dev prover: an unproven (signed) NIGHT transfer in; the DUST fee
 * added, the whole proven and bound. One distinct transaction per request.
 */
import type { Scenario } from '../lib/scenario.js';
import { measureSponsorship } from '../lib/sponsorship.js';

export const scenario: Scenario = {
  id: 'prove-and-balance',
  title: 'sponsorship: /prove-and-balance (dev prover)',
  run: (ctx) => measureSponsorship(ctx, 'prove-and-balance', '/prove-and-balance', 'unproven'),
};
