/**
 * `server.threads` above 1, the main thread's side. An acceptor app holds the port and hands each
 * new connection, round-robin, to the main thread's app or one of N−1 worker threads' apps
 * (uWS 20.57's child apps; the 20.30 build has none and refuses the setting at start).
 *
 * A worker answers on its own what the main thread copied to it: live replies (the cached
 * statistics, the API description), each copied the first time a worker forwards a request the
 * main thread answers with one, and again on every re-render, so a copy is never more than one
 * message behind a re-render; replies rendered on demand are renewed by a request the worker
 * forwards once its copy is a second old (worker.ts, REPLICA_FRESH_MS). Every other routed
 * request is forwarded here and runs through this thread's
 * pipeline as if it had arrived here (auth, limits, budgets, proving, sponsorship, access log,
 * metrics); its answer goes back as the bytes that pipeline wrote. The per-IP limiter is one
 * table in shared memory for all threads; workers' log lines and request counts come here (the
 * main thread owns stdout's bounded buffer and /metrics).
 */
import { pino, type Logger } from 'pino';
import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from '@nightgate/threads';
import type { RateLimitResult, RateLimitScope, RateLimitStore } from '../../guards/rate-limit.js';
import { liveReplies, type Reply } from '../route.js';
import type { ChildApps } from '../lifecycle.js';
import type { ThreadCountSink } from '../request-counter.js';
import type { HttpServer } from '../server.js';
import type { TopicRoute } from '../topics.js';
import type { HttpRequest, HttpResponse, TemplatedApp, Uws } from '../uws.js';
import {
  ownBytes,
  replicaKey,
  transferOf,
  type ReplicaState,
  type RouteShape,
  type ToMain,
  type ToWorker,
  type TopicShape,
  type WorkerSetup,
} from './protocol.js';

/** Whether this uWS build can hand connections to other threads' apps. */
export function childAppsSupported(uws: Uws): boolean {
  return typeof (uws.App() as unknown as Partial<ChildApps>).addChildAppDescriptor === 'function';
}

/** Per-IP counts in the shared table, per-key counts where they were (memory or Redis). */
export class ScopedRateLimitStore implements RateLimitStore {
  constructor(
    private readonly ip: RateLimitStore,
    private readonly key: RateLimitStore,
  ) {}
  hit(scope: RateLimitScope, id: string, limit: number, windowMs: number, now: number): RateLimitResult | Promise<RateLimitResult> {
    return (scope === 'ip' ? this.ip : this.key).hit(scope, id, limit, windowMs, now);
  }
  get size(): number {
    return this.ip.size + this.key.size;
  }
}

interface ThreadsOptions {
  count: number;
  server: HttpServer;
  uws: Uws;
  topics: readonly TopicRoute[];
  logger: Logger;
  /** Where the workers' log lines go: the destination of the main thread's logger. */
  write: (text: string) => void;
  /** Adds up the request counts the workers send (undefined: requests are not counted). */
  counts: ThreadCountSink | undefined;
  setup: Omit<WorkerSetup, 'thread' | 'routes' | 'topics'>;
}

/** The main thread's stand-in for uWS's request, from what the worker read off the real one. */
class ForwardedRequest {
  constructor(private readonly m: Extract<ToMain, { t: 'req' }>) {}
  forEach(cb: (key: string, value: string) => void): void {
    const h = this.m.headers;
    for (let i = 0; i < h.length; i += 2) cb(h[i]!, h[i + 1]!);
  }
  getHeader(name: string): string {
    const h = this.m.headers;
    for (let i = 0; i < h.length; i += 2) if (h[i] === name) return h[i + 1]!;
    return '';
  }
  getUrl(): string {
    return this.m.url;
  }
  getQuery(): string {
    return this.m.query;
  }
  getMethod(): string {
    return this.m.method;
  }
  getParameter(i: number): string | undefined {
    return this.m.params[i];
  }
}

/** The main thread's stand-in for uWS's response: what the pipeline writes goes back to the worker. */
class ForwardedResponse {
  private head = '';
  private abortHandler: (() => void) | undefined;
  private dataHandler: ((chunk: ArrayBuffer, last: boolean) => void) | undefined;
  private early: Array<[ArrayBuffer, boolean]> = [];
  replica: { key: string; rid: number; state: ReplicaState } | undefined;
  finished = false;

  constructor(
    private readonly link: WorkerLink,
    readonly id: number,
    private readonly remote: ArrayBuffer,
  ) {}

  getRemoteAddress(): ArrayBuffer {
    return this.remote;
  }
  cork(fn: () => void): this {
    fn();
    return this;
  }
  onAborted(handler: () => void): this {
    this.abortHandler = handler;
    return this;
  }
  onData(handler: (chunk: ArrayBuffer, last: boolean) => void): this {
    this.dataHandler = handler;
    for (const [chunk, last] of this.early) handler(chunk, last);
    this.early = [];
    return this;
  }
  writeStatus(head: string): this {
    this.head += head;
    return this;
  }
  end(body: string | Uint8Array | ArrayBuffer | undefined, close = false): this {
    return this.send('end', body === undefined ? undefined : typeof body === 'string' ? body : ownBytes(body), close);
  }
  endWithoutBody(_length?: number, close = false): this {
    return this.send('empty', undefined, close);
  }
  close(): this {
    return this.send('close', undefined, true);
  }

  /** From the worker: a piece of the body, or the client left. */
  chunk(chunk: ArrayBuffer, last: boolean): void {
    if (this.dataHandler) this.dataHandler(chunk, last);
    else this.early.push([chunk, last]);
  }
  aborted(): void {
    this.finished = true;
    this.abortHandler?.();
  }

  private send(kind: 'end' | 'empty' | 'close', body: string | Uint8Array | undefined, close: boolean): this {
    if (this.finished) return this;
    this.finished = true;
    this.link.answered(this, { t: 'res', id: this.id, kind, head: this.head, body, close, ...(this.replica ? { replica: this.replica } : {}) });
    return this;
  }
}

/** One worker thread, its pending forwarded requests and its app's descriptor. */
class WorkerLink {
  readonly pending = new Map<number, ForwardedResponse>();
  descriptor: number | undefined;
  closed: Promise<void>;
  private onClosed!: () => void;

  constructor(
    readonly threads: HttpThreads,
    readonly worker: Worker,
    readonly thread: number,
  ) {
    this.closed = new Promise((resolve) => (this.onClosed = resolve));
    worker.on('exit', () => this.onClosed());
  }

  post(m: ToWorker, transfer: ArrayBuffer[] = []): void {
    this.worker.postMessage(m, transfer);
  }

  answered(res: ForwardedResponse, m: ToWorker & { t: 'res' }): void {
    this.pending.delete(res.id);
    this.post(m, transferOf(m.body, m.replica?.state.body));
  }

  closedNow(): void {
    this.onClosed();
  }
}

export class HttpThreads {
  /** Holds the port; hands connections to the apps (server.listen adds the main thread's). */
  readonly acceptor: TemplatedApp;
  private readonly links: WorkerLink[] = [];
  private readonly rids = new WeakMap<Reply, number>();
  private nextRid = 1;
  private readonly log: Logger;
  /** Each topic route's shape (its topics for the known parameters), made once at start. */
  private shapes: TopicShape[] = [];

  private constructor(private readonly opts: ThreadsOptions) {
    this.acceptor = opts.uws.App();
    this.log = opts.logger;
  }

  /** Start count−1 worker threads, each with an app serving the routes `server` has; resolves once all are ready. */
  static async start(opts: ThreadsOptions): Promise<HttpThreads> {
    const threads = new HttpThreads(opts);
    await threads.spawn();
    return threads;
  }

  private async spawn(): Promise<void> {
    const { server, topics } = this.opts;
    const routes: RouteShape[] = server.routeList.map((r) => ({
      method: r.method,
      url: r.url,
      auth: r.auth,
      rateLimit: r.rateLimit,
      body: r.body,
      readHeaders: r.readHeaders,
    }));
    const topicShapes = (this.shapes = topics.map(topicShape));
    liveReplies.listeners.add(this.onChanged);
    const ready: Array<Promise<void>> = [];
    for (let thread = 1; thread < this.opts.count; thread++) {
      const setup: WorkerSetup = { ...this.opts.setup, thread, routes, topics: topicShapes };
      const worker = startModuleWorker(new URL('./worker', import.meta.url), import.meta.url, { workerData: setup, name: `nightgate-http-${thread}` });
      const link = new WorkerLink(this, worker, thread);
      this.links.push(link);
      ready.push(
        new Promise((resolve, reject) => {
          worker.once('error', reject);
          worker.on('message', (m: ToMain) => {
            if (m.t === 'ready') {
              link.descriptor = m.descriptor;
              (this.acceptor as unknown as ChildApps).addChildAppDescriptor(m.descriptor);
              resolve();
            } else this.receive(link, m);
          });
          worker.once('exit', (code) => reject(new Error(`HTTP thread ${thread} exited (${code}) before it was ready`)));
        }),
      );
    }
    try {
      await Promise.all(ready);
    } catch (err) {
      await this.terminate();
      throw err;
    }
    for (const link of this.links) {
      link.worker.on('error', (err) => this.log.error({ err, thread: link.thread }, 'HTTP thread failed'));
    }
    this.log.info({ threads: this.opts.count }, 'HTTP threads ready: connections spread over the main thread and worker threads');
  }

  private receive(link: WorkerLink, m: ToMain): void {
    switch (m.t) {
      case 'req': {
        const res = new ForwardedResponse(link, m.id, m.remote);
        link.pending.set(m.id, res);
        const shape = this.opts.server.routeList[m.index];
        const replicable = shape !== undefined && shape.auth === 'none' && shape.method === 'GET';
        this.opts.server.serveForwarded(m.index, res as unknown as HttpResponse, new ForwardedRequest(m) as unknown as HttpRequest, m.head, (reply) => {
          if (replicable && reply.live === true && (reply.status ?? 200) === 200)
            res.replica = { key: replicaKey(m.url, m.query), rid: this.ridOf(reply), state: stateOf(reply) };
        });
        return;
      }
      case 'body':
        link.pending.get(m.id)?.chunk(m.chunk, m.last);
        return;
      case 'abort': {
        const res = link.pending.get(m.id);
        link.pending.delete(m.id);
        res?.aborted();
        return;
      }
      case 'welcome': {
        const topic = this.opts.topics.find((t, i) => t.welcome !== undefined && Object.values(this.shapes[i]!.table).includes(m.topic));
        Promise.resolve(topic?.welcome?.(m.topic)).then(
          (text) => link.post({ t: 'welcome', id: m.id, text }),
          () => link.post({ t: 'welcome', id: m.id, text: undefined }),
        );
        return;
      }
      case 'log':
        this.opts.write(m.text);
        return;
      case 'metrics':
        this.opts.counts?.absorbThread(link.thread, m.routes, m.errors);
        return;
      case 'closed':
        link.closedNow();
        return;
      case 'ready':
        return;
    }
  }

  private ridOf(reply: Reply): number {
    let rid = this.rids.get(reply);
    if (rid === undefined) this.rids.set(reply, (rid = this.nextRid++));
    return rid;
  }

  private readonly onChanged = (reply: Reply): void => this.changed(reply);

  /** A live reply was re-rendered: the workers holding a copy get the new state. */
  private changed(reply: Reply): void {
    const rid = this.rids.get(reply);
    if (rid === undefined) return;
    for (const link of this.links) {
      const state = stateOf(reply);
      link.post({ t: 'replica', rid, state }, transferOf(state.body));
    }
  }

  publish(topic: string, message: string): void {
    for (const link of this.links) link.post({ t: 'publish', topic, message });
  }

  /** Stop handing out connections; the workers answer 503 SHUTTING_DOWN from now on, as this thread does. */
  beginShutdown(): void {
    for (const link of this.links) {
      if (link.descriptor !== undefined) (this.acceptor as unknown as ChildApps).removeChildAppDescriptor(link.descriptor);
      link.post({ t: 'shutdown' });
    }
  }

  /** End the workers' connections and the workers (nothing is in flight any more). */
  async close(): Promise<void> {
    liveReplies.listeners.delete(this.onChanged);
    for (const link of this.links) link.post({ t: 'close' });
    const deadline = new Promise<void>((resolve) => setTimeout(resolve, 2_000).unref());
    await Promise.race([Promise.all(this.links.map((l) => l.closed)), deadline]);
    await this.terminate();
  }

  private async terminate(): Promise<void> {
    await Promise.all(this.links.map((l) => l.worker.terminate().catch(() => undefined)));
    for (const link of this.links) {
      for (const res of link.pending.values()) res.aborted();
      link.pending.clear();
    }
  }
}

function stateOf(reply: Reply): ReplicaState {
  const body = typeof reply.body === 'string' ? new Uint8Array(Buffer.from(reply.body)) : ownBytes(reply.body);
  return { body, contentType: reply.contentType, headers: { ...reply.headers }, headLines: reply.headLines, etag: reply.encoded?.etag };
}

/** The topics of known parameter sets (the networks), and the refusal for the rest, computed here once. */
function topicShape(t: TopicRoute): TopicShape {
  const table: TopicShape['table'] = {};
  for (const params of t.known ?? []) {
    const found = t.topicFor(params);
    table[JSON.stringify(params)] = typeof found === 'string' ? found : { code: found.code, message: found.message };
  }
  const other = t.topicFor(Object.fromEntries(Object.keys(t.known?.[0] ?? {}).map((k) => [k, '\u0000'])));
  const otherwise = typeof other === 'string' ? { code: 'NOT_FOUND', message: undefined } : { code: other.code, message: other.message };
  return { url: t.url, table, otherwise };
}

/** The destination a pino logger writes to: the workers' lines join the main thread's there. */
export function destinationOf(logger: Logger): (text: string) => void {
  const stream = (logger as unknown as Record<symbol, { write(s: string): void } | undefined>)[pino.symbols.streamSym];
  return (text) => stream?.write(text);
}
