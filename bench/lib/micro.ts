/**
 * The micro-benchmarks that live beside the scenarios — `bench/allocator.ts` (DUST UTXO allocator),
 * `bench/timer-wheel.ts` and `bench/compression.ts` (bytes and cost of the compressed forms) — each exporting `run(options)` that resolves to its figures. They
 * are
 * imported at run time so the harness works before they exist: a missing or failing one becomes a
 * "not available" row, never a failed run. They run in this process after every server has stopped.
 */
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { modulePath } from './paths.js';
import type { Measurement } from './types.js';

export const MICRO_BENCHES = ['allocator', 'timer-wheel', 'compression', 'policy-check'] as const;

export interface MicroOptions {
  quick: boolean;
  /** Time the bench may spend measuring (it may take less). */
  durationMs: number;
}

type Figure = number | string | boolean | null;

/** Numbers, strings and booleans of `value`, nested keys joined with dots. */
function flatten(value: unknown, prefix = '', out: Record<string, Figure> = {}): Record<string, Figure> {
  if (value === null || typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean') {
    out[prefix || 'value'] = value;
  } else if (typeof value === 'bigint') {
    out[prefix || 'value'] = Number(value);
  } else if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  }
  return out;
}

export async function runMicro(id: (typeof MICRO_BENCHES)[number], options: MicroOptions): Promise<Measurement> {
  const row = { scenario: `micro-${id}`, variant: 'one thread', target: id };
  const file = modulePath(`bench/${id}`);
  if (!existsSync(file)) return { ...row, skipped: `not available: ${file} does not exist yet` };
  try {
    const mod = (await import(pathToFileURL(file).href)) as { run?: (o: MicroOptions) => unknown };
    if (typeof mod.run !== 'function') return { ...row, skipped: `not available: ${file} exports no run(options)` };
    return { ...row, figures: flatten(await mod.run(options)) };
  } catch (err) {
    return { ...row, skipped: `not available: ${(err as Error).message.split('\n')[0]}` };
  }
}
