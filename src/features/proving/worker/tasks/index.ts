/** Proving's worker module: the pool runs each task by its export name (../../tasks.ts names them). */
export { prove } from './prove.js';
export { check } from './check.js';
export { k } from './k.js';
