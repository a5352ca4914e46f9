/** What a network's settings resolve to: its indexer URL, prover backend and proof server URL. */
import { PUBLIC_INDEXERS, type NetworkName, type ProverBackendName } from './networks.js';
import type { Config } from './schema.js';

export function isEmbedded(config: Config, n: NetworkName): boolean {
  return config.networks[n].indexer === 'embedded';
}

export function indexerUrlOf(config: Config, n: NetworkName): string | undefined {
  const v = config.networks[n].indexer;
  if (v === 'embedded') return undefined;
  return v === 'public' ? PUBLIC_INDEXERS[n] : v;
}

export function proverBackendOf(config: Config, n: NetworkName): ProverBackendName {
  const b = config.networks[n].prover;
  if (b) return b;
  return isEmbedded(config, n) ? 'dev' : 'upstream';
}

export function proverUrlOf(config: Config, n: NetworkName): string {
  return config.networks[n].proverUrl || config.prover.upstreamUrl;
}
