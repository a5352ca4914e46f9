/** Sponsorship's worker module: the pool runs each task by its export name (../../tasks.ts names them). */
export { admission } from './admission.js';
export { balance } from './balance.js';
export { poolAddresses } from './pool-addresses.js';
export { poolSplit } from './pool-split.js';
