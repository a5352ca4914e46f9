/**
 * An HTTP worker thread (server.threads > 1): a uWS app with the main thread's routes, handed
 * connections by the main thread's acceptor (main.ts). It answers the live replies the main
 * thread copied to it through the same pipeline as the main thread (header limits, framing, the
 * shared per-IP limit, CORS, compression, ETag/304, access log, request counts) and the unknown
 * paths (404/405) and CORS preflights; every other routed request is forwarded to the main
 * thread (protocol.ts) and its answer written back here.
 */
import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import type { DestinationStream } from 'pino';
import { systemClock } from '../../clock.js';
import { GatewayError, type ErrorCode } from '../../errors.js';
import { createLogger } from '../../log/log.js';
import { KeyStore } from '../../guards/auth.js';
import { SharedRateLimitStore } from '../../guards/shared-rate-limit.js';
// The thread's entry wires its own counter: the main thread can hand it settings, not objects.
import { RequestMetrics } from '../request-metrics.js';
import { Encoded } from '../compression.js';
import type { Reply, RouteDef } from '../route.js';
import { paramNamesCached } from '../endpoint.js';
import type { ChildApps } from '../lifecycle.js';
import { HttpServer } from '../server.js';
import { socketClosed } from '../refusal.js';
import { loadUws, type HttpRequest, type HttpResponse } from '../uws.js';
import { ownBytes, replicaKey, type ReplicaState, type ToMain, type ToWorker, type WorkerSetup } from './protocol.js';

/** Paths with a copy kept, at most (clients choose query strings: the rest is forwarded). */
const MAX_REPLICA_KEYS = 4096;
/**
 * How long a copy is served without word from the main thread. The statistics are re-rendered on
 * demand, when a request reaches their handler (stats/views.ts: at most once a second, and after
 * a new block); requests answered here reach no handler, so a copy the main thread has not renewed
 * for this long sends the next request for it there (one at a time; the others meanwhile still get
 * the copy): its answer renews the copy, or drops it when the main thread answers with something
 * else (an error, or no reply kept ahead any more).
 */
const REPLICA_FRESH_MS = 1_000;
/** Log text waiting for the end of the event-loop turn, at most, before it leaves. */
const LOG_BATCH_BYTES = 64 * 1024;

const port = parentPort!;
const setup = workerData as WorkerSetup;

function post(m: ToMain, transfer: ArrayBuffer[] = []): void {
  port.postMessage(m, transfer);
}

/** Log lines go to the main thread, a batch per event-loop turn (it owns stdout's bounded buffer). */
class PortDestination implements DestinationStream {
  private pending = '';
  private scheduled = false;
  write(line: string): void {
    this.pending += line;
    if (this.pending.length >= LOG_BATCH_BYTES) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }
  flush(): void {
    this.scheduled = false;
    if (this.pending === '') return;
    post({ t: 'log', text: this.pending });
    this.pending = '';
  }
}

/** A live reply as this thread keeps it: re-rendered in place when the main thread sends a new state. */
class Replica implements Reply {
  readonly status = 200;
  /** When the main thread last renewed it, or a request went there to renew it (performance.now()). */
  renewedAt = 0;
  /** Keys (ridByKey) filed under it: at none it is dropped. */
  keys = 0;
  body: Uint8Array = new Uint8Array(0);
  contentType: string | undefined;
  headers: Record<string, string> = {};
  headLines: string | undefined;
  encoded: Encoded | undefined;
  set(s: ReplicaState): void {
    const body = Buffer.from(s.body.buffer, s.body.byteOffset, s.body.byteLength);
    this.body = body;
    this.contentType = s.contentType;
    this.headers = s.headers;
    this.headLines = s.headLines;
    this.encoded = s.etag === undefined ? undefined : new Encoded(body, s.etag);
    this.renewedAt = performance.now();
  }
}

const byRid = new Map<number, Replica>();
const ridByKey = new Map<string, number>();

interface Forwarded {
  res: HttpResponse;
  aborted: boolean;
}
const pending = new Map<number, Forwarded>();
/** Forwarded requests that went to renew a copy (REPLICA_FRESH_MS): their key. */
const renewing = new Map<number, string>();
let nextId = 1;
const welcomes = new Map<number, (text: string | undefined) => void>();

const front = {
  take(route: RouteDef, index: number, res: HttpResponse, req: HttpRequest, head: boolean): boolean {
    const url = req.getUrl();
    const query = req.getQuery() ?? '';
    let renew: string | undefined;
    if (route.auth === 'none' && route.method === 'GET') {
      const key = replicaKey(url, query);
      const rid = ridByKey.get(key);
      const copy = rid === undefined ? undefined : byRid.get(rid);
      if (copy !== undefined) {
        const now = performance.now();
        if (now - copy.renewedAt < REPLICA_FRESH_MS) return false;
        copy.renewedAt = now;
        renew = key;
      }
    }
    const remote = res.getRemoteAddress();
    if (socketClosed(remote)) {
      // Read behind a refusal that closed its socket (refusal.ts): nothing to answer.
      res.close();
      return true;
    }
    const id = nextId++;
    const f: Forwarded = { res, aborted: false };
    pending.set(id, f);
    if (renew !== undefined) renewing.set(id, renew);
    res.onAborted(() => {
      f.aborted = true;
      renewing.delete(id);
      if (pending.delete(id)) post({ t: 'abort', id });
    });
    const headers: string[] = [];
    req.forEach((k, v) => void headers.push(k, v));
    const params: string[] = [];
    const n = paramNamesCached(route).length;
    for (let i = 0; i < n; i++) params.push(req.getParameter(i) ?? '');
    const peer = ownBytes(remote).buffer as ArrayBuffer;
    post({ t: 'req', id, index, head, method: req.getMethod(), url, query, headers, params, remote: peer, body: route.body !== undefined }, [peer]);
    if (route.body) {
      // Read as it arrives, up to one byte over the route's limit: past it the main thread answers 413.
      const room = route.body.limit + 1;
      let sent = 0;
      let stopped = false;
      res.onData((chunk, isLast) => {
        if (stopped) return;
        let n = chunk.byteLength;
        if (sent + n >= room) {
          n = room - sent;
          stopped = true;
        }
        sent += n;
        const own = chunk.slice(0, n);
        post({ t: 'body', id, chunk: own, last: isLast || stopped }, [own]);
      });
    }
    return true;
  },
};

function written(m: ToWorker & { t: 'res' }): void {
  const renewed = renewing.get(m.id);
  renewing.delete(m.id);
  if (m.replica) remember(m.replica.key, m.replica.rid, m.replica.state);
  else if (renewed !== undefined) forget(renewed);
  const f = pending.get(m.id);
  if (f === undefined || f.aborted) return;
  pending.delete(m.id);
  const res = f.res;
  res.cork(() => {
    if (m.kind === 'close') return void res.close();
    res.writeStatus(m.head);
    if (m.kind === 'empty') {
      if (m.close) res.endWithoutBody(0, true);
      else res.endWithoutBody();
    } else res.end(m.body ?? '', m.close);
  });
}

/**
 * File `state` under `key`. A key moves to the newest reply the main thread answered it with (a
 * reply made anew, as recent-transactions is for other limits on every block, has a new rid); a
 * copy no key refers to any more is dropped, so new rids cannot pile up.
 */
function remember(key: string, rid: number, state: ReplicaState): void {
  const filed = ridByKey.get(key);
  if (filed !== rid) {
    if (filed !== undefined) forget(key);
    else if (ridByKey.size >= MAX_REPLICA_KEYS) forget(ridByKey.keys().next().value!);
  }
  let r = byRid.get(rid);
  if (r === undefined) byRid.set(rid, (r = new Replica()));
  r.set(state);
  if (filed !== rid) {
    ridByKey.set(key, rid);
    r.keys++;
  }
}

function forget(key: string): void {
  const rid = ridByKey.get(key);
  if (rid === undefined) return;
  ridByKey.delete(key);
  const r = byRid.get(rid);
  if (r !== undefined && --r.keys <= 0) byRid.delete(rid);
}

const destination = new PortDestination();
const logger = createLogger(setup.log.level, destination).child({ module: 'http', thread: setup.thread });
const { uws } = loadUws();
const counter = setup.metrics ? new RequestMetrics(setup.log.requests !== 'none') : undefined;
const rl = setup.rateLimit;
const server = new HttpServer({
  uws,
  logger,
  clock: systemClock,
  // Every route that reads a key is forwarded: the main thread authenticates.
  keys: new KeyStore([], []),
  rateLimit: { ...rl, store: new SharedRateLimitStore(rl.algorithm, rl.maxEntries, setup.limiter) },
  trustedProxies: setup.server.trustedProxies,
  authFailures: undefined,
  maxHeaderBytes: setup.server.maxHeaderBytes,
  maxHeaders: setup.server.maxHeaders,
  requestLog: setup.log.requests,
  corsOrigins: setup.server.corsOrigins,
  wsConnectionsPerIp: setup.server.wsConnectionsPerIp,
  counter,
  front,
});

for (const shape of setup.routes) {
  server.add({
    ...shape,
    schema: { summary: '', tags: [], response: {} },
    // Reached only for a path with a copy (front.take forwards the rest).
    handler: (ctx) => {
      const rid = ridByKey.get(replicaKey(ctx.path, ctx.query));
      const r = rid === undefined ? undefined : byRid.get(rid);
      if (r === undefined) throw new GatewayError('INTERNAL', 'no copy of this reply in this thread');
      return r;
    },
  } as RouteDef);
}

for (const t of setup.topics) {
  server.addTopic({
    url: t.url,
    topicFor: (params) => {
      const found = t.table[JSON.stringify(params)] ?? t.otherwise;
      return typeof found === 'string' ? found : new GatewayError(found.code as ErrorCode, found.message);
    },
    welcome: (topic) =>
      new Promise<string | undefined>((resolve) => {
        const id = nextId++;
        welcomes.set(id, resolve);
        post({ t: 'welcome', id, topic });
      }),
  });
}
server.addFallbacks();

if (counter !== undefined) {
  setInterval(() => post({ t: 'metrics', routes: counter.routes(), errors: [...counter.errors()] }), 1_000).unref();
}

port.on('message', (m: ToWorker) => {
  switch (m.t) {
    case 'res':
      return written(m);
    case 'replica': {
      const r = byRid.get(m.rid);
      if (r !== undefined) r.set(m.state);
      return;
    }
    case 'welcome': {
      const resolve = welcomes.get(m.id);
      welcomes.delete(m.id);
      resolve?.(m.text);
      return;
    }
    case 'publish':
      return server.publish(m.topic, m.message);
    case 'shutdown':
      server.beginShutdown();
      destination.flush();
      return;
    case 'close':
      server.closeConnections();
      if (counter !== undefined) post({ t: 'metrics', routes: counter.routes(), errors: [...counter.errors()] });
      destination.flush();
      post({ t: 'closed' });
      port.close();
      return;
  }
});

post({ t: 'ready', descriptor: (server.app as unknown as ChildApps).getDescriptor() });
