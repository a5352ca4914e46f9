/**
 * The summary the baselines serve: nightgate's own `/api/v1/{network}/summary` body and headers as
 * captured from the server under test, so every baseline puts the same bytes on the wire. While the
 * statistics module is not built (the route answers 501) a built-in summary of the documented
 * shape stands in, and the results say so.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from './http.js';

export interface SummaryFixture {
  network: string;
  /** The summary object (parsed JSON). */
  body: unknown;
  /** Response headers to repeat, lower-case names. */
  headers: Record<string, string>;
  source: 'nightgate' | 'built-in';
}

/** Per-connection or per-response headers a baseline must not copy. */
const NOT_COPIED = new Set(['date', 'content-length', 'connection', 'keep-alive', 'transfer-encoding', 'uwebsockets', 'x-request-id']);

const HASH = 'a3f1c2'.repeat(10) + 'b4c5';

/** The documented summary shape (README "Routes"), with plausible values. */
export function builtInSummary(network: string): unknown {
  return {
    network,
    status: 'healthy',
    source: 'embedded-devnet',
    latestBlock: { height: 1234, hash: HASH, timestamp: '2026-01-01T00:00:00.000Z', ageSeconds: 3, protocolVersion: 1000 },
    blockTime: { averageSeconds: 6.01, sampleSize: 100 },
    blocksProduced: { total: 1235, estimatedHourly: 600, estimatedDaily: 14400 },
    uptime: { status: 'healthy', score: 100, latestBlockAgeSeconds: 3, epochUtilization: null },
    epoch: { number: 12, durationSeconds: 1800, elapsedSeconds: 600, remainingSeconds: 1200, progress: 0.3333 },
    dParameter: { numPermissionedCandidates: 10, numRegisteredCandidates: 2 },
    nightSupply: { total: '24000000000', unit: 'NIGHT', source: 'protocol constant (midnight-ledger MAX_SUPPLY)' },
    updatedAt: '2026-01-01T00:00:03.000Z',
  };
}

export async function captureSummary(baseUrl: string, network: string): Promise<SummaryFixture> {
  const r = await request(`${baseUrl}/api/v1/${network}/summary`);
  if (r.status === 200) {
    const headers: Record<string, string> = {};
    r.headers.forEach((value, name) => {
      if (!NOT_COPIED.has(name)) headers[name] = value;
    });
    return { network, body: JSON.parse(r.body.toString('utf8')), headers, source: 'nightgate' };
  }
  return {
    network,
    body: builtInSummary(network),
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'public, max-age=2' },
    source: 'built-in',
  };
}

export function writeFixture(fixture: SummaryFixture, dir: string): string {
  const file = join(dir, 'summary-fixture.json');
  writeFileSync(file, JSON.stringify(fixture));
  return file;
}

export function readFixture(file: string): SummaryFixture {
  return JSON.parse(readFileSync(file, 'utf8')) as SummaryFixture;
}
