/**
 * A loopback stand-in for `midnight-proof-server` with a fixed latency, so the bench can measure
 * what nightgate's upstream backend adds over calling a proof server directly (the real one cannot
 * be obtained here, LEDGER.md "Proving"). It speaks the routes of the real server:
 *   POST /prove   → after the delay, the fixed proof bytes (application/octet-stream)
 *   POST /check   → after the delay, an empty `midnight:vec(option(u64)):` result
 *   GET  /ready   → {status:"ok", jobsProcessing, jobsPending, jobCapacity, timestamp}
 *   GET  /version → version text;  GET /proof-versions → ["V2"];  GET / and /health → {status:"ok"}
 * Bodies are read in full before answering, as a real server must. It never checks what it is sent.
 *
 * As a process: `node dist/bench/stand-in-prover.js [--delay-ms 20] [--response-file FILE] [--port 0]`
 * prints `{"standIn":"prover","port":N,"delayMs":D}` once listening, and exits on SIGTERM/SIGINT.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';

export interface StandInOptions {
  port?: number;
  delayMs: number;
  /** The /prove answer; default a minimal proof in the proof-versioned format the ledger accepts. */
  proof?: Buffer;
  version?: string;
}

export interface StandIn {
  port: number;
  close(): Promise<void>;
}

/** `midnight:proof-versioned:` + version 1 + a 4-byte proof: the smallest answer the ledger parses. */
export const MINIMAL_PROOF = Buffer.concat([Buffer.from('midnight:proof-versioned:'), Buffer.from([1, 0x10, 1, 2, 3, 4])]);
/** An empty check result: no public-input block was skipped. */
const EMPTY_CHECK = Buffer.concat([Buffer.from('midnight:vec(option(u64)):'), Buffer.from([0])]);

function drain(req: IncomingMessage): Promise<void> {
  return new Promise((resolve, reject) => {
    req.on('data', () => undefined);
    req.once('end', resolve);
    req.once('error', reject);
  });
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

export function startStandInProver(opts: StandInOptions): Promise<StandIn> {
  const proof = opts.proof ?? MINIMAL_PROOF;
  let processing = 0;
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'POST' && (path === '/prove' || path === '/check')) {
      processing++;
      drain(req).then(
        () =>
          setTimeout(() => {
            processing--;
            res.writeHead(200, { 'content-type': 'application/octet-stream' });
            res.end(path === '/prove' ? proof : EMPTY_CHECK);
          }, opts.delayMs),
        () => {
          processing--;
          res.destroy();
        },
      );
      return;
    }
    if (req.method !== 'GET') return json(res, 405, { error: 'method not allowed' });
    switch (path) {
      case '/':
      case '/health':
        return json(res, 200, { status: 'ok', timestamp: new Date().toISOString() });
      case '/ready':
        return json(res, 200, { status: 'ok', jobsProcessing: processing, jobsPending: 0, jobCapacity: 0, timestamp: new Date().toISOString() });
      case '/version':
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end(opts.version ?? '8.0.0');
      case '/proof-versions':
        return json(res, 200, ['V2']);
      default:
        return json(res, 404, { error: 'not found' });
    }
  });
  server.keepAliveTimeout = 60_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => {
      resolve({
        port: (server.address() as AddressInfo).port,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function main(): Promise<void> {
  const delayMs = Number(flag('--delay-ms') ?? '20');
  const port = Number(flag('--port') ?? '0');
  if (!Number.isFinite(delayMs) || delayMs < 0 || !Number.isInteger(port) || port < 0) {
    process.stderr.write('usage: stand-in-prover [--delay-ms MS] [--response-file FILE] [--port PORT]\n');
    process.exit(2);
  }
  const file = flag('--response-file');
  const standIn = await startStandInProver({ port, delayMs, ...(file ? { proof: readFileSync(file) } : {}) });
  process.stdout.write(`${JSON.stringify({ standIn: 'prover', port: standIn.port, delayMs })}\n`);
  const stop = (): void => void standIn.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) void main();
