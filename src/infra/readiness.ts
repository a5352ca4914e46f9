/**
 * Readiness (/readyz): the server can serve what its configuration asks for. Each component says
 * what it still lacks (`Component.ready`).
 */
import type { Component } from './app-context.js';

/** What is missing, in component order; empty when ready. A check that throws counts as missing. */
export async function missingForReadiness(components: readonly Component[]): Promise<string[]> {
  const parts = await Promise.all(
    components.map(async (c): Promise<readonly string[]> => {
      try {
        return c.ready ? await c.ready() : [];
      } catch {
        return [`${c.name}: readiness check failed`];
      }
    }),
  );
  return parts.flat();
}
