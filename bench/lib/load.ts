/**
 * One load run, reduced to LoadFigures: autocannon in this process, or (for the cached summary and
 * its baselines, `generator: 'wrk'`) a wrk process (wrk.ts). autocannon's latencies are recorded
 * here from its per-response hrtime at 1 µs resolution: its own histogram keeps whole
 * milliseconds, too coarse for a 2 ms overhead budget or a sub-millisecond p50. Every run is
 * bounded: by its duration or request count, and by a hard stop after that plus the response
 * timeout.
 */
import { createHistogram } from 'node:perf_hooks';
import autocannon, { type Options, type RequestSpec } from 'autocannon';
import { backgroundCpuMicros, cpuMicros, rssMiB } from './processes.js';
import type { LoadFigures } from './types.js';
import { WRK_OK, runWrk, type GeneratorRun } from './wrk.js';

const RSS_SAMPLE_MS = 200;
const HARD_STOP_SLACK_S = 15;
const MAX_AMOUNT_RUN_S = 120;

export interface LoadSpec {
  /** Full URL; `requests[].path` replaces its path when given. */
  url: string;
  connections: number;
  /** Seconds; ignored when `amount` is set. */
  durationS: number;
  /** Stop after exactly this many requests instead of after `durationS`. */
  amount?: number;
  /** Unmeasured run first, with the same requests (seconds; 0 = none). */
  warmupS?: number;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: Buffer;
  requests?: RequestSpec[];
  /** Overall requests per second cap. */
  rate?: number;
  /** Requests each connection keeps in flight (HTTP/1.1 pipelining); default 1. */
  pipelining?: number;
  /** Seconds to wait for one response. */
  timeoutS?: number;
  /** Server pid whose RSS is sampled and whose CPU time is counted during the run. */
  pid?: number;
  /**
   * The local nightgate process, whether or not it is the server under test: the CPU time of its
   * threads other than the HTTP thread (devnet block production, DUST sync, provers) during the run
   * is reported, so that runs against nightgate and against a baseline show the same background.
   */
  backgroundPid?: number;
  /** Load from a wrk process instead of autocannon: one GET of `url`, nothing else of the above. */
  generator?: 'wrk';
}

/** Requests per connection in flight, when more than one. */
function pipeliningOf(spec: LoadSpec): number | undefined {
  return spec.pipelining !== undefined && spec.pipelining > 1 ? spec.pipelining : undefined;
}

function options(spec: LoadSpec, durationS: number): Options {
  const pipelining = pipeliningOf(spec);
  return {
    url: spec.url,
    connections: spec.connections,
    duration: durationS,
    timeout: spec.timeoutS ?? 10,
    ...(spec.method ? { method: spec.method } : {}),
    ...(spec.headers ? { headers: spec.headers } : {}),
    ...(spec.body ? { body: spec.body } : {}),
    ...(spec.requests ? { requests: spec.requests } : {}),
    ...(spec.rate ? { overallRate: spec.rate } : {}),
    ...(pipelining ? { pipelining } : {}),
  };
}

/**
 * One autocannon run. The duration is timed here, from the start to the last response:
 * autocannon reports its own only at its next one-second sample tick after the run ends, which
 * for a run bounded by a request count (a few seconds) understated throughput by up to a third.
 */
async function bounded(
  opts: Options,
  boundS: number,
  onResponse?: (status: number, ms: number) => void,
): Promise<{ durationS: number; errors: number; timeouts: number }> {
  const started = performance.now();
  let last = started;
  const instance = autocannon(opts);
  instance.on('response', (_client, status, _bytes, ms) => {
    last = performance.now();
    onResponse?.(status, ms);
  });
  const hardStop = setTimeout(() => instance.stop(), boundS * 1000);
  try {
    const result = await instance;
    return { durationS: last > started ? (last - started) / 1000 : result.duration, errors: result.errors, timeouts: result.timeouts };
  } finally {
    clearTimeout(hardStop);
  }
}

/** What wrk can do here: load one URL with GETs, as fast as it can. */
function wrkRefusal(spec: LoadSpec): string | undefined {
  const extra = (['amount', 'method', 'headers', 'body', 'requests', 'rate', 'pipelining'] as const).filter(
    (k) => spec[k] !== undefined && !(k === 'method' && spec.method === 'GET') && !(k === 'pipelining' && spec.pipelining === 1),
  );
  return extra.length ? `wrk runs here only plain GETs of one URL; this run also asks for ${extra.join(', ')}` : undefined;
}

/** The autocannon run, with its latencies recorded per response. */
async function autocannonRun(spec: LoadSpec, boundS: number): Promise<GeneratorRun> {
  const hist = createHistogram();
  const status: Record<string, number> = {};
  let responses = 0;
  const opts = options(spec, spec.durationS);
  if (spec.amount !== undefined) opts.amount = spec.amount;
  const run = await bounded(opts, boundS, (code, ms) => {
    responses++;
    status[code] = (status[code] ?? 0) + 1;
    hist.record(Math.max(1, Math.round(ms * 1000)));
  });
  const ms = (us: number): number => (responses === 0 ? 0 : us / 1000);
  return {
    durationS: run.durationS,
    responses,
    status,
    errors: run.errors,
    timeouts: run.timeouts,
    latencyMs: { p50: ms(hist.percentile(50)), p90: ms(hist.percentile(90)), p99: ms(hist.percentile(99)), max: ms(hist.max), mean: ms(hist.mean) },
  };
}

export async function runLoad(spec: LoadSpec): Promise<LoadFigures> {
  const pipelining = pipeliningOf(spec);
  const timeoutS = spec.timeoutS ?? 10;
  const wrk = spec.generator === 'wrk';
  if (wrk) {
    const refused = wrkRefusal(spec);
    if (refused) throw new Error(refused);
  }
  const wrkFor = (durationS: number): Promise<GeneratorRun> => runWrk({ url: spec.url, connections: spec.connections, durationS, timeoutS });
  if (spec.warmupS && spec.warmupS > 0) {
    if (wrk) await wrkFor(spec.warmupS);
    else await bounded(options(spec, spec.warmupS), spec.warmupS + timeoutS + HARD_STOP_SLACK_S);
  }

  let rssMax: number | undefined;
  const sample = (): void => {
    const rss = spec.pid === undefined ? undefined : rssMiB(spec.pid);
    if (rss !== undefined) rssMax = Math.max(rssMax ?? 0, rss);
  };
  const sampler = spec.pid === undefined ? undefined : setInterval(sample, RSS_SAMPLE_MS);
  sample();
  const cpu0 = spec.pid === undefined ? undefined : cpuMicros(spec.pid);
  const background0 = spec.backgroundPid === undefined ? undefined : backgroundCpuMicros(spec.backgroundPid);
  const backgroundFrom = performance.now();

  // An amount-bounded run (distinct transactions) takes as long as its requests need, up to a cap:
  // below amount/MAX_AMOUNT_RUN_S per second, what was answered by then is the result.
  const boundS =
    spec.amount !== undefined
      ? Math.min(Math.ceil(spec.amount / spec.connections) * timeoutS, MAX_AMOUNT_RUN_S) + HARD_STOP_SLACK_S
      : spec.durationS + timeoutS + HARD_STOP_SLACK_S;
  let run: GeneratorRun;
  try {
    run = wrk ? await wrkFor(spec.durationS) : await autocannonRun(spec, boundS);
  } finally {
    if (sampler) clearInterval(sampler);
  }
  sample();
  const cpu1 = spec.pid === undefined ? undefined : cpuMicros(spec.pid);
  const { responses } = run;
  const cpuPerRequest = cpu0 !== undefined && cpu1 !== undefined && responses > 0 ? (cpu1 - cpu0) / responses : undefined;
  const background1 = spec.backgroundPid === undefined ? undefined : backgroundCpuMicros(spec.backgroundPid);
  // Over the time between the two readings (a run bounded by a request count resolves up to a
  // second after its last response), in % of one core: µs ÷ (ms × 10).
  const backgroundMs = performance.now() - backgroundFrom;
  const backgroundCorePct =
    background0 !== undefined && background1 !== undefined && backgroundMs > 0 ? (background1 - background0) / (backgroundMs * 10) : undefined;

  return {
    connections: spec.connections,
    ...(pipelining ? { pipelining } : {}),
    ...(wrk ? { generator: 'wrk' as const } : {}),
    durationS: run.durationS,
    responses,
    rps: run.durationS > 0 ? responses / run.durationS : 0,
    latencyMs: run.latencyMs,
    status: run.status,
    errors: run.errors,
    timeouts: run.timeouts,
    ...(rssMax !== undefined ? { rssMaxMiB: rssMax } : {}),
    ...(cpuPerRequest !== undefined ? { serverCpuUsPerRequest: cpuPerRequest } : {}),
    ...(backgroundCorePct !== undefined ? { backgroundCorePct } : {}),
  };
}

/** The status that most responses got, e.g. `200`; `none` when nothing answered. */
export function dominantStatus(load: LoadFigures): string {
  let best = 'none';
  let count = 0;
  for (const [code, n] of Object.entries(load.status)) {
    if (n > count) {
      best = code;
      count = n;
    }
  }
  return best;
}

/** Whether most responses succeeded: `200`, or `2xx/3xx` where wrk counted them (it tells no more). */
export function mostlyOk(load: LoadFigures): boolean {
  const s = dominantStatus(load);
  return s === '200' || s === WRK_OK;
}
