/** The proving component's own face: the backends, and the result cache's decisions and figures. */
import type { EventEmitter } from 'node:events';
import type { ProverBackends } from '../../infra/prover/component.js';
import type { ProofResultsStats, ResultEvent } from './proof-results.js';

export interface ProverComponent extends ProverBackends {
  /** Cache decisions (HIT, MISS, SHARED) as they happen. */
  readonly events: EventEmitter<{ result: [ResultEvent] }>;
  /** The proof result cache: what it holds, and its decisions since start. */
  cacheStats(): ProofResultsStats;
}
