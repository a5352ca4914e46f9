/**
 * The soak's traffic: weighted operations over one keep-alive pool, sent by clients each paced to
 * its share of --rate, and WebSocket subscribers that come and go; counted per operation.
 */
import { performance } from 'node:perf_hooks';
import { Agent, request as undiciRequest } from 'undici';
import WebSocket from 'ws';
import { NETWORKS } from '../../src/core/config/index.js';
import { sleep } from '../lib/http.js';
import type { ProvingPayloads } from '../lib/proving-payloads.js';
import type { SoakArgs } from './args.js';
import { percentile } from './fit.js';

interface OpStats {
  count: number;
  statuses: Record<string, number>;
  latencies: number[];
}

type Op = { name: string; weight: number; run(signal?: AbortSignal): Promise<number> };

const CACHED = ['summary', 'latest-block', 'block-time', 'blocks-produced', 'uptime', 'epoch', 'd-parameter', 'night-supply', 'recent-transactions'];

const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)]!;

export interface TrafficInputs {
  base: string;
  port: number;
  key: string;
  payloads: ProvingPayloads;
  /** Distinct /prove bodies, cycled. */
  distinct: readonly Uint8Array[];
  /** Distinct unproven transfers for /prove-and-balance, cycled. */
  transfers: readonly Uint8Array[];
}

export class Traffic {
  /** The preview chain's height as last sampled: lookups range below it. */
  tip = 1;
  requests = 0;
  failures = 0;
  wsOpened = 0;
  wsMessages = 0;
  readonly #args: SoakArgs;
  readonly #port: number;
  readonly #agent: Agent;
  readonly #ops: Op[];
  readonly #totalWeight: number;
  readonly #stats: Map<string, OpStats>;

  constructor(args: SoakArgs, { base, port, key, payloads, distinct, transfers }: TrafficInputs) {
    this.#args = args;
    this.#port = port;
    const agent = (this.#agent = new Agent({ connections: args.concurrency * 2, keepAliveTimeout: 10_000 }));
    const keyed = { 'x-api-key': key, 'content-type': 'application/octet-stream' };
    let proveSeq = 0;
    let transferSeq = 0;
    const send = async (
      path: string,
      init: { method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: Uint8Array; signal?: AbortSignal } = {},
    ): Promise<number> => {
      const r = await undiciRequest(`${base}${path}`, {
        dispatcher: agent,
        method: init.method ?? 'GET',
        ...(init.headers ? { headers: init.headers } : {}),
        ...(init.body ? { body: init.body } : {}),
        ...(init.signal ? { signal: init.signal } : {}),
      });
      await r.body.dump();
      return r.statusCode;
    };
    this.#ops = [
      { name: 'cached stats', weight: 50, run: () => send(`/api/v1/${pick(NETWORKS)}/${pick(CACHED)}`) },
      { name: 'lookup block', weight: 10, run: () => send(`/api/v1/${pick(NETWORKS)}/block?height=${Math.floor(Math.random() * this.tip)}`) },
      { name: 'search height', weight: 4, run: () => send(`/api/v1/preview/search?q=${Math.floor(Math.random() * this.tip)}`) },
      { name: 'recent limit', weight: 3, run: () => send(`/api/v1/preview/recent-transactions?limit=${1 + Math.floor(Math.random() * 100)}`) },
      { name: 'prove new', weight: 8, run: () => send('/prove', { method: 'POST', headers: keyed, body: distinct[proveSeq++ % distinct.length]! }) },
      { name: 'prove repeat', weight: 6, run: () => send('/prove', { method: 'POST', headers: keyed, body: payloads.prove }) },
      { name: 'verify', weight: 4, run: () => send('/verify', { method: 'POST', headers: keyed, body: payloads.check }) },
      {
        name: 'prove-and-balance',
        weight: 2,
        run: () =>
          send('/prove-and-balance', {
            method: 'POST',
            headers: { ...keyed, 'x-midnight-network': 'preview' },
            body: transfers[transferSeq++ % transfers.length]!,
          }),
      },
      {
        name: 'refused (401/404/400)',
        weight: 6,
        run: () =>
          pick([
            () => send('/prove', { method: 'POST', headers: { ...keyed, 'x-api-key': 'wrong-key-0123456789' }, body: payloads.prove }),
            () => send('/no/such/route'),
            () => send('/api/v1/preview/block?height=x'),
          ])(),
      },
      {
        name: 'client disconnects',
        weight: args.aborts ? 3 : 0,
        run: async () => {
          const body = distinct[proveSeq++ % distinct.length]!;
          try {
            return await send(pick(['/prove', '/prove-and-balance']), {
              method: 'POST',
              headers: keyed,
              body: Math.random() < 0.5 ? body : transfers[transferSeq++ % transfers.length]!,
              signal: AbortSignal.timeout(1 + Math.floor(Math.random() * 30)),
            });
          } catch {
            return 499;
          }
        },
      },
    ];
    this.#totalWeight = this.#ops.reduce((a, o) => a + o.weight, 0);
    this.#stats = new Map<string, OpStats>(this.#ops.map((o) => [o.name, { count: 0, statuses: {}, latencies: [] }]));
  }

  /** One client until `endAt`: a weighted operation at a time, paced to its share of --rate. */
  async client(endAt: number): Promise<void> {
    const perClientGapMs = (1000 * this.#args.concurrency) / this.#args.rate;
    while (performance.now() < endAt) {
      const t0 = performance.now();
      let r = Math.random() * this.#totalWeight;
      const op = this.#ops.find((o) => (r -= o.weight) < 0) ?? this.#ops[0]!;
      const s = this.#stats.get(op.name)!;
      try {
        const status = await op.run();
        s.statuses[status] = (s.statuses[status] ?? 0) + 1;
      } catch (err) {
        this.failures++;
        const code = (err as { code?: string }).code ?? 'error';
        s.statuses[code] = (s.statuses[code] ?? 0) + 1;
      }
      const ms = performance.now() - t0;
      s.count++;
      if (s.latencies.length < 200_000) s.latencies.push(ms);
      this.requests++;
      if (ms < perClientGapMs) await sleep(perClientGapMs - ms);
    }
  }

  /** WebSocket subscribers until `endAt`: one connects every 5 s, waits for its first summary, and leaves. */
  async subscribers(endAt: number): Promise<void> {
    while (performance.now() < endAt) {
      await new Promise<void>((resolve) => {
        const ws = new WebSocket(`ws://127.0.0.1:${this.#port}/api/v1/${pick(NETWORKS)}/ws`);
        const done = (): void => {
          ws.terminate();
          resolve();
        };
        const timer = setTimeout(done, 10_000);
        ws.on('open', () => this.wsOpened++);
        ws.on('message', () => {
          this.wsMessages++;
          clearTimeout(timer);
          done();
        });
        ws.on('error', () => {
          clearTimeout(timer);
          done();
        });
      });
      await sleep(5_000);
    }
  }

  close(): Promise<void> {
    return this.#agent.close();
  }

  /** Per operation: how many, their statuses (or client-side error codes), and p50/p99 latency in ms. */
  byOp(): Record<string, { count: number; statuses: Record<string, number>; p50Ms: number; p99Ms: number }> {
    return Object.fromEntries(
      [...this.#stats].map(([name, s]) => {
        const sorted = [...s.latencies].sort((a, b) => a - b);
        return [
          name,
          {
            count: s.count,
            statuses: s.statuses,
            p50Ms: Math.round(percentile(sorted, 50) * 100) / 100,
            p99Ms: Math.round(percentile(sorted, 99) * 100) / 100,
          },
        ];
      }),
    );
  }
}
