/**
 * Micro-benchmark of what a key's sponsorship policy (docs/policies.md) adds to one sponsorship,
 * webhook time aside, per ledger era (8 and 9) and per transaction: a signed NIGHT transfer, and a
 * call of a contract (the devnet's counter, `increment`) beside the user's own NIGHT payment (the
 * user is the owner of its unshielded input). Both arrive unproven (`/prove-and-balance`),
 * serialized, and are deserialized once by the worker as the sponsorship task does.
 *
 * The policy: `allow` with 100 listed contracts (the counter's among them, `increment` only) and
 * `nightTransfers`; `perUser` {maxSponsorships 20, maxDust, windowMs 1 day}. The `+ webhook` rows
 * add a webhook answered at once by a no-op client (its HTTP time aside): the gate then builds the
 * webhook's summary and the worker computes the user's fee for it (`effectsOf(…, withFee)`, as
 * worker/sponsor.ts does when `gate.asksFee(key)`).
 *
 * Parts, each in µs per check:
 * - effects: `effectsOf` in a worker thread, on the deserialized transaction, at the initial
 *   ledger parameters (what worker/sponsor.ts computes before it asks);
 * - roundTrip: in a real worker thread, `effectsOf` then the effects posted to the main thread over
 *   a port, which answers through a real `PolicyGate` (memory counters) and commits the ticket with
 *   the fee once the answer is out, as the service does after the task: the effects crossing the
 *   thread boundary (as the admission task's result does) and the gate's verdict, the headline
 *   against the 1 ms budget; `ask`: the same with the effects read before the loop (the port and
 *   the gate alone);
 * - gate: the main thread alone, `gate.admit` + `ticket.commit`, one check after the other.
 *
 * The counters hold 10 000 other users; each cell's users stay under their caps (their window
 * moves on every 10 sponsorships each), so every check is admitted, which `refused: 0` asserts.
 * Each figure is the median over rounds of the round's median check (200 checks a round), with
 * the spread (min–max of the round medians); rounds are interleaved over eras, parts and
 * transactions, in a rotating order, after one warm-up round.
 *
 * Run alone: `node --import tsx bench/policy-check.ts [--quick]` prints a table and the figures as
 * JSON; the bench harness (bench/lib/micro.ts) imports `run(options)` instead. The same file is the
 * worker: started as a worker thread, it holds the transactions and asks.
 */
import { once } from 'node:events';
import { loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { isMainThread, MessageChannel, parentPort, workerData, type MessagePort, type Worker } from 'node:worker_threads';
import { pino } from 'pino';
import { startModuleWorker } from '@nightgate/threads';
import type { TxEffects } from '../src/features/sponsorship/common/effects.js';
import { PolicyGate } from '../src/features/sponsorship/policy/gate.js';
import { MemoryUserCounters } from '../src/features/sponsorship/policy/user-counters.js';
import { effectsOf } from '../src/features/sponsorship/worker/effects.js';
import { deserialize, type AnyTx } from '../src/features/sponsorship/worker/user-transaction.js';
import { ledger, type Era, type L } from '../src/infra/ledger/index.js';
import { Cell, WINDOW_MS, noWebhook, policyInput } from './lib/policy-cells.js';
import { KINDS, setUpEra, type EraSetup, type Kind } from './lib/policy-transactions.js';

export interface PolicyCheckBenchOptions {
  /** 3 rounds instead of 7 (the harness's --quick). */
  quick?: boolean;
  /** Time the measuring may take; more rounds are run while it lasts (at most 3 × the minimum). */
  durationMs?: number;
}

/** One part on one era and transaction: µs per check. */
export interface PartFigure {
  /** Median of the round medians. */
  medianUs: number;
  /** Lowest and highest round median. */
  minUs: number;
  maxUs: number;
}

type Part = 'effects' | 'effectsWithFee' | 'roundTrip' | 'roundTripWebhook' | 'ask' | 'gate' | 'gateWebhook';

/** What each part measures: where, and for which policy. */
const PART: Record<Part, { what: 'effects' | 'roundTrip' | 'gate'; webhook: boolean; precomputed?: boolean; label: string }> = {
  effects: { what: 'effects', webhook: false, label: '(a) worker: effectsOf' },
  effectsWithFee: { what: 'effects', webhook: true, label: '(a) worker: effectsOf with the fee (+ webhook)' },
  roundTrip: { what: 'roundTrip', webhook: false, label: '(b) port round trip, effectsOf included' },
  roundTripWebhook: { what: 'roundTrip', webhook: true, label: '(b) port round trip (+ webhook)' },
  ask: { what: 'roundTrip', webhook: false, precomputed: true, label: '(b) of which the ask alone' },
  gate: { what: 'gate', webhook: false, label: '(c) main thread: admit + commit' },
  gateWebhook: { what: 'gate', webhook: true, label: '(c) main thread: admit + commit (+ webhook)' },
};
type EraFigures = Record<Part, Record<Kind, PartFigure>>;

export interface PolicyCheckBenchFigures {
  /** The headline: the round trip (worker's ask to its answer, effectsOf included, no webhook), the slower transaction, per era. */
  roundTripUs: { era8: number; era9: number };
  budgetUs: number;
  withinBudget: boolean;
  era8: EraFigures;
  era9: EraFigures;
  rounds: number;
  checksPerRound: number;
  /** Checks refused or failed: the figures hold for admitted checks only, so this must be 0. */
  refused: number;
  loadAverage1m: number;
}

const ERAS: readonly Era[] = [8, 9];
const PARTS = Object.keys(PART) as Part[];
const BUDGET_US = 1000;
const CHECKS = 200;
const OTHER_USERS = 10_000;

interface WorkerJob {
  readonly policyCheckBench: true;
  /** Serialized unproven transactions, by era and kind. */
  readonly txs: Record<Era, Record<Kind, Uint8Array[]>>;
}

type Command =
  | { id: number; op: 'effects'; era: Era; kind: Kind; checks: number; withFee: boolean }
  /** `precomputed`: the effects are read before the loop, so only the ask is timed. */
  | { id: number; op: 'ask'; era: Era; kind: Kind; checks: number; withFee: boolean; port: MessagePort; precomputed: boolean };
type Reply = { id: number; times: Float64Array } | { id: number; error: string };

const elapsedUs = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1000;

/** Worker side of the round trip: posts the effects, resolves on the main thread's verdict. */
function askOver(port: MessagePort): (effects: TxEffects) => Promise<void> {
  let next = 0;
  const pending = new Map<number, { resolve(): void; reject(e: Error): void }>();
  port.on('message', (r: { ask: number; ok: boolean }) => {
    const p = pending.get(r.ask);
    pending.delete(r.ask);
    return r.ok ? p?.resolve() : p?.reject(new Error('refused'));
  });
  return (effects) => new Promise((resolve, reject) => (pending.set(++next, { resolve, reject }), port.postMessage({ ask: next, effects })));
}

function median(values: ArrayLike<number>): number {
  const sorted = Float64Array.from(values).sort();
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

// ---------------------------------------------------------------------------------------------
// The main thread: the gate, and the commands each cell sends the worker.

class Bench {
  private next = 0;
  private readonly waiting = new Map<number, { resolve(times: Float64Array): void; reject(e: Error): void }>();
  refused = 0;

  constructor(
    private readonly worker: Worker,
    readonly gate: PolicyGate,
  ) {
    worker.on('message', (r: Reply) => {
      const w = this.waiting.get(r.id);
      this.waiting.delete(r.id);
      if ('error' in r) w?.reject(new Error(r.error));
      else w?.resolve(r.times);
    });
  }

  private command(c: Command extends infer C ? (C extends Command ? Omit<C, 'id'> : never) : never, transfer: MessagePort[] = []): Promise<Float64Array> {
    const id = ++this.next;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ ...c, id }, transfer);
    });
  }

  /** `effectsOf` alone, with the fee when the key's policy needs it (as the service decides). */
  effects(cell: Cell, checks: number): Promise<Float64Array> {
    return this.command({ op: 'effects', era: cell.era, kind: cell.kind, checks, withFee: this.gate.asksFee(cell.key) });
  }

  /** The worker asks `checks` times over one task port; each admitted ticket is committed once the answer is out. */
  async roundTrip(cell: Cell, checks: number, precomputed: boolean): Promise<Float64Array> {
    const { port1, port2 } = new MessageChannel();
    port1.on('message', (m: { ask: number; effects: TxEffects }) => {
      const q = cell.question();
      this.gate.admit(q, m.effects).then(
        (ticket) => {
          port1.postMessage({ ask: m.ask, ok: true });
          setImmediate(() => void ticket.commit(cell.fee, q.now).catch(() => this.refused++));
        },
        () => {
          this.refused++;
          port1.postMessage({ ask: m.ask, ok: false });
        },
      );
    });
    try {
      return await this.command({ op: 'ask', era: cell.era, kind: cell.kind, checks, withFee: this.gate.asksFee(cell.key), port: port2, precomputed }, [port2]);
    } finally {
      port1.close();
    }
  }

  async gateAlone(cell: Cell, effects: readonly TxEffects[], checks: number): Promise<Float64Array> {
    const times = new Float64Array(checks);
    for (let i = 0; i < checks; i++) {
      const e = effects[i % effects.length]!;
      const start = process.hrtime.bigint();
      const q = cell.question();
      try {
        const ticket = await this.gate.admit(q, e);
        await ticket.commit(cell.fee, q.now);
      } catch {
        this.refused++;
      }
      times[i] = elapsedUs(start);
    }
    return times;
  }
}

function figureOf(roundMedians: readonly number[]): PartFigure {
  const round2 = (n: number): number => Math.round(n * 100) / 100;
  return { medianUs: round2(median(roundMedians)), minUs: round2(Math.min(...roundMedians)), maxUs: round2(Math.max(...roundMedians)) };
}

export async function run(options: PolicyCheckBenchOptions = {}): Promise<PolicyCheckBenchFigures> {
  const minRounds = options.quick ? 3 : 7;
  const durationMs = options.durationMs ?? (options.quick ? 1000 : 3000);
  const loadAverage1m = loadavg()[0] ?? 0;

  const setups = new Map<Era, EraSetup>();
  for (const era of ERAS) setups.set(era, setUpEra(era));

  const counters = new MemoryUserCounters();
  for (let i = 0; i < OTHER_USERS; i++)
    counters.hold('bench-other', i.toString(16).padStart(64, '0'), { maxSponsorships: 20, windowMs: WINDOW_MS }, 1_800_000_000_000);
  const gate = new PolicyGate({ counters, webhook: noWebhook, logger: pino({ level: 'silent' }) });

  const job: WorkerJob = { policyCheckBench: true, txs: { 8: setups.get(8)!.txs, 9: setups.get(9)!.txs } };
  const worker = startModuleWorker(new URL('./policy-check', import.meta.url), import.meta.url, { workerData: job });
  const failed = once(worker, 'error').then(([err]) => {
    throw err as Error;
  });
  failed.catch(() => undefined);
  try {
    await Promise.race([once(worker, 'message'), failed]);
    const bench = new Bench(worker, gate);

    const cells: Array<{ era: Era; kind: Kind; part: Part; cell: Cell; medians: number[] }> = [];
    for (const era of ERAS) {
      const s = setups.get(era)!;
      const policies = { plain: policyInput(s.contract, s.fee, false), webhook: policyInput(s.contract, s.fee, true) };
      for (const part of PARTS) {
        for (const kind of KINDS)
          cells.push({ era, kind, part, cell: new Cell(era, kind, part, PART[part].webhook ? policies.webhook : policies.plain, s.fee), medians: [] });
      }
    }
    const measure = async (c: (typeof cells)[number]): Promise<Float64Array> => {
      const part = PART[c.part];
      if (part.what === 'effects') return bench.effects(c.cell, CHECKS);
      if (part.what === 'roundTrip') return bench.roundTrip(c.cell, CHECKS, part.precomputed === true);
      const s = setups.get(c.era)!;
      return bench.gateAlone(c.cell, (part.webhook ? s.effectsWithFee : s.effects)[c.kind], CHECKS);
    };

    // Warm-up: V8 optimises, the WASM heaps grow, the port's first messages.
    for (const c of cells) await Promise.race([measure(c), failed]);
    const began = Date.now();
    let rounds = 0;
    while (rounds < minRounds || (Date.now() - began < durationMs && rounds < 3 * minRounds)) {
      // Interleaved: every cell once per round, the order rotated (and reversed every other round).
      const order = cells.map((_, i) => cells[(i + rounds * 5) % cells.length]!);
      if (rounds % 2) order.reverse();
      for (const c of order) c.medians.push(median(await Promise.race([measure(c), failed])));
      rounds++;
    }

    const eraFigures = (era: Era): EraFigures => {
      const pick = (part: Part, kind: Kind): PartFigure => figureOf(cells.find((c) => c.era === era && c.part === part && c.kind === kind)!.medians);
      return Object.fromEntries(PARTS.map((part) => [part, { transfer: pick(part, 'transfer'), call: pick(part, 'call') }])) as EraFigures;
    };
    const era8 = eraFigures(8);
    const era9 = eraFigures(9);
    const headline = (f: EraFigures): number => Math.max(f.roundTrip.transfer.medianUs, f.roundTrip.call.medianUs);
    // Let the last commits land before counting refusals.
    await new Promise((resolve) => setImmediate(resolve));
    return {
      roundTripUs: { era8: headline(era8), era9: headline(era9) },
      budgetUs: BUDGET_US,
      withinBudget: headline(era8) <= BUDGET_US && headline(era9) <= BUDGET_US,
      era8,
      era9,
      rounds,
      checksPerRound: CHECKS,
      refused: bench.refused,
      loadAverage1m,
    };
  } finally {
    await worker.terminate();
    await gate.close();
  }
}

// ---------------------------------------------------------------------------------------------
// The worker: holds the deserialized transactions, reads their effects and asks.

function serveWorker(job: WorkerJob, port: MessagePort): void {
  const held = new Map<Era, { params: L.LedgerParameters; txs: Record<Kind, AnyTx[]> }>();
  for (const era of ERAS) {
    const txs: Record<Kind, AnyTx[]> = { transfer: [], call: [] };
    for (const kind of KINDS) for (const bytes of job.txs[era][kind]) txs[kind].push(deserialize(bytes, 'prove-and-balance', era));
    held.set(era, { params: ledger(era).LedgerParameters.initialParameters(), txs });
  }
  port.on('message', (c: Command) => {
    void (async (): Promise<Reply> => {
      const { params, txs } = held.get(c.era)!;
      const list = txs[c.kind];
      const times = new Float64Array(c.checks);
      const withFee = c.withFee;
      if (c.op === 'effects') {
        for (let i = 0; i < c.checks; i++) {
          const start = process.hrtime.bigint();
          effectsOf(c.era, list[i % list.length]!, params, withFee);
          times[i] = elapsedUs(start);
        }
        return { id: c.id, times };
      }
      const { port: taskPort, precomputed } = c as Extract<Command, { op: 'ask' }>;
      const ask = askOver(taskPort);
      const known = precomputed ? list.map((tx) => effectsOf(c.era, tx, params, withFee)) : [];
      try {
        for (let i = 0; i < c.checks; i++) {
          const start = process.hrtime.bigint();
          const effects = precomputed ? known[i % known.length]! : effectsOf(c.era, list[i % list.length]!, params, withFee);
          await ask(effects).catch(() => undefined);
          times[i] = elapsedUs(start);
        }
      } finally {
        taskPort.close();
      }
      return { id: c.id, times };
    })().then(
      (r) => port.postMessage(r),
      (err: unknown) => port.postMessage({ id: c.id, error: (err as Error).message } satisfies Reply),
    );
  });
  port.postMessage('ready');
}

function table(f: PolicyCheckBenchFigures): string {
  const cell = (p: PartFigure): string => `${p.medianUs.toFixed(1)} (${p.minUs.toFixed(1)}–${p.maxUs.toFixed(1)})`;
  const lines = ['| part | transaction | ledger 8 µs | ledger 9 µs |', '|---|---|---|---|'];
  for (const part of PARTS)
    for (const kind of KINDS) lines.push(`| ${PART[part].label} | ${kind} | ${cell(f.era8[part][kind])} | ${cell(f.era9[part][kind])} |`);
  return lines.join('\n');
}

if (!isMainThread && parentPort !== null && (workerData as Partial<WorkerJob> | null)?.policyCheckBench === true) {
  serveWorker(workerData as WorkerJob, parentPort);
} else if (isMainThread && import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const figures = await run({ quick: process.argv.includes('--quick') });
  console.log(table(figures));
  console.log(
    `\nmedian of ${figures.rounds} rounds × ${figures.checksPerRound} checks (round medians' min–max); refused ${figures.refused}; ` +
      `round trip vs the ${figures.budgetUs} µs budget: ledger 8 ${figures.roundTripUs.era8}` +
      ` µs, ledger 9 ${figures.roundTripUs.era9}` +
      ` µs; load average ${figures.loadAverage1m.toFixed(1)}`,
  );
  console.log(JSON.stringify(figures, null, 2));
}
