/**
 * The unspent NIGHT UTXOs of a server wallet's address, for the pool keeper's splits, its status
 * and its registration: the same
 * indexer read as the input check's (input-check.ts: the address's history up to the progress
 * marker, created minus spent), kept to NIGHT. One short-lived connection per read: the keeper
 * reads at most once a block.
 */
import { readUnspentUtxos } from '../reservations/input-check.js';
import type { NightUtxo } from '../common/pool-task.js';
import type { UpstreamCredentials } from '../../../core/config/index.js';

export async function readNightUtxos(
  wsUrl: string,
  address: string,
  nightToken: string,
  timeoutMs: number,
  credentials?: UpstreamCredentials,
): Promise<NightUtxo[]> {
  const unspent = await readUnspentUtxos(wsUrl, address, timeoutMs, credentials);
  const night = nightToken.toLowerCase();
  return [...unspent]
    .filter(([, u]) => u.tokenType === night)
    .map(([id, u]) => {
      const at = id.lastIndexOf('#');
      return {
        value: u.value,
        intentHash: id.slice(0, at),
        outputIndex: Number(id.slice(at + 1)),
        ...(u.ctime === undefined ? {} : { ctime: u.ctime }),
        ...(u.registered === undefined ? {} : { registered: u.registered }),
      };
    });
}
