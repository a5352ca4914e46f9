/** How long and how hard `npm run bench` runs, from its command line (bench/lib/args.ts). */
import type { BenchArgs } from './args.js';
import type { Settings } from './scenario.js';

const SETTINGS = {
  quick: { durationS: 1, shortDurationS: 1, warmupS: 0.3, idleWindowS: 7, microMs: 1000, targetRounds: 1, pipelinedRoundDepth: 0, wrkRounds: 0 },
  full: { durationS: 8, shortDurationS: 5, warmupS: 1, idleWindowS: 20, microMs: 3000, targetRounds: 3, pipelinedRoundDepth: 10, wrkRounds: 3 },
} as const;
const CONNECTION_LEVELS = [1, 10, 100] as const;
const SINGLE_LEVEL_CONNECTIONS = 10;

export type RunSettings = Settings & { microMs: number; pipelinedRoundDepth: number; wrkRounds: number };

export function settingsFor(args: BenchArgs): RunSettings {
  const base = SETTINGS[args.quick ? 'quick' : 'full'];
  return {
    durationS: args.durationS ?? base.durationS,
    shortDurationS: args.durationS ?? base.shortDurationS,
    warmupS: base.warmupS,
    connectionLevels: args.connections ? [args.connections] : CONNECTION_LEVELS,
    connections: args.connections ?? SINGLE_LEVEL_CONNECTIONS,
    ...(args.rate ? { rate: args.rate } : {}),
    idleWindowS: base.idleWindowS,
    microMs: base.microMs,
    // Against a deployment every run is as long as the operator said: no repeats.
    targetRounds: args.url ? 1 : base.targetRounds,
    pipelinedRoundDepth: args.url ? 0 : base.pipelinedRoundDepth,
    wrkRounds: args.url ? 0 : (args.rounds ?? base.wrkRounds),
  };
}

/** The command-line choice that leaves scenarios out, as RunInfo.selection says it. */
export function selectionOf(args: BenchArgs): string | undefined {
  const parts = [...(args.only ? [`--only ${[...args.only].join(',')}`] : []), ...(args.wrkOnly ? ['--wrk-only'] : [])];
  return parts.length ? parts.join(' ') : undefined;
}
