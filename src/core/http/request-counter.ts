/**
 * Where the server reports each answered request, for whoever counts them: the app plugs in the
 * metrics' counter (src/core/http/request-metrics.ts). The HTTP layer keeps no count of its own and
 * knows nothing of how counts are shown, so the counter is the only thing it calls.
 */
import type { RouteDef } from './route.js';

export interface RequestCounter {
  /** Whether a new exchange of this route should read the clock (asked only when the access log does not time every exchange). */
  timeNext(route: RouteDef): boolean;
  /** One answered request (499 when the client left first); `t0` its start (performance.now, 0 = not timed); `code` for an error answer. */
  observe(route: RouteDef, status: number, t0: number, code: string | undefined): void;
}

/** One route's counts so far: what an HTTP worker thread sends the main thread (server.threads > 1). */
export interface RouteCounts {
  route: string;
  method: string;
  /** Requests by status class (1xx to 5xx). */
  byClass: number[];
  /** Cumulative counts of the timed sample per latency bucket, the last one +Inf. */
  buckets: number[];
  count: number;
  sumSeconds: number;
}

/** Where the main thread adds up what its HTTP worker threads counted: each thread's totals so far. */
export interface ThreadCountSink {
  absorbThread(thread: number, routes: RouteCounts[], errors: Array<[string, number]>): void;
}
