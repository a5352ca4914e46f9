/** POST /prove with one valid proving payload (the ledger's createProvingPayload), repeated: cache hits. */
import { measureCacheHits } from '../lib/proof-cache.js';
import type { Scenario } from '../lib/scenario.js';

export const scenario: Scenario = {
  id: 'prove-cache-hit',
  title: 'proving: /prove cache hits',
  run: async (ctx) => measureCacheHits(ctx, 'prove-cache-hit', '/prove', (await ctx.fixtures.proving()).prove),
};
