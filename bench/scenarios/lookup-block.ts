/** GET /api/v1/{network}/block?height= — cold (walking heights) and warm (one height). */
import { measureLookup } from '../lib/lookups.js';
import type { Scenario } from '../lib/scenario.js';

export const scenario: Scenario = {
  id: 'lookup-block',
  title: 'lookup: block?height=',
  run: (ctx) => measureLookup(ctx, { scenario: 'lookup-block', route: 'block', param: 'height', values: (k) => k.heights.map(String) }),
};
