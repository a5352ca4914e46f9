/** Single HTTP requests outside the load runs (set-up, pre-flight checks, probes), each with a timeout. */

export interface Reply {
  status: number;
  headers: Headers;
  body: Buffer;
}

export async function request(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: Uint8Array | string; timeoutMs?: number } = {},
): Promise<Reply> {
  const res = await fetch(url, {
    method: init.method ?? 'GET',
    ...(init.headers ? { headers: init.headers } : {}),
    ...(init.body !== undefined ? { body: init.body } : {}),
    signal: AbortSignal.timeout(init.timeoutMs ?? 10_000),
  });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

export async function getJson(url: string, timeoutMs = 10_000, headers?: Record<string, string>): Promise<{ status: number; json: unknown }> {
  const r = await request(url, { timeoutMs, ...(headers ? { headers } : {}) });
  let json: unknown;
  try {
    json = JSON.parse(r.body.toString('utf8'));
  } catch {
    json = undefined;
  }
  return { status: r.status, json };
}

export async function postGraphql<T>(url: string, query: string, variables: Record<string, unknown> = {}, timeoutMs = 10_000): Promise<T> {
  const r = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
    timeoutMs,
  });
  const parsed = JSON.parse(r.body.toString('utf8')) as { data?: T; errors?: Array<{ message: string }> };
  if (parsed.errors?.length || !parsed.data) {
    throw new Error(`GraphQL ${url}: ${parsed.errors?.map((e) => e.message).join('; ') ?? `status ${r.status}`}`);
  }
  return parsed.data;
}

/**
 * Polls `probe` until it returns a value (not undefined), at most `attempts` times and for at most
 * `timeoutMs`; returns undefined when neither bound let it succeed.
 */
export async function pollUntil<T>(probe: () => Promise<T | undefined>, opts: { timeoutMs: number; intervalMs: number }): Promise<T | undefined> {
  const deadline = Date.now() + opts.timeoutMs;
  const attempts = Math.ceil(opts.timeoutMs / opts.intervalMs) + 1;
  for (let i = 0; i < attempts && Date.now() <= deadline; i++) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    await sleep(Math.min(opts.intervalMs, Math.max(0, deadline - Date.now())));
  }
  return undefined;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
