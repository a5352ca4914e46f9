/**
 * The performance targets, stated here and nowhere else, judged from one run's
 * measurements. Ratios compare figures taken in the same run on the same machine. A target whose
 * figure is missing, or rests on mostly failed requests, gets no verdict.
 */
import { dominantStatus, mostlyOk } from './load.js';
import type { Measurement, TargetCheck, Verdict } from './types.js';

/** The targets' figures, the shipped defaults' own ratio among them. */
export const TARGETS = {
  vsRawUws: 0.9,
  /** The server as shipped (access log on, per-IP limit on): `nightgate-defaults` rows. */
  defaultsVsRawUws: 0.8,
  vsFastify: 2,
  cachedP99Ms: 5,
  cachedP99Connections: 100,
  balanceTxPerS: 100,
  balanceP50Ms: 30,
  upstreamAddedP50Ms: 2,
  allocatorPairsPerS: 5_000_000,
  idleRssBaseMiB: 150,
  idleRssPerWorkerMiB: 100,
  loopDelayP99Ms: 10,
} as const;

/**
 * A repeat of a run at the targets' connection level carries this word and its number in its
 * variant (`c=100 round 2`): the targets take the median over the rounds.
 */
export const ROUND = 'round';

/**
 * The pipelined comparison carries this word and its depth in its variant (`c=100 pipelined 10`):
 * the same runs with HTTP/1.1 pipelining, shown beside the plain ones and never mixed into the
 * medians the targets are judged on (the targets are about clients that do not pipeline).
 */
export const PIPELINED = 'pipelined';

export function isPipelined(m: Measurement): boolean {
  return m.variant.includes(` ${PIPELINED} `);
}

/**
 * The wrk rounds carry this word after the connection count (`c=100 wrk`, `c=100 wrk round 2`):
 * the same comparison with wrk as the load generator (wrk.ts), judged on its own medians.
 */
export const WRK = 'wrk';

export function isWrk(m: Measurement): boolean {
  return m.load?.generator === 'wrk' || / wrk( |$)/.test(m.variant);
}

/** The variant without its round: `c=100 round 2` → `c=100`. */
export function baseVariant(variant: string): string {
  const i = variant.indexOf(` ${ROUND} `);
  return i < 0 ? variant : variant.slice(0, i);
}

/** Whether a measurement repeats an earlier one (tables and charts show the first round). */
export function isRepeat(m: Measurement): boolean {
  return m.variant !== baseVariant(m.variant);
}

export function median(xs: readonly number[]): number | undefined {
  if (xs.length === 0) return undefined;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid] : (s[mid - 1]! + s[mid]!) / 2;
}

const f = (n: number, d = 2): string => n.toLocaleString('en-US', { maximumFractionDigits: d });

function find(ms: readonly Measurement[], scenario: string, variant: string, target: string): Measurement | undefined {
  return ms.find((m) => m.scenario === scenario && m.variant === variant && m.target === target);
}

/** Why a load measurement cannot carry a verdict, if it cannot. */
function unusable(m: Measurement | undefined): string | undefined {
  if (!m) return 'not measured';
  if (m.skipped) return m.skipped;
  if (m.load && !mostlyOk(m.load)) return `most responses were ${dominantStatus(m.load)}`;
  return undefined;
}

function check(
  name: string,
  threshold: string,
  measured: number | undefined,
  ok: (v: number) => boolean,
  fmt: (v: number) => string,
  why?: string,
  note?: string,
): TargetCheck {
  if (why !== undefined || measured === undefined || !Number.isFinite(measured)) {
    return {
      name,
      threshold,
      measured: measured === undefined || !Number.isFinite(measured) ? '–' : fmt(measured),
      verdict: 'n/a',
      note: why ?? 'not measured',
    };
  }
  const verdict: Verdict = ok(measured) ? 'pass' : 'fail';
  return { name, threshold, measured: fmt(measured), verdict, ...(note ? { note } : {}) };
}

/**
 * The nightgate configurations the cached summary is measured in: `nightgate` is the tuned one
 * (access log off, as every other scenario runs it); `nightgate-defaults` the shipped defaults
 * (access log on, per-IP limit on, raised so nothing is refused), a second process reading the
 * first one's devnets (run-target.ts).
 */
export const OURS = ['nightgate', 'nightgate-defaults'] as const;

/** Cached summary throughput over a baseline's, at each connection level measured. */
export interface Ratio {
  /** Which nightgate configuration (OURS). */
  ours: string;
  connections: number;
  /** The variant of the pair (`c=100`, `c=100 round 2`). */
  variant: string;
  baseline: string;
  /** Throughput: ours ÷ baseline's. */
  ratio: number | undefined;
  /** Main-thread CPU time per request: baseline's ÷ ours (> 1 means we spend less CPU per request). */
  cpuRatio: number | undefined;
  why?: string;
}

export function ratios(ms: readonly Measurement[]): Ratio[] {
  const out: Ratio[] = [];
  for (const m of ms) {
    if (m.scenario !== 'baselines' || !m.load) continue;
    for (const target of OURS) {
      const ours = find(ms, 'cached-summary', m.variant, target);
      // The defaults are measured only where the runner started them: no row, no ratio.
      if (!ours && target !== 'nightgate') continue;
      const why = unusable(ours) ?? unusable(m);
      const ratio = ours?.load && m.load.rps > 0 ? ours.load.rps / m.load.rps : undefined;
      const oursCpu = ours?.load?.serverCpuUsPerRequest;
      const theirsCpu = m.load.serverCpuUsPerRequest;
      const cpuRatio = oursCpu !== undefined && theirsCpu !== undefined && oursCpu > 0 ? theirsCpu / oursCpu : undefined;
      out.push({ ours: target, connections: m.load.connections, variant: m.variant, baseline: m.target, ratio, cpuRatio, ...(why ? { why } : {}) });
    }
  }
  return out;
}

/** The figure among `figures` whose name matches, for benches whose exact field names we do not own. */
function figure(m: Measurement | undefined, pattern: RegExp): number | undefined {
  for (const [k, v] of Object.entries(m?.figures ?? {})) if (pattern.test(k) && typeof v === 'number') return v;
  return undefined;
}

/**
 * The cached-route targets over the rounds whose variant (without its round) is `variant`:
 * `c=100` (autocannon) or `c=100 wrk`. `label` qualifies the target names.
 */
function cachedChecks(ms: readonly Measurement[], variant: string, label: string, ours: (typeof OURS)[number] = 'nightgate'): TargetCheck[] {
  const out: TargetCheck[] = [];
  const c = TARGETS.cachedP99Connections;
  const defaults = ours === 'nightgate-defaults';
  const name = defaults ? 'cached summary, defaults,' : 'cached summary';
  const atLevel = ratios(ms).filter((r) => r.ours === ours && r.connections === c && baseVariant(r.variant) === variant);
  // Rounds that could not run (wrk not installed, a run that failed) say why.
  const notRun = ms.find((m) => m.skipped !== undefined && baseVariant(m.variant) === variant)?.skipped;
  // With several interleaved rounds, the median of each ratio, the rounds listed in the note with
  // their spread (highest − lowest). Ratios with three decimals: 1.7975 must not read "1.8 ×"
  // next to a failed "≥ 1.8 ×".
  const rounds = (xs: ReadonlyArray<number | undefined>): string | undefined => {
    if (xs.length <= 1) return undefined;
    const known = xs.filter((x): x is number => x !== undefined);
    const spread = known.length > 1 ? `; spread ${f(Math.max(...known) - Math.min(...known), 3)}` : '';
    return `median of ${xs.length} interleaved rounds: ${xs.map((x) => (x === undefined ? '–' : f(x, 3))).join(', ')}${spread}`;
  };
  const minRaw = defaults ? TARGETS.defaultsVsRawUws : TARGETS.vsRawUws;
  for (const [baseline, min] of [
    ['raw-uws', minRaw],
    ['fastify', TARGETS.vsFastify],
  ] as const) {
    const rs = atLevel.filter((x) => x.baseline === baseline);
    const usable = rs.filter((x) => x.why === undefined);
    const why = rs.length === 0 ? (notRun ?? 'not measured') : usable.length === 0 ? rs[0]!.why : undefined;
    const throughput = usable.map((x) => x.ratio).filter((x): x is number => x !== undefined);
    const cpu = usable.map((x) => x.cpuRatio).filter((x): x is number => x !== undefined);
    out.push(
      check(
        `${name} vs ${baseline} (c=${c}${label})`,
        `≥ ${min} ×`,
        median(throughput),
        (v) => v >= min,
        (v) => `${f(v, 3)} ×`,
        why,
        rounds(usable.map((x) => x.ratio)),
      ),
    );
    // The same comparison in server CPU time per request, which a busy machine distorts least.
    out.push(
      check(
        `${name} vs ${baseline} (c=${c}${label}), main-thread CPU per request`,
        `≥ ${min} ×`,
        median(cpu),
        (v) => v >= min,
        (v) => `${f(v, 3)} ×`,
        why,
        rounds(usable.map((x) => x.cpuRatio)),
      ),
    );
  }
  const summaries = ms.filter((m) => m.scenario === 'cached-summary' && m.target === ours && baseVariant(m.variant) === variant);
  const usableSummaries = summaries.filter((m) => unusable(m) === undefined);
  const p99s = usableSummaries.map((m) => m.load!.latencyMs.p99);
  out.push(
    check(
      `${name} p99 (c=${c}${label})`,
      `≤ ${TARGETS.cachedP99Ms} ms`,
      median(p99s),
      (v) => v <= TARGETS.cachedP99Ms,
      (v) => `${f(v)} ms`,
      usableSummaries.length === 0 ? (summaries[0] ? unusable(summaries[0]) : (notRun ?? 'not measured')) : undefined,
      rounds(p99s),
    ),
  );
  return out;
}

export function evaluateTargets(ms: readonly Measurement[]): TargetCheck[] {
  const c = TARGETS.cachedP99Connections;
  const out = cachedChecks(ms, `c=${c}`, '');
  // The wrk rounds, when the run has them (full local runs; a note when wrk is not installed).
  if (ms.some((m) => baseVariant(m.variant) === `c=${c} ${WRK}`)) out.push(...cachedChecks(ms, `c=${c} ${WRK}`, `, ${WRK}`));
  // The shipped defaults, where the run measured them (full local runs).
  for (const v of [`c=${c}`, `c=${c} ${WRK}`]) {
    if (ms.some((m) => m.target === 'nightgate-defaults' && baseVariant(m.variant) === v))
      out.push(...cachedChecks(ms, v, v === `c=${c}` ? '' : `, ${WRK}`, 'nightgate-defaults'));
  }

  // Throughput at saturation (the run with the most connections); p50 of one sponsorship from the
  // run with one connection per prover thread (at saturation p50 ≈ connections ÷ throughput).
  const runs = ms
    .filter((m) => m.scenario === 'balance-only' && m.target === 'nightgate' && m.variant.startsWith('dev'))
    .sort((a, b) => (a.load?.connections ?? 0) - (b.load?.connections ?? 0));
  const saturated = runs[runs.length - 1];
  const single = runs[0];
  const sWhy = unusable(saturated);
  out.push(
    check(
      '/balance-only throughput (dev)',
      `≥ ${TARGETS.balanceTxPerS} tx/s`,
      saturated?.load?.rps,
      (v) => v >= TARGETS.balanceTxPerS,
      (v) => `${f(v, 1)} tx/s`,
      sWhy,
      saturated?.load ? `${saturated.load.responses} requests, ${saturated.load.connections} connections` : undefined,
    ),
  );
  out.push(
    check(
      '/balance-only p50 (dev)',
      `≤ ${TARGETS.balanceP50Ms} ms`,
      single?.load?.latencyMs.p50,
      (v) => v <= TARGETS.balanceP50Ms,
      (v) => `${f(v)} ms`,
      unusable(single),
      single?.load ? `${single.load.responses} requests, ${single.load.connections} connections (one per prover thread)` : undefined,
    ),
  );

  const added = find(ms, 'upstream-prove', 'added', 'nightgate');
  // Every round's runs must be usable, not just the first's.
  const upstreamRuns = ms.filter((m) => m.scenario === 'upstream-prove' && m.load);
  const failedRun = upstreamRuns.find((m) => unusable(m) !== undefined);
  const upstreamWhy = upstreamRuns.length === 0 ? 'not measured' : failedRun && `${failedRun.variant}: ${unusable(failedRun)}`;
  const addedRounds = added?.figures?.['addedP50MsRounds'];
  const addedNote = typeof addedRounds === 'string' ? `median of ${addedRounds.split(',').length} interleaved rounds: ${addedRounds}` : undefined;
  out.push(
    check(
      'upstream proving: added p50',
      `≤ ${TARGETS.upstreamAddedP50Ms} ms`,
      figure(added, /^addedP50Ms$/),
      (v) => v <= TARGETS.upstreamAddedP50Ms,
      (v) => `${f(v)} ms`,
      upstreamWhy,
      addedNote,
    ),
  );

  const allocator = find(ms, 'micro-allocator', 'one thread', 'allocator');
  const pairs = figure(allocator, /pairs.*per.*s|per.*sec/i);
  out.push(
    check(
      'allocator reserve/release pairs',
      `≥ ${f(TARGETS.allocatorPairsPerS / 1e6)} M/s`,
      pairs,
      (v) => v >= TARGETS.allocatorPairsPerS,
      (v) => `${f(v / 1e6)} M/s`,
      allocator?.skipped ??
        (allocator && pairs === undefined ? 'bench/allocator.ts returned no pairs-per-second figure' : allocator ? undefined : 'not measured'),
    ),
  );
  const doubles = figure(allocator, /double/i);
  if (doubles !== undefined)
    out.push(
      check(
        'allocator double reservations under contention',
        '= 0',
        doubles,
        (v) => v === 0,
        (v) => f(v, 0),
      ),
    );

  const idle = find(ms, 'idle-process', 'idle', 'process');
  const workers = figure(idle, /^workerThreads$/);
  const rssLimit = TARGETS.idleRssBaseMiB + TARGETS.idleRssPerWorkerMiB * (workers ?? 0);
  out.push(
    check(
      'idle RSS',
      `≤ ${TARGETS.idleRssBaseMiB} MiB + ${TARGETS.idleRssPerWorkerMiB} MiB × workers${workers !== undefined ? ` = ${rssLimit} MiB (${workers} workers)` : ''}`,
      figure(idle, /^rssMiB$/),
      (v) => v <= rssLimit,
      (v) => `${f(v, 0)} MiB`,
      idle?.skipped ?? (idle ? undefined : 'not measured'),
    ),
  );
  const blocks = figure(idle, /^blocksProduced$/);
  out.push(
    check(
      'event-loop delay p99 during block production',
      `≤ ${TARGETS.loopDelayP99Ms} ms`,
      figure(idle, /^loopDelayP99Ms$/),
      (v) => v <= TARGETS.loopDelayP99Ms,
      (v) => `${f(v)} ms`,
      idle?.skipped ?? (idle ? (blocks ? undefined : 'no block was produced during the window') : 'not measured'),
      blocks ? `${blocks} blocks in the window` : undefined,
    ),
  );
  return out;
}
