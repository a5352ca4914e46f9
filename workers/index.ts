/**
 * The one worker entry of the pool. piscina picks a task by its export name (`run(…, { name })`),
 * so each task lives in its own file and is re-exported here. Importing this file loads the
 * ledgers of the thread's eras once (lib/ledger.ts).
 *
 * To add a task: write `workers/<name>.ts` exporting `<name> = defineTask<'<name>'>(…)`, re-export
 * it below, and declare its arguments and result by augmenting `TaskMap` (see src/infra/pool/tasks.ts).
 */
export { prove } from './prove.js';
export { check } from './check.js';
export { k } from './k.js';
export { admission } from './admission.js';
export { balance } from './balance.js';
export { poolAddresses } from './pool-addresses.js';
export { poolSplit } from './pool-split.js';
