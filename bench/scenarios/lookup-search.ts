/**
 * GET /api/v1/{network}/search?q= — cold walks heights, block hashes and transaction hashes (each
 * kind of query search resolves); warm repeats one of them.
 */
import { measureLookup } from '../lib/lookups.js';
import type { Scenario } from '../lib/scenario.js';

export const scenario: Scenario = {
  id: 'lookup-search',
  title: 'lookup: search?q=',
  run: (ctx) =>
    measureLookup(ctx, {
      scenario: 'lookup-search',
      route: 'search',
      param: 'q',
      values: (k) => [...k.txHashes, ...k.heights.map(String), ...k.blockHashes],
    }),
};
