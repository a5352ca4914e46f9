/**
 * Readiness (/readyz): the server can serve what its configuration asks for. Each component says
 * what it still lacks (`Component.ready`); the DUST sync, which has no `ready` of its own, is read
 * from the sponsorship service's status: every sponsoring network's wallets must have synced
 * (its reservations restored from the journal by then), or sponsorship answers WALLET_SYNCING.
 */
import type { Component } from './app-context.js';
// Type only: the sponsorship module is loaded with the default modules, not by the app itself.
import type { SponsorshipComponent } from './dust/index.js';

/** `SPONSORSHIP_COMPONENT` of src/dust/index.ts. */
const SPONSORSHIP = 'sponsorship';

/** What is missing, in component order; empty when ready. A check that throws counts as missing. */
export async function missingForReadiness(components: readonly Component[]): Promise<string[]> {
  const parts = await Promise.all(
    components.map(async (c): Promise<readonly string[]> => {
      try {
        if (c.ready) return await c.ready();
        return c.name === SPONSORSHIP ? dustSyncMissing(c as SponsorshipComponent) : [];
      } catch {
        return [`${c.name}: readiness check failed`];
      }
    }),
  );
  return parts.flat();
}

function dustSyncMissing(c: SponsorshipComponent): string[] {
  const networks = c.service?.status() ?? {};
  const out: string[] = [];
  for (const [network, s] of Object.entries(networks)) {
    const phase = (s as { sync?: { phase?: string } }).sync?.phase ?? 'starting';
    if (phase !== 'synced') out.push(`dust:${network}: server DUST wallets not synced (${phase})`);
  }
  return out;
}
