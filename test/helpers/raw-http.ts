/** Raw TCP HTTP exchanges, for malformed and hostile requests an HTTP client refuses to send. */
import { connect } from 'node:net';

export interface RawResult {
  /** Everything the server sent before closing or the idle deadline. */
  data: string;
  /** True if the server closed the connection. */
  closed: boolean;
}

/** Send `payload` and collect the answer until the server closes or `untilBytes` text appears. */
export function rawRequest(port: number, payload: string | Buffer, opts: { until?: RegExp; timeoutMs?: number } = {}): Promise<RawResult> {
  return new Promise((resolve, reject) => {
    const sock = connect(port, '127.0.0.1');
    let data = '';
    let settled = false;
    const finish = (closed: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      sock.destroy();
      resolve({ data, closed });
    };
    // A bound so a misbehaving server cannot hang the test; the normal path ends on close or match.
    const timer = setTimeout(() => finish(false), opts.timeoutMs ?? 5000);
    sock.on('data', (d) => {
      data += d.toString('latin1');
      if (opts.until?.test(data)) finish(false);
    });
    sock.on('close', () => finish(true));
    sock.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNRESET' || err.code === 'EPIPE') finish(true);
      else if (!settled) {
        settled = true;
        clearTimeout(timer);
        reject(err);
      }
    });
    sock.write(payload);
  });
}
