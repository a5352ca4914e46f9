/**
 * The embedded devnet's server DUST wallet seeds, when `dust.walletSeeds` is not set.
 *
 * In memory they are random on every start. With `devnet.stateDir` the chain resumes from disk,
 * and its genesis funded the sponsor wallets of the first start (the persisted chain is tied to
 * their public keys), so the seeds are kept beside the chain, readable by the owner only, and
 * read back on the next start.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const SPONSOR_SEEDS_FILE = 'sponsor-dust-seeds.json';
const SEEDS_PER_NETWORK = 2;
const HEX_SEED = /^[0-9a-f]{64}$/;

export function devnetSponsorSeeds(stateDir: string, network: string): string[] {
  const fresh = () => Array.from({ length: SEEDS_PER_NETWORK }, () => randomBytes(32).toString('hex'));
  if (stateDir === '') return fresh();
  const dir = join(stateDir, network);
  const path = join(dir, SPONSOR_SEEDS_FILE);
  if (existsSync(path)) {
    const seeds: unknown = JSON.parse(readFileSync(path, 'utf8'));
    if (!Array.isArray(seeds) || seeds.length === 0 || !seeds.every((s) => typeof s === 'string' && HEX_SEED.test(s))) {
      throw new Error(
        `${path} does not hold the devnet's sponsor DUST seeds (a JSON array of 32-byte hex strings); remove the directory to start a new genesis`,
      );
    }
    return seeds as string[];
  }
  const seeds = fresh();
  mkdirSync(dir, { recursive: true });
  writeFileSync(path, `${JSON.stringify(seeds)}\n`, { mode: 0o600 });
  return seeds;
}
