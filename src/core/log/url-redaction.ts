/**
 * One redaction for every URL nightgate prints or returns (logs, /health, error messages): user
 * info and query strings are where operators put indexer and prover credentials
 * (`https://user:PASS@host/…?apikey=TOKEN`), so both are replaced, and the fragment dropped. The
 * scheme, host, port and path stay: they are what a person needs to find the failing upstream.
 */
const MARK = 'redacted';

/** `http://u:p@host:1/path?k=v#f` → `http://redacted@host:1/path?redacted`. */
export function redactUrl(url: string): string {
  if (url === '') return url;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    // Not a URL: nothing in it can be told apart from a secret.
    return MARK;
  }
  const userInfo = u.username !== '' || u.password !== '';
  const query = u.search !== '' || url.includes('?');
  if (!userInfo && !query && u.hash === '') return url;
  const rest = url.slice(url.indexOf('//') + 2);
  const authorityEnd = rest.search(/[/?#]/);
  const authority = authorityEnd < 0 ? rest : rest.slice(0, authorityEnd);
  const host = authority.slice(authority.lastIndexOf('@') + 1);
  return `${u.protocol}//${userInfo ? `${MARK}@` : ''}${host}${authorityEnd < 0 ? '' : u.pathname}${u.search !== '' ? `?${MARK}` : ''}`;
}

/** Absolute URLs (`scheme://…`) up to whitespace, a quote or a bracket; trailing punctuation is not theirs. */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>()[\]{}]+?(?=[.,;:!]*(?:[\s"'<>()[\]{}]|$))/gi;

/** Redact every URL inside a text (an error message), keeping the words around it. */
export function redactUrls(text: string): string {
  return text.includes('://') ? text.replace(URL_IN_TEXT, redactUrl) : text;
}

/** A copy of a JSON-like report with every string passed through `redactUrls`. */
export function redactDeep<T>(value: T): T {
  if (typeof value === 'string') return redactUrls(value) as T;
  if (Array.isArray(value)) return value.map(redactDeep) as T;
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = redactDeep(v);
    return out as T;
  }
  return value;
}
