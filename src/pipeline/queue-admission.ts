/**
 * Admission to a work queue decided before a request's body is read: when the queue the handler
 * would wait in is already full, the request is refused as the queue itself would refuse it
 * (503 QUEUE_FULL with Retry-After), without receiving a body that could only be turned away.
 */
import { GatewayError } from '../errors.js';

/** What a bounded queue tells about itself (the worker pool: src/prover/worker-pool.ts). */
export interface QueueState {
  health(): { queueSize: number; maxQueue: number };
  retryAfterSeconds(): number;
}

/** The refusal when `queue` has no room for one more waiting task, else undefined. */
export function queueFullRefusal(queue: QueueState): GatewayError | undefined {
  const { queueSize, maxQueue } = queue.health();
  if (queueSize < maxQueue) return undefined;
  return new GatewayError('QUEUE_FULL', `All workers are busy and ${queueSize} tasks are waiting`, { headers: { 'Retry-After': String(queue.retryAfterSeconds()) } });
}
