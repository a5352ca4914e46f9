/** Where the CLI finds nightgate unless told (`--url`): the default listen address. */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';

/** `localhost:8080` → `http://localhost:8080`, as curl reads it; no trailing slash. */
export function baseUrl(url: string): string {
  const withScheme = /^https?:\/\//i.test(url) ? url : `http://${url}`;
  return withScheme.replace(/\/+$/, '');
}
