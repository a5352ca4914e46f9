/**
 * The memory-exhaustion scenario at full scale, measured (not a tap test: it takes a minute and
 * 3 GiB of loopback traffic). Starts the real server (`serve`, default settings, upstream prover
 * unreachable so a read body is answered at once), sends N parallel /prove bodies of SIZE MiB from
 * one key on raw sockets, samples the server's RSS (/proc/<pid>/status) every 50 ms, then every
 * second for WAIT s, and prints one JSON line: RSS at start, at peak, WAIT s after the burst, the
 * answers by status, and the body budget's own figures from /health.
 *
 *   npx tsx test/reliability/scripts/body-flood.ts [--n 48] [--size 63] [--wait 60] [--no-budget]
 *
 * `--no-budget` sets both body budgets to 1 TiB: the server as it was without one.
 */
import { connect } from 'node:net';
import { readFileSync } from 'node:fs';
import { NO_DEVNET_ENV, runCli } from '../../helpers/spawn.js';

const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const N = arg('n', 48);
const SIZE = arg('size', 63) * 2 ** 20;
const WAIT_S = arg('wait', 60);
const KEY = 'body-flood-key-0123456789';
const MiB = (b: number): number => Math.round(b / 2 ** 20);

const server = runCli(['serve'], {
  ...NO_DEVNET_ENV,
  NIGHTGATE_PORT: '0',
  NIGHTGATE_API_KEYS: KEY,
  NIGHTGATE_LOG_LEVEL: 'warn',
  ...(process.argv.includes('--no-budget') ? { NIGHTGATE_BODY_BYTES_IN_FLIGHT: String(2 ** 40), NIGHTGATE_BODY_BYTES_PER_CLIENT: String(2 ** 40) } : {}),
});
const pid = server.child.pid!;
const rss = (): number => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;

async function port(): Promise<number> {
  // At warn, the listening line is not logged: ask the kernel which port the process holds.
  for (;;) {
    const tcp = readFileSync('/proc/net/tcp', 'utf8') + readFileSync('/proc/net/tcp6', 'utf8');
    const inodes = new Set<string>();
    const { readdirSync, readlinkSync } = await import('node:fs');
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m) inodes.add(m[1]!);
      } catch {
        // closed meanwhile
      }
    }
    for (const line of tcp.split('\n')) {
      const f = line.trim().split(/\s+/);
      if (f[3] === '0A' && inodes.has(f[9]!)) return parseInt(f[1]!.split(':')[1]!, 16);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

function send(p: number, body: Buffer): Promise<number> {
  return new Promise((resolve) => {
    const sock = connect(p, '127.0.0.1');
    let data = '';
    const done = (): void => {
      sock.destroy();
      resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1] ?? 0));
    };
    sock.on('data', (d) => {
      data += d.toString('latin1');
      if (/\r\n\r\n[^]*\}/.test(data)) done();
    });
    sock.on('close', done);
    sock.on('error', done);
    sock.write(`POST /prove HTTP/1.1\r\nHost: x\r\nX-API-Key: ${KEY}\r\nContent-Type: application/octet-stream\r\nContent-Length: ${body.length}\r\n\r\n`);
    sock.write(body);
  });
}

const p = await port();
await new Promise((r) => setTimeout(r, 2_000));
const start = rss();
let peak = start;
const sampler = setInterval(() => (peak = Math.max(peak, rss())), 50);
const body = Buffer.alloc(SIZE, 0x41);
const t0 = performance.now();
const statuses = await Promise.all(Array.from({ length: N }, () => send(p, body)));
const burstMs = Math.round(performance.now() - t0);
clearInterval(sampler);
peak = Math.max(peak, rss());
const after: number[] = [];
for (let s = 0; s < WAIT_S; s++) {
  await new Promise((r) => setTimeout(r, 1_000));
  after.push(rss());
}
const health = (await (await fetch(`http://127.0.0.1:${p}/health`, { headers: { 'x-api-key': KEY } })).json()) as { components: Record<string, unknown> };
server.child.kill('SIGTERM');
await server.exited;
const byStatus: Record<string, number> = {};
for (const st of statuses) byStatus[st] = (byStatus[st] ?? 0) + 1;
console.log(
  JSON.stringify({
    n: N,
    sizeMiB: MiB(SIZE),
    budget: !process.argv.includes('--no-budget'),
    burstMs,
    rssMiB: { start: MiB(start), peak: MiB(peak), [`after${WAIT_S}s`]: MiB(after.at(-1) ?? rss()) },
    statuses: byStatus,
    bodies: health.components['bodies'],
  }),
);
