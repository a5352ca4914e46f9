/**
 * The one worker entry of the pool. piscina picks a task by its export name (`run(…, { name })`),
 * so each task lives in its own file and is re-exported here. Importing this file loads the
 * ledgers of the thread's eras once (lib/ledger.ts).
 *
 * To add a task: write `workers/<name>.ts` exporting `<name> = defineTask<'<name>'>(…)`, re-export
 * it below, and declare its arguments and result by augmenting `TaskMap` (see src/infra/pool/tasks.ts).
 */
export { prove } from '../src/features/proving/worker/tasks/prove.js';
export { check } from '../src/features/proving/worker/tasks/check.js';
export { k } from '../src/features/proving/worker/tasks/k.js';
export { admission } from '../src/features/sponsorship/worker/tasks/admission.js';
export { balance } from '../src/features/sponsorship/worker/tasks/balance.js';
export { poolAddresses } from '../src/features/sponsorship/worker/tasks/pool-addresses.js';
export { poolSplit } from '../src/features/sponsorship/worker/tasks/pool-split.js';
