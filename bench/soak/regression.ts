/** The soak's verdict: a line through each series of samples after warm-up, and whether RSS and descriptors stay flat. */
import type { SoakArgs } from './args.js';
import { fit, growing, type Fit } from './fit.js';
import type { MajorGc } from './major-gcs.js';
import type { Sample } from './samples.js';

export interface Regression {
  /** The samples after warm-up. */
  steady: Sample[];
  rss: Fit;
  fds: Fit;
  threads: Fit;
  /** The RSS slope by kind of mapping: which part grows. */
  byKind: { wasm: Fit; brk: Fit; anon: Fit; file: Fit } | null;
  walletState: Fit | null;
  devnetRss: Fit | null;
  /** Each thread's JS heap after its full collections (with --trace-gc): live memory, not garbage. */
  heaps: { isolate: string; fullCollections: number; afterWarmup: number; firstMB: number | null; lastMB: number | null; fit: Fit | null }[] | null;
  blocksPerMin: number | null;
  rssFlat: boolean;
  fdsFlat: boolean;
}

/** The wallet-state series' fit, for the JSON (null without enough samples). */
function withStateFit(steady: readonly Sample[]): Fit | null {
  const xs = steady.filter((s) => s.walletStateKiB !== null);
  return xs.length >= 3 ? fit(xs.map((s) => ({ t: s.t, y: s.walletStateKiB! }))) : null;
}

/** `started`: when the traffic started (performance.now()), the origin of the collections' times. */
export function regress(args: SoakArgs, samples: readonly Sample[], majorGcs: Map<string, MajorGc[]> | undefined, started: number): Regression {
  const steady = samples.filter((s) => s.t >= args.warmupMin);
  if (steady.length < 3) throw new Error(`only ${steady.length} samples after the ${args.warmupMin} min warm-up: run longer or sample more often`);
  const rss = fit(steady.map((s) => ({ t: s.t, y: s.rssMiB })));
  const fds = fit(steady.map((s) => ({ t: s.t, y: s.fds })));
  const threads = fit(steady.map((s) => ({ t: s.t, y: s.threads })));
  const withMap = steady.filter((s) => s.memory !== null);
  const byKind =
    withMap.length < 3
      ? null
      : {
          wasm: fit(withMap.map((s) => ({ t: s.t, y: s.memory!.wasmMiB }))),
          brk: fit(withMap.map((s) => ({ t: s.t, y: s.memory!.brkMiB }))),
          anon: fit(withMap.map((s) => ({ t: s.t, y: s.memory!.anonMiB }))),
          file: fit(withMap.map((s) => ({ t: s.t, y: s.memory!.fileMiB }))),
        };
  const walletState = withStateFit(steady);
  const devnetSamples = steady.filter((s) => s.devnet !== null);
  const devnetRss = devnetSamples.length >= 3 ? fit(devnetSamples.map((s) => ({ t: s.t, y: s.devnet!.rssMiB }))) : null;
  const heaps =
    majorGcs === undefined
      ? null
      : [...majorGcs].map(([isolate, gcs]) => {
          const after = gcs.filter((g) => (g.at - started) / 60_000 >= args.warmupMin).map((g) => ({ t: (g.at - started) / 60_000, y: g.afterMB }));
          return {
            isolate,
            fullCollections: gcs.length,
            afterWarmup: after.length,
            firstMB: after[0]?.y ?? null,
            lastMB: after.at(-1)?.y ?? null,
            fit: after.length >= 3 ? fit(after) : null,
          };
        });
  const heights = steady.map((s) => s.previewHeight).filter((h): h is number => h !== null);
  const blocksPerMin = heights.length > 1 ? (heights.at(-1)! - heights[0]!) / (steady.at(-1)!.t - steady[0]!.t) : null;
  return {
    steady,
    rss,
    fds,
    threads,
    byKind,
    walletState,
    devnetRss,
    heaps,
    blocksPerMin,
    rssFlat: !growing(rss, args.maxRssSlope),
    fdsFlat: !growing(fds, args.maxFdSlope),
  };
}
