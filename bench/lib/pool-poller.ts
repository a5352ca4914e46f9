/**
 * The sponsor pool over time: `GET /wallet-status` with a key at a fixed interval, the benched
 * network's entry flattened to its scalar fields (`utxos.free`, `utxos.reserved`, `sync.phase`,
 * and whatever the server adds — a target, maintenance in progress…). Arrays (per-wallet rows)
 * are left out.
 */
import { request } from './http.js';
import type { PoolSample } from './sustained-stats.js';

const TIMEOUT_MS = 5000;

export function flattenScalars(value: unknown, prefix = '', out: Record<string, number | string> = {}): Record<string, number | string> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return out;
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const path = prefix ? `${prefix}.${k}` : k;
    if (typeof v === 'number' || typeof v === 'string') out[path] = v;
    else if (typeof v === 'boolean') out[path] = String(v);
    else if (v !== null && typeof v === 'object' && !Array.isArray(v)) flattenScalars(v, path, out);
  }
  return out;
}

/** One reading of the pool; undefined when the server did not answer 200 with the network in it. */
export async function readPool(baseUrl: string, apiKey: string, network: string): Promise<PoolSample | undefined> {
  try {
    const r = await request(`${baseUrl}/wallet-status`, { headers: { 'x-api-key': apiKey }, timeoutMs: TIMEOUT_MS });
    if (r.status !== 200) return undefined;
    const entry = (JSON.parse(r.body.toString('utf8')) as Record<string, unknown>)[network];
    return entry === undefined ? undefined : { at: Date.now(), fields: flattenScalars(entry) };
  } catch {
    return undefined;
  }
}

export class PoolPoller {
  readonly samples: PoolSample[] = [];
  #timer: NodeJS.Timeout | undefined;
  #inFlight = false;

  constructor(
    private readonly baseUrl: string,
    private readonly apiKey: string,
    private readonly network: string,
    private readonly intervalMs: number,
  ) {}

  start(): void {
    void this.sample();
    this.#timer = setInterval(() => void this.sample(), this.intervalMs);
  }

  /** Takes a sample now (skipped while the previous one is still out). */
  async sample(): Promise<void> {
    if (this.#inFlight) return;
    this.#inFlight = true;
    const s = await readPool(this.baseUrl, this.apiKey, this.network);
    this.#inFlight = false;
    if (s) this.samples.push(s);
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}
