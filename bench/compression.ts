/**
 * Micro-benchmark of the compressed forms (src/core/http/compression.ts): for each body a client polls —
 * the API description (`/api/openapi.json`, `/api`, `/docs`, taken from an app built in-process
 * without devnet), a summary and a recent-transactions page of the documented shapes — its bytes
 * as identity, gzip and brotli, and what making each form once costs (median of several runs,
 * ms). That cost is paid once per rendered body (the statistics: at most once a second per route
 * and network, only if a client asks for that coding; the description: once per process), never
 * per request; serving a made form costs what serving the identity bytes costs.
 * Run alone: `npx tsx bench/compression.ts` prints the figures as JSON; the bench harness
 * (bench/lib/micro.ts) imports `run(options)`.
 */
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { Encoded } from '../src/core/http/compression.js';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/core/config/index.js';
import { createLogger } from '../src/core/log/log.js';
import { closedPort, withoutDevnet } from './lib/nightgate.js';
import { builtInSummary } from './lib/summary-fixture.js';
import { medianOf as median } from './lib/script.js';

export interface CompressionBenchOptions {
  quick?: boolean;
  durationMs?: number;
}

interface BodyFigures {
  identityBytes: number;
  gzipBytes: number;
  brBytes: number;
  gzipMs: number;
  brMs: number;
}

function timeOnce(body: Buffer, coding: 'gzip' | 'br'): { ms: number; bytes: number } {
  const e = new Encoded(body, '"x"');
  const t0 = performance.now();
  const out = e.bodyFor(coding);
  return { ms: performance.now() - t0, bytes: out.byteLength };
}

function measure(body: Buffer, runs: number): BodyFigures {
  const gz: number[] = [];
  const br: number[] = [];
  let gzipBytes = 0;
  let brBytes = 0;
  for (let i = 0; i < runs; i++) {
    const g = timeOnce(body, 'gzip');
    const b = timeOnce(body, 'br');
    gz.push(g.ms);
    br.push(b.ms);
    gzipBytes = g.bytes;
    brBytes = b.bytes;
  }
  const r = (x: number): number => Math.round(x * 1000) / 1000;
  return { identityBytes: body.byteLength, gzipBytes, brBytes, gzipMs: r(median(gz)), brMs: r(median(br)) };
}

/** recent-transactions of 20 entries, of the documented shape (hex hashes compress as they do on the chain). */
function recentTransactions(): unknown {
  return {
    network: 'preview',
    transactions: Array.from({ length: 20 }, (_, i) => ({
      hash: randomBytes(32).toString('hex'),
      blockHeight: 1000 - i,
      blockHash: randomBytes(32).toString('hex'),
      timestamp: new Date(1_700_000_000_000 + i * 6000).toISOString(),
      protocolVersion: 22000,
      applyStage: 'SucceedEntirely',
      identifiers: [randomBytes(32).toString('hex')],
      size: 2000 + i,
    })),
  };
}

export async function run(options: CompressionBenchOptions = {}): Promise<Record<string, BodyFigures>> {
  const runs = options.quick ? 3 : 9;
  // Every module mounted (their routes make the description), every network on a closed indexer
  // port and an upstream prover: nothing is started that this bench does not need.
  const env = {
    ...withoutDevnet(await closedPort(), `http://127.0.0.1:${await closedPort()}`),
    NIGHTGATE_HOST: '127.0.0.1',
    NIGHTGATE_PORT: '0',
    NIGHTGATE_LOG_LEVEL: 'silent',
  };
  const config = loadConfig({ env });
  const app = await buildApp(config, { logger: createLogger('silent'), devnet: false, print: () => undefined });
  const port = await app.listen();
  const fetchBody = async (path: string): Promise<Buffer> => Buffer.from(await (await fetch(`http://127.0.0.1:${port}${path}`)).arrayBuffer());
  try {
    return {
      openapiJson: measure(await fetchBody('/api/openapi.json'), runs),
      apiHtml: measure(await fetchBody('/api'), runs),
      docsHtml: measure(await fetchBody('/docs'), runs),
      summary: measure(Buffer.from(JSON.stringify(builtInSummary('preview'))), runs * 10),
      recentTransactions20: measure(Buffer.from(JSON.stringify(recentTransactions())), runs * 10),
    };
  } finally {
    await app.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  run({ quick: process.argv.includes('--quick') }).then(
    (f) => process.stdout.write(`${JSON.stringify(f, null, 2)}\n`),
    (err: unknown) => {
      process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
      process.exit(1);
    },
  );
}
