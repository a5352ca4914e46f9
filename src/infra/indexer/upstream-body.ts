/**
 * What the HTTP clients of upstream services (the indexer's GraphQL, a node's JSON-RPC) share:
 * reading an answer with a size cap, and naming a transport failure.
 */

/** undici's codes for an upstream that did not answer in time. */
export const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/**
 * The body as text, refused (with the caller's error) once it passes `cap` bytes: by its declared
 * length before reading, or while reading; the body is destroyed either way.
 */
export async function readCapped(
  body: AsyncIterable<Buffer> & { destroy(err?: Error): unknown },
  cap: number,
  declared: string | string[] | undefined,
  tooLarge: (declaredBytes: string | undefined) => Error,
): Promise<string> {
  if (typeof declared === 'string' && Number(declared) > cap) {
    body.destroy();
    throw tooLarge(declared);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > cap) {
      body.destroy();
      throw tooLarge(undefined);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}

/** The error's code (ECONNREFUSED, UND_ERR_SOCKET…): undici's messages name the address they tried. */
export function describe(err: unknown): string {
  const e = err as { code?: string; name?: string };
  return e.code ?? e.name ?? 'unknown error';
}
