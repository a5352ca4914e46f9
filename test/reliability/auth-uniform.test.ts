/**
 * Every key-protected route answers one identical 401 — same status, same body bytes, same
 * headers — whatever is wrong with the key: missing, wrong, wrong length, over-long, revoked,
 * malformed Authorization, wrong scheme. Authentication runs before anything else, so a bad key
 * learns nothing about the route either (not its body limit, not its Content-Type, not its rate).
 * (The pipeline alone, on a test route: test/integration/front/auth.test.ts.)
 */
import t from 'tap';
import { request } from 'undici';
import { startApp, TEST_KEY } from '../helpers/app.js';
import { sha256Hex } from '../../src/core/guards/auth.js';
import { mountProver } from '../../src/features/proving/index.js';
import { mountSponsorship } from '../../src/features/sponsorship/index.js';
import { CLOSED } from './helpers/apps.js';

const REVOKED = 'revoked-key-0123456789abcdef';
// 150 refusals from one address: above the failed-authentication limit's default, which
// auth-failures.test.ts covers; here every refusal must be the 401.
const s = await startApp(
  {
    auth: { keys: [{ id: 'gone', sha256: sha256Hex(REVOKED), revoked: true }], failureLimit: 1_000 },
    networks: { mainnet: CLOSED, preprod: CLOSED, preview: CLOSED },
    rateLimit: { limit: 1 },
  },
  { modules: [mountProver, mountSponsorship] },
);
t.teardown(() => s.close());

const wrongSameLength = TEST_KEY.replace(/.$/, (c) => (c === 'f' ? 'e' : 'f'));
const credentials: Record<string, Record<string, string>> = {
  missing: {},
  'wrong, same length': { 'x-api-key': wrongSameLength },
  'wrong length (short)': { 'x-api-key': 'x' },
  'over-long (600 bytes)': { 'x-api-key': 'k'.repeat(600) },
  revoked: { 'x-api-key': REVOKED },
  'revoked as Bearer': { authorization: `Bearer ${REVOKED}` },
  'empty X-API-Key, no Authorization': { 'x-api-key': '' },
  'blank X-API-Key': { 'x-api-key': '   ' },
  'Bearer with no token': { authorization: 'Bearer ' },
  'Basic scheme with the valid key': { authorization: `Basic ${Buffer.from(`user:${TEST_KEY}`).toString('base64')}` },
  'valid key as a token68 without scheme': { authorization: TEST_KEY },
  'valid key with a prefix': { 'x-api-key': `x${TEST_KEY}` },
  'valid key truncated': { 'x-api-key': TEST_KEY.slice(0, -1) },
  'a wrong X-API-Key wins over a valid Bearer': { 'x-api-key': wrongSameLength, authorization: `Bearer ${TEST_KEY}` },
  'non-ASCII key': { 'x-api-key': 'clé-secrète-0123456789' },
};

/** Headers that may differ per response (request id, date); everything else must be identical. */
const VARYING = new Set(['x-request-id', 'date']);

t.test('one 401 for every credential failure on every keyed route', async (t) => {
  const keyed = s.app.routes.filter((r) => r.auth === 'key');
  t.ok(keyed.length >= 10, `${keyed.length} keyed routes`);
  const seen = new Map<string, string>();
  let n = 0;
  for (const route of keyed) {
    const path = route.url.replace(/:(\w+)/g, 'x');
    for (const [name, headers] of Object.entries(credentials)) {
      // A body that would otherwise get 413 (declared), 415 (wrong type): the 401 must come first.
      const body = route.method === 'POST' ? { body: 'not read', headers: { ...headers, 'content-type': 'text/plain', 'content-length': '8' } } : { headers };
      const r = await request(`${s.url}${path}`, { method: route.method, ...body });
      const text = await r.body.text();
      t.equal(r.statusCode, 401, `${route.method} ${route.url}, ${name}`);
      const fingerprint = JSON.stringify({
        body: text,
        headers: Object.entries(r.headers)
          .filter(([k]) => !VARYING.has(k))
          .sort(([a], [b]) => a.localeCompare(b)),
      });
      seen.set(fingerprint, `${route.url} ${name}`);
      n++;
    }
  }
  t.equal(seen.size, 1, `${n} refusals, one identical answer: ${[...seen.keys()].join('\n')}`);
  const [only] = [...seen.keys()];
  t.match(only, /"body":"\{\\"error\\":\\"Unauthorized\\",\\"message\\":\\"Missing or invalid API key\\",\\"code\\":\\"UNAUTHORIZED\\"\}"/);
  t.match(only, /"www-authenticate","Bearer realm=\\"nightgate\\""/);
  t.notMatch(only, /ratelimit/i, 'no rate-limit header: a bad key is counted against no quota');
});

t.test('refusals spend no quota of the real key', async (t) => {
  // limit 1: had any refusal above counted against it, this would be 429.
  const r = await request(`${s.url}/wallet-status`, { headers: { 'x-api-key': TEST_KEY } });
  t.not(r.statusCode, 429);
  t.not(r.statusCode, 401);
  await r.body.dump();
});
