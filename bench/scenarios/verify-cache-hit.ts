/** POST /verify with one valid check payload (the ledger's createCheckPayload), repeated: cache hits. */
import { measureCacheHits } from '../lib/proof-cache.js';
import type { Scenario } from '../lib/scenario.js';

export const scenario: Scenario = {
  id: 'verify-cache-hit',
  title: 'proving: /verify cache hits',
  run: async (ctx) => measureCacheHits(ctx, 'verify-cache-hit', '/verify', (await ctx.fixtures.proving()).check),
};
