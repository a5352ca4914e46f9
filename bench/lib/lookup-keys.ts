/**
 * Keys that exist on the chain behind the target, for the lookup scenarios: block heights and
 * hashes and transaction hashes per network. Read from the embedded devnet's GraphQL when it is
 * reachable (the indexer's `block(offset: {height})`, aliased in small batches), else through
 * nightgate's own latest-block and block routes, else synthetic (the routes still answer — 404 or
 * 501 — so the scenario runs, and says so).
 */
import { createHash } from 'node:crypto';
import { getJson, postGraphql } from './http.js';
import type { Target } from './types.js';

export interface NetworkKeys {
  network: string;
  heights: number[];
  blockHashes: string[];
  txHashes: string[];
}

export interface LookupKeys {
  source: 'devnet-graphql' | 'nightgate-api' | 'synthetic';
  networks: NetworkKeys[];
}

/** Heights read per network at most (newest first), and per GraphQL request. */
const MAX_HEIGHTS = 300;
const BATCH = 10;
const API_BLOCKS = 40;
const SYNTHETIC = 64;

interface BlockRow {
  height: number;
  hash: string;
  transactions: Array<{ hash: string }>;
}

async function fromGraphql(network: string, url: string): Promise<NetworkKeys> {
  const tip = (await postGraphql<{ block: { height: number } | null }>(url, '{ block { height } }')).block?.height ?? 0;
  const keys: NetworkKeys = { network, heights: [], blockHashes: [], txHashes: [] };
  const from = Math.max(0, tip - MAX_HEIGHTS + 1);
  for (let start = from; start <= tip; start += BATCH) {
    const heights = Array.from({ length: Math.min(BATCH, tip - start + 1) }, (_, i) => start + i);
    const query = `{ ${heights.map((h) => `b${h}: block(offset: { height: ${h} }) { height hash transactions { hash } }`).join(' ')} }`;
    const data = await postGraphql<Record<string, BlockRow | null>>(url, query);
    for (const row of Object.values(data)) {
      if (!row) continue;
      keys.heights.push(row.height);
      keys.blockHashes.push(row.hash);
      for (const tx of row.transactions) keys.txHashes.push(tx.hash);
    }
  }
  return keys;
}

/** Every string under a `hash` key inside a `transactions` array, wherever it sits in `json`. */
function transactionHashes(json: unknown, inTransactions = false, out: string[] = []): string[] {
  if (Array.isArray(json)) for (const item of json) transactionHashes(item, inTransactions, out);
  else if (json && typeof json === 'object') {
    for (const [k, v] of Object.entries(json)) {
      if (inTransactions && k === 'hash' && typeof v === 'string') out.push(v);
      else transactionHashes(v, inTransactions || k === 'transactions', out);
    }
  }
  return out;
}

async function fromApi(target: Target): Promise<NetworkKeys | undefined> {
  const base = `${target.baseUrl}/api/v1/${target.network}`;
  const latest = await getJson(`${base}/latest-block`);
  const body = latest.json as { height?: unknown; hash?: unknown } | undefined;
  if (latest.status !== 200 || typeof body?.height !== 'number') return undefined;
  const keys: NetworkKeys = { network: target.network, heights: [], blockHashes: [], txHashes: [] };
  for (let h = body.height; h >= 0 && h > body.height - API_BLOCKS; h--) {
    const block = await getJson(`${base}/block?height=${h}`);
    if (block.status !== 200) continue;
    keys.heights.push(h);
    const hash = (block.json as { hash?: unknown }).hash;
    if (typeof hash === 'string') keys.blockHashes.push(hash);
    keys.txHashes.push(...transactionHashes(block.json));
  }
  return keys.heights.length > 0 ? keys : undefined;
}

function synthetic(network: string): NetworkKeys {
  const hash = (i: number): string => createHash('sha256').update(`nightgate-bench-${i}`).digest('hex');
  return {
    network,
    heights: Array.from({ length: SYNTHETIC }, (_, i) => i + 1),
    blockHashes: Array.from({ length: SYNTHETIC }, (_, i) => hash(i)),
    txHashes: Array.from({ length: SYNTHETIC }, (_, i) => hash(i + SYNTHETIC)),
  };
}

export async function discoverLookupKeys(target: Target): Promise<LookupKeys> {
  if (target.devnet.size > 0) {
    try {
      const networks = await Promise.all([...target.devnet.values()].map((d) => fromGraphql(d.name, d.graphqlUrl)));
      if (networks.some((n) => n.heights.length > 0)) return { source: 'devnet-graphql', networks };
    } catch {
      // The devnet's GraphQL is on the server's loopback; from elsewhere, ask nightgate instead.
    }
  }
  const api = await fromApi(target).catch(() => undefined);
  if (api) return { source: 'nightgate-api', networks: [api] };
  return { source: 'synthetic', networks: [synthetic(target.network)] };
}
