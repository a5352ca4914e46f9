/** GET /api/v1/{network}/transaction?hash= — cold (walking transaction hashes) and warm (one hash). */
import { measureLookup } from '../lib/lookups.js';
import type { Scenario } from '../lib/scenario.js';

export const scenario: Scenario = {
  id: 'lookup-transaction',
  title: 'lookup: transaction?hash=',
  run: (ctx) => measureLookup(ctx, { scenario: 'lookup-transaction', route: 'transaction', param: 'hash', values: (k) => k.txHashes }),
};
