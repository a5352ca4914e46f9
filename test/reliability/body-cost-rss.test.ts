/**
 * 48 keys each send one valid /prove body of 63 MiB at once (a proving request carrying key
 * material, near server.proverBodyLimit) to the real process with its embedded default (devnets,
 * dev prover), twice. The body budget charges what a body costs the process, not its length, so
 * the server's RSS stays under 1 GiB at its peak and is back within 100 MiB of where it started
 * within 60 s of each flood; the bodies it does not take are refused with the budget's codes.
 *
 * Measured on the server process (/proc/<pid>/status: VmHWM for the peak, VmRSS after), not on
 * this one, which holds the clients' bodies; the server runs as in production, with no forced
 * collection. BODY_COST_TRACE=1 prints RSS each second for the full 60 s and the largest mappings.
 */
import t from 'tap';
import { connect } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { runCli } from '../helpers/spawn.js';
import { ledgerOf, midnightFile, outputPreimage, proveBody } from '../fixtures/prover/samples.js';
import { parseProveRequest } from '../../src/features/proving/wire/wire.js';
import type { BodyBudgetStats } from '../../src/core/guards/body-budget.js';

const MiB = 2 ** 20;
const KEYS = 48;
const SIZE = 63 * MiB;
const FLOODS = 2;
const SETTLE_S = 60;
const PEAK_MAX = 1024 * MiB;
const RETAINED_MAX = 100 * MiB;
const TRACE = process.env['BODY_COST_TRACE'] === '1';

// Start-up (≈ 20 s with the devnets), then per flood a few seconds, and at most the 60 s wait.
t.setTimeout(60_000 + FLOODS * (SETTLE_S + 30) * 1000);

const keys = Array.from({ length: KEYS }, (_, i) => `body-cost-key-${String(i).padStart(2, '0')}-0123456789`);
const server = runCli(['serve'], { NIGHTGATE_PORT: '0', NIGHTGATE_API_KEYS: keys.join(','), NIGHTGATE_LOG_REQUESTS: 'errors' });
const pid = server.child.pid!;
t.teardown(async () => {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  process.kill(pid, 'SIGTERM');
  const kill = setTimeout(() => process.kill(pid, 'SIGKILL'), 20_000);
  await server.exited;
  clearTimeout(kill);
});

const statusField = (field: string): number => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
const rss = (): number => statusField('VmRSS');
const mib = (b: number): number => Math.round(b / MiB);
const load = (): string => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * One 63 MiB body, held once here: each key's differs in 8 bytes of its prover key (which the dev
 * prover does not read), so no two share a proof or a cache entry.
 */
const L = ledgerOf();
const ir = midnightFile('zk/zswap_output.bzkir');
const framing = L.createProvingPayload(outputPreimage(), 1n, { proverKey: new Uint8Array(0), verifierKey: new Uint8Array(64), ir }).length;
const body = Buffer.from(
  L.createProvingPayload(outputPreimage(), 1n, { proverKey: new Uint8Array(SIZE - framing).fill(0x5a), verifierKey: new Uint8Array(64).fill(7), ir }),
);
const markAt = parseProveRequest(body).keyMaterial!.proverKey.start;

const port = Number(/"port":(\d+)/.exec(await server.waitFor(/nightgate listening on/))![1]);
const url = `http://127.0.0.1:${port}`;

interface Answer {
  status: number;
  code?: string;
  retryAfter?: string;
}

/** `parts` on one connection as one request from key `i`: the answer (status 0: closed before one arrived). */
function send(i: number, parts: Buffer[]): Promise<Answer> {
  const length = parts.reduce((n, p) => n + p.length, 0);
  return new Promise((resolve) => {
    const sock = connect(port, '127.0.0.1');
    let data = '';
    const done = (): void => {
      sock.destroy();
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1] ?? 0),
        ...(/"code":"([A-Z_]+)"/.exec(data) ? { code: /"code":"([A-Z_]+)"/.exec(data)![1]! } : {}),
        ...(/\r\nRetry-After: (\d+)/i.exec(data) ? { retryAfter: /\r\nRetry-After: (\d+)/i.exec(data)![1]! } : {}),
      });
    };
    sock.on('data', (d) => {
      data += d.toString('latin1');
      const end = data.indexOf('\r\n\r\n');
      const declared = /\r\nContent-Length: (\d+)/i.exec(data);
      if (end >= 0 && declared && data.length >= end + 4 + Number(declared[1])) done();
    });
    sock.on('close', done);
    sock.on('error', done);
    sock.write(
      `POST /prove HTTP/1.1\r\nHost: x\r\nX-API-Key: ${keys[i]}` +
        `\r\nX-Midnight-Network: preview\r\nContent-Type: application/octet-stream\r\nContent-Length: ${length}` +
        `\r\n\r\n`,
    );
    for (const p of parts) sock.write(p);
  });
}

/** Key `i`'s 63 MiB body of flood `round`, written from the one copy. */
function bigBody(i: number, round: number): Buffer[] {
  const mark = Buffer.alloc(8);
  mark.writeUInt32BE(round, 0);
  mark.writeUInt32BE(i, 4);
  return [body.subarray(0, markAt), mark, body.subarray(markAt + 8)];
}

const bodies = async (): Promise<BodyBudgetStats> => {
  const h = (await (await fetch(`${url}/health`, { headers: { 'x-api-key': keys[0]! } })).json()) as { components: Record<string, BodyBudgetStats> };
  return h.components['bodies']!;
};

let start = 0;
t.before(async () => {
  // The workers load the ledger with their first task: start-up, not the flood.
  const warm = await send(0, [Buffer.from(proveBody(undefined, 7n))]);
  if (warm.status !== 200) throw new Error(`a small /prove: ${JSON.stringify(warm)}`);
  await sleep(5_000);
  start = rss();
  t.comment(`start: RSS ${mib(start)} MiB; load ${load()}`);
});

for (let round = 1; round <= FLOODS; round++) {
  t.test(`flood ${round}: ${KEYS} keys × ${mib(SIZE)} MiB valid /prove bodies at once`, async (t) => {
    const before = await bodies();
    try {
      writeFileSync(`/proc/${pid}/clear_refs`, '5'); // VmHWM := VmRSS
    } catch {
      // Not allowed here: VmHWM is then the peak since the server started, a bound all the same.
    }
    const t0 = performance.now();
    const answers = await Promise.all(keys.map((_, i) => send(i, bigBody(i, round))));
    const floodMs = performance.now() - t0;
    const peak = statusField('VmHWM');
    const after = await bodies();
    const byStatus: Record<string, number> = {};
    for (const a of answers) {
      const k = a.code ? `${a.status} ${a.code}` : String(a.status);
      byStatus[k] = (byStatus[k] ?? 0) + 1;
    }
    t.comment(
      `answers ${JSON.stringify(byStatus)} in ${Math.round(floodMs)}` +
        ` ms; RSS ${mib(start)}` +
        ` → peak ${mib(peak)}` +
        ` MiB; budget peak ${mib(after.peakBytes)}` +
        ` MiB charged; load ${load()}`,
    );

    const proved = answers.filter((a) => a.status === 200).length;
    t.ok(proved >= 1, `${proved} proved`);
    const refused = after.refused.client + after.refused.global - before.refused.client - before.refused.global;
    t.equal(refused, KEYS - proved, 'every other body refused by the budget');
    // An answer can be lost to the reset of a connection still sending when the server closes it.
    for (const a of answers.filter((a) => a.status !== 200 && a.status !== 0)) {
      t.ok(
        (a.status === 503 && a.code === 'BODY_BUDGET_FULL') || (a.status === 429 && a.code === 'CLIENT_BODY_BUDGET_FULL'),
        `a budget refusal: ${a.status} ${a.code}`,
      );
      t.ok(a.retryAfter !== undefined, 'with Retry-After');
    }
    t.ok(after.peakBytes <= after.globalBytes, 'the budget never passed its bound');
    t.ok(peak <= PEAK_MAX, `peak RSS ${mib(peak)} MiB ≤ ${mib(PEAK_MAX)} MiB`);
    t.equal(after.inFlightBytes, 0, 'every charge given back');

    let now = rss();
    const settle = performance.now();
    const trace: number[] = [];
    while ((TRACE || now > start + RETAINED_MAX) && performance.now() - settle < SETTLE_S * 1000) {
      await sleep(1_000);
      now = rss();
      trace.push(mib(now));
    }
    const waitedS = Math.round((performance.now() - settle) / 1000);
    t.comment(`after ${waitedS} s: RSS ${mib(now)} MiB (start ${mib(start)})${TRACE ? `; each second: ${trace.join(' ')}` : ''}`);
    if (TRACE) {
      const maps = readFileSync(`/proc/${pid}/smaps`, 'utf8').split(/\n(?=[0-9a-f]+-[0-9a-f]+ )/);
      const big = maps
        .map((m) => ({ name: m.split('\n')[0]!.split(/\s+/).slice(5).join(' '), rss: Number(/\nRss:\s+(\d+)/.exec(m)?.[1] ?? 0) * 1024 }))
        .filter((m) => m.rss >= 32 * MiB);
      t.comment(`mappings ≥ 32 MiB resident: ${big.map((m) => `${mib(m.rss)} MiB ${m.name || '(anonymous)'}`).join('; ') || 'none'}`);
    }
    t.ok(now <= start + RETAINED_MAX, `RSS back within ${mib(RETAINED_MAX)} MiB of the start within ${SETTLE_S} s: ${mib(start)} → ${mib(now)} MiB`);
  });
}
