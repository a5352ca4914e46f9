/**
 * What the main thread and its HTTP worker threads (server.threads > 1) say to each other, over
 * each worker's own port. A worker answers the replies the main thread copied to it (replicas of
 * live replies: the cached statistics, the API description) and forwards every other routed
 * request whole — request line, headers, parameters, the peer's address, then its body as it
 * arrives — and writes back what the main thread's pipeline wrote (status line and headers in one
 * string, then the body), so auth, limits, budgets, proving and sponsorship stay in one thread.
 */
import type { RouteCounts } from '../request-counter.js';
import type { RouteDef } from '../route.js';
import type { Config } from '../../config/index.js';

/** A route as a worker thread registers it: everything of RouteDef but the handler and the schema. */
export interface RouteShape {
  method: RouteDef['method'];
  url: string;
  auth: RouteDef['auth'];
  rateLimit: RouteDef['rateLimit'];
  body?: { limit: number; contentTypes: readonly string[] } | undefined;
  readHeaders?: readonly string[] | undefined;
}

/** A push WebSocket endpoint: its topic for each known parameter set, and the refusal for any other. */
export interface TopicShape {
  url: string;
  /** JSON of the path parameters → topic, or the refusal's code and message. */
  table: Record<string, string | { code: string; message: string | undefined }>;
  otherwise: { code: string; message: string | undefined };
}

/** A live reply's state, as a worker keeps it. */
export interface ReplicaState {
  body: Uint8Array;
  contentType: string | undefined;
  headers: Record<string, string>;
  headLines: string | undefined;
  /** The identity form's ETag, when the reply has compressed forms (compression.ts). */
  etag: string | undefined;
}

export type ToMain =
  | { t: 'ready'; descriptor: number }
  | {
      t: 'req';
      id: number;
      index: number;
      head: boolean;
      method: string;
      url: string;
      query: string;
      headers: string[];
      params: string[];
      remote: ArrayBuffer;
      body: boolean;
    }
  | { t: 'body'; id: number; chunk: ArrayBuffer; last: boolean }
  | { t: 'abort'; id: number }
  | { t: 'welcome'; id: number; topic: string }
  | { t: 'log'; text: string }
  | { t: 'metrics'; routes: RouteCounts[]; errors: Array<[string, number]> }
  | { t: 'closed' };

export type ToWorker =
  | {
      t: 'res';
      id: number;
      kind: 'end' | 'empty' | 'close';
      head: string;
      body: string | Uint8Array | undefined;
      close: boolean;
      replica?: { key: string; rid: number; state: ReplicaState };
    }
  | { t: 'replica'; rid: number; state: ReplicaState }
  | { t: 'welcome'; id: number; text: string | undefined }
  | { t: 'publish'; topic: string; message: string }
  | { t: 'shutdown' }
  | { t: 'close' };

/** What a worker thread is started with. */
export interface WorkerSetup {
  thread: number;
  routes: RouteShape[];
  topics: TopicShape[];
  /** The per-IP limiter table every thread shares (guards/shared-rate-limit.ts). */
  limiter: SharedArrayBuffer;
  /** The main thread's settings, as they are (plain data: cloned into the worker). */
  server: Config['server'];
  rateLimit: Config['rateLimit'];
  log: Config['log'];
  metrics: boolean;
}

/** The key a worker files a replica under: path and query, as uWS gives them. */
export function replicaKey(url: string, query: string): string {
  return query === '' ? url : `${url}?${query}`;
}

/** A copy of `bytes` in an ArrayBuffer of its own, to transfer (a pooled Buffer's would carry its neighbours). */
export function ownBytes(bytes: Uint8Array | ArrayBuffer): Uint8Array {
  return bytes instanceof ArrayBuffer ? new Uint8Array(bytes.slice(0)) : new Uint8Array(bytes);
}

/** The transfer list for a message carrying these bytes. */
export function transferOf(...items: Array<string | Uint8Array | ArrayBuffer | undefined>): ArrayBuffer[] {
  const out: ArrayBuffer[] = [];
  for (const x of items) {
    if (x instanceof ArrayBuffer) out.push(x);
    else if (x instanceof Uint8Array) out.push(x.buffer as ArrayBuffer);
  }
  return out;
}
