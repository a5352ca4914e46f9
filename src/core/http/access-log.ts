/**
 * The access log: one JSON line per request, the same line pino would write for
 * `log.info({reqId, method, route, path, status, ms, ip, keyId, clientId, clientName}, 'request')`
 * on the http logger (its level, time format and bindings), built by hand and written in batches.
 *
 * Why not pino itself: at 50 k requests/s its path per line — serialize an object, an ISO time
 * from a new Date, a byte count and a SonicBoom write per line — cost 40 % of the cached routes'
 * throughput (bench/RESULTS.md). Here the line is one string concatenation of fields
 * whose shapes are known (numbers, constant route patterns, and client-supplied strings checked
 * for characters JSON must escape, escaped only when they have one), the time string is reused
 * within a millisecond, and the lines of one event-loop turn leave as one write.
 *
 * With `log.requests: aggregate` (the default) the public routes' answers below 400 get no line of
 * their own: they are counted by route pattern and status, and once a second one line
 * (`"msg":"requests"`) says how many each had, so a dashboard polling the cached statistics costs
 * the log nothing per request. Keyed requests and every error keep their full lines, but the
 * refusals refusal-fold.ts folds (an address's repeated ones, and all of them past a budget of
 * lines a second), which are counted by code, with the addresses refused most, in one warn line a
 * second (`"msg":"refusals"`).
 *
 * Batching applies on the bounded stdout output (log-output.ts) only: lines wait at most until the
 * end of the event-loop turn that served them (`setImmediate`) or until 64 KiB are pending, and a
 * batch that does not fit the bounded buffer is dropped whole and its lines counted, as single
 * lines were. Any other destination (the tests' capture) gets each line at once.
 */
import { pino, type Logger, type DestinationStream } from 'pino';
import { BoundedOutput } from '../log/output.js';
import { RefusalCounts, TOP_REFUSED_CLIENTS } from './refusal-fold.js';

/** Pending bytes that make a batch leave before the end of the event-loop turn. */
const ACCESS_BATCH_BYTES = 64 * 1024;

/** How often the counted answers are written (`"msg":"requests"`). */
const COUNT_WINDOW_MS = 1000;

/** Printable ASCII but `"` and `\`: a JSON string as is. Anything else goes through JSON.stringify. */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

export function jsonString(s: string): string {
  return PLAIN.test(s) ? `"${s}"` : JSON.stringify(s);
}

interface PinoInternals {
  [k: symbol]: unknown;
}

/**
 * The level of a request's line: 5xx at error (50), but 503 which with 429 is a warn
 * (40) — the server turned work away, by design; everything else info (30). An error line carries
 * the answer's stable `code`, so an operator can alert on both.
 */
function accessLevel(status: number, code?: string): 30 | 40 | 50 {
  // A server still starting says so to its readiness probes: expected, not a warning.
  if (code === 'SERVER_NOT_READY') return 30;
  if (status === 429 || status === 503) return 40;
  return status >= 500 ? 50 : 30;
}

export class AccessLog {
  /** False when the logger's level hides `warn`: nothing is built or written. */
  readonly enabled: boolean;
  /** Whether info lines (answers below 500 but 429) are written; warn and error ones are while `enabled`. */
  readonly infoEnabled: boolean;
  private readonly dest: DestinationStream;
  private readonly bounded: BoundedOutput | undefined;
  /** `,"service":…,"module":"http"` — the logger's bindings as pino renders them. */
  private readonly bindings: string;
  /** pino's timestamp function: `,"time":…`. */
  private readonly time: () => string;
  private lastMs = -1;
  private lastTime = '';
  private pending = '';
  private pendingLines = 0;
  private scheduled = false;
  private readonly flushNow = (): void => {
    this.scheduled = false;
    this.flush();
  };
  /** Counted answers since the last `"requests"` line: route pattern → status → count. */
  private readonly counts = new Map<string, Map<number, number>>();
  private counted = 0;
  /** Refusals counted instead of logged (refusal-fold.ts). */
  private readonly refusals = new RefusalCounts();
  private countsSince = 0;
  private countTimer: NodeJS.Timeout | undefined;
  private readonly countTick = (): void => this.writeCounts();

  constructor(
    logger: Logger,
    private readonly batchBytes = ACCESS_BATCH_BYTES,
  ) {
    const l = logger as unknown as PinoInternals;
    this.infoEnabled = logger.isLevelEnabled('info');
    this.enabled = logger.isLevelEnabled('warn');
    this.dest = l[pino.symbols.streamSym] as DestinationStream;
    this.bounded = this.dest instanceof BoundedOutput ? this.dest : undefined;
    this.bindings = String(l[pino.symbols.chindingsSym] ?? '');
    this.time = l[pino.symbols.timeSym] as () => string;
  }

  /** One request's line. `route` is a constant pattern; the other strings may come from the client. */
  write(
    reqId: string,
    method: string,
    route: string,
    path: string,
    status: number,
    ms: number,
    ip: string,
    keyId: string | undefined,
    clientId: string | undefined,
    clientName: string | undefined,
    code?: string,
  ): void {
    const level = accessLevel(status, code);
    if (level === 30 && !this.infoEnabled) return;
    const now = Date.now();
    if (now !== this.lastMs) {
      this.lastMs = now;
      this.lastTime = this.time();
    }
    let line =
      '{"level":' +
      level +
      this.lastTime +
      this.bindings +
      ',"reqId":' +
      jsonString(reqId) +
      ',"method":"' +
      method +
      '","route":' +
      jsonString(route) +
      ',"path":' +
      jsonString(path) +
      ',"status":' +
      status +
      ',"ms":' +
      ms +
      ',"ip":' +
      jsonString(ip);
    if (keyId !== undefined) line += ',"keyId":' + jsonString(keyId);
    if (clientId !== undefined) line += ',"clientId":' + jsonString(clientId);
    if (clientName !== undefined) line += ',"clientName":' + jsonString(clientName);
    if (code !== undefined) line += ',"code":"' + code + '"';
    line += ',"msg":"request"}\n';
    this.emit(line);
  }

  private emit(line: string): void {
    if (this.bounded === undefined) {
      this.dest.write(line);
      return;
    }
    this.pending += line;
    this.pendingLines++;
    if (this.pending.length >= this.batchBytes) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flushNow);
    }
  }

  /** One answer counted instead of logged (aggregate mode): it appears in the next `"requests"` line. */
  count(route: string, status: number): void {
    if (!this.infoEnabled) return;
    let byStatus = this.counts.get(route);
    if (byStatus === undefined) {
      byStatus = new Map();
      this.counts.set(route, byStatus);
    }
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
    this.counted++;
    this.startCountTimer();
  }

  /** One refusal counted instead of logged: it appears in the next `"refusals"` line. */
  countRefusal(client: string, code: string): void {
    this.refusals.add(client, code);
    this.startCountTimer();
  }

  private startCountTimer(): void {
    if (this.countTimer !== undefined) return;
    this.countsSince = Date.now();
    this.countTimer = setInterval(this.countTick, COUNT_WINDOW_MS);
    this.countTimer.unref();
  }

  /**
   * The `"requests"` and `"refusals"` lines for what was counted since the last ones (every
   * COUNT_WINDOW_MS, and at shutdown); a window without either writes nothing and stops the timer
   * until the next one.
   */
  writeCounts(): void {
    if (this.counted === 0 && this.refusals.total === 0) {
      if (this.countTimer !== undefined) clearInterval(this.countTimer);
      this.countTimer = undefined;
      return;
    }
    const now = Date.now();
    if (this.refusals.total > 0) this.writeRefusals(now);
    if (this.counted === 0) {
      this.countsSince = now;
      return;
    }
    let routes = '';
    for (const [route, byStatus] of this.counts) {
      let statuses = '';
      for (const [status, n] of byStatus) statuses += `${statuses === '' ? '' : ','}"${status}":${n}`;
      routes += `${routes === '' ? '' : ','}${jsonString(route)}:{${statuses}}`;
    }
    const line =
      `{"level":30${this.time()}${this.bindings},"windowMs":${now - this.countsSince}` +
      `,"total":${this.counted}` +
      `,"routes":{${routes}` +
      `},"msg":"requests"}\n`;
    this.counts.clear();
    this.counted = 0;
    this.countsSince = now;
    this.emit(line);
  }

  /**
   * At warn, as the refusals it stands for would have been: one line a second at most, of bounded
   * size — the counts by code (`codes`), how many addresses (`addresses`, counted one by one up to
   * MAX_COUNTED_CLIENTS), and by code for the TOP_REFUSED_CLIENTS addresses refused most, the
   * others summed under `"other"` (`clients`).
   */
  private writeRefusals(now: number): void {
    const r = this.refusals;
    const { top, other } = r.top(TOP_REFUSED_CLIENTS);
    let clients = '';
    for (const c of top) clients += `${clients === '' ? '' : ','}${jsonString(c.client)}:{${codeCounts(c.codes)}}`;
    if (other !== undefined) clients += `${clients === '' ? '' : ','}"other":{${codeCounts(other)}}`;
    const line =
      `{"level":40${this.time()}${this.bindings},"windowMs":${now - this.countsSince}` +
      `,"total":${r.total}` +
      `,"codes":{${codeCounts(r.codes)}` +
      `},"addresses":${r.addresses}` +
      `,"clients":{${clients}` +
      `},"msg":"refusals"}\n`;
    r.clear();
    this.emit(line);
  }

  /** Hand the pending lines to the output now (the end of an event-loop turn, a full batch, shutdown). */
  flush(): void {
    if (this.pendingLines === 0) return;
    const chunk = this.pending;
    const lines = this.pendingLines;
    this.pending = '';
    this.pendingLines = 0;
    this.bounded!.writeLines(chunk, lines);
  }
}

/** `"CODE":n,…` */
function codeCounts(codes: Map<string, number>): string {
  let out = '';
  for (const [code, n] of codes) out += `${out === '' ? '' : ','}${jsonString(code)}:${n}`;
  return out;
}
