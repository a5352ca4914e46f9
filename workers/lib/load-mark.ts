/** Evaluated just before ledger-v8 (see ledger.ts): the moment its load starts. */
import { performance } from 'node:perf_hooks';

export const loadStartedAt = performance.now();
