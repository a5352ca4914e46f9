/**
 * A key's policy as the config holds it: checked at load (shape, dates, caps, duplicates), compiled
 * for the requests, changed by a reload, and its webhook secret never logged or shown in an error.
 */
import t from 'tap';
import { ConfigError, loadConfig, type ApiKeyRecord } from '../../../../src/core/config/index.js';
import { keyPolicyProblem, shownPolicy } from '../../../../src/core/config/key-policy.js';
import { compileKeyPolicy } from '../../../../src/features/sponsorship/policy/compiled-policy.js';
import { redactedConfig } from '../../../../src/core/config/describe.js';
import { KeyStore, sha256Hex } from '../../../../src/core/guards/auth.js';

const RAW = 'ngk_policy-key-000000000000000000000000000000';
const SECRET = 'hook-secret-do-not-log-0123';
const key = (policy: unknown, extra: Partial<ApiKeyRecord> = {}): ApiKeyRecord => ({ id: 'shop', sha256: sha256Hex(RAW), policy, ...extra }) as ApiKeyRecord;
const load = (k: ApiKeyRecord) => loadConfig({ env: {}, overrides: { auth: { keys: [k] } } });

t.test('a full policy loads and compiles: dates as ms, contracts by lower-case address, defaults filled', async (t) => {
  const config = load(
    key(
      {
        allow: {
          nightTransfers: true,
          contracts: [
            { address: `0x${'AB'.repeat(32)}`, entryPoints: ['mint'] },
            { address: 'cd'.repeat(32), maintenance: true },
          ],
        },
        perUser: { maxSponsorships: 3, maxDust: '1000', windowMs: 86_400_000 },
        validFrom: '2026-12-01T00:00:00Z',
        validUntil: '2027-01-01T00:00:00Z',
        webhook: { url: 'https://shop.example/sponsor', onTimeout: 'reject', secret: SECRET },
      },
      { admin: true },
    ),
  );
  const p = compileKeyPolicy(config.auth.keys[0]!.policy!);
  t.same(p.allow?.nightTransfers, true);
  t.same(p.allow?.shielded, false, 'a kind left out of allow is refused');
  t.same([...p.allow!.contracts.keys()], ['ab'.repeat(32), 'cd'.repeat(32)]);
  t.same([...p.allow!.contracts.get('ab'.repeat(32))!.entryPoints!], ['mint']);
  t.equal(p.allow!.contracts.get('cd'.repeat(32))!.entryPoints, null, 'no entryPoints: any');
  t.equal(p.allow!.contracts.get('cd'.repeat(32))!.maintenance, true);
  t.same(p.perUser, { maxSponsorships: 3, maxDust: 1000n, windowMs: 86_400_000, userFrom: 'transaction' });
  t.equal(p.validFrom, Date.parse('2026-12-01T00:00:00Z'));
  t.equal(p.webhook?.timeoutMs, 2000, 'the default timeout');
  const keys = new KeyStore(config.auth.keys, []);
  t.match(keys.authenticate(RAW), { id: 'shop', admin: true, policy: { perUser: { maxSponsorships: 3 } } });
});

t.test('refused at load, naming the key and the field', async (t) => {
  const cases: Array<[string, unknown, RegExp]> = [
    ['a date that is no date', { validFrom: 'next tuesday' }, /key "shop": policy\.validFrom "next tuesday" is not an ISO date-time/],
    [
      'dates the wrong way round',
      { validFrom: '2027-01-01T00:00:00Z', validUntil: '2026-01-01T00:00:00Z' },
      /policy\.validFrom must be before policy\.validUntil/,
    ],
    ['a per-user cap with no cap', { perUser: { windowMs: 1000 } }, /policy\.perUser needs maxSponsorships or maxDust/],
    [
      'users counted by inputs an allow list refuses',
      { allow: { contracts: [{ address: 'ab'.repeat(32) }] }, perUser: { maxSponsorships: 1, windowMs: 1000 } },
      /policy\.perUser counts users by the owners of unshielded inputs, which policy\.allow refuses/,
    ],
    [
      'a contract listed twice',
      { allow: { contracts: [{ address: 'ab'.repeat(32) }, { address: `0x${'AB'.repeat(32)}` }] } },
      /policy\.allow\.contracts lists (ab){32} twice/,
    ],
    ['an unknown field', { allow: { night: true } }, /invalid setting auth\.keys/],
    ['a short address', { allow: { contracts: [{ address: 'abcd' }] } }, /invalid setting auth\.keys/],
    ['a webhook that is not http', { webhook: { url: 'ftp://x', onTimeout: 'reject', secret: SECRET } }, /invalid setting auth\.keys/],
  ];
  for (const [what, policy, message] of cases) t.throws(() => load(key(policy)), message, what);
  t.throws(() => load(key({ validFrom: 'x' })), ConfigError);
});

t.test('the webhook secret is never shown: not in the logged config, not in a load error', async (t) => {
  const config = load(key({ webhook: { url: 'https://shop.example/sponsor', onTimeout: 'sponsor', secret: SECRET } }));
  const shown = JSON.stringify(redactedConfig(config));
  t.notMatch(shown, SECRET);
  t.match(shown, /"secret":"<redacted>"/);
  const bad = (() => {
    try {
      load(key({ webhook: { url: 'https://shop.example/sponsor', onTimeout: 'later', secret: SECRET } }));
    } catch (err) {
      return (err as Error).message;
    }
    return '';
  })();
  t.match(bad, /invalid setting auth\.keys .*at \/0\/policy\/webhook\/onTimeout/, 'the error points at the field');
  t.notMatch(bad, SECRET);
  const short = (() => {
    try {
      load(key({ webhook: { url: 'https://shop.example/sponsor', onTimeout: 'reject', secret: 'short-secret' } }));
    } catch (err) {
      return (err as Error).message;
    }
    return '';
  })();
  t.match(short, /<redacted>/, 'a wrong secret is not echoed either');
  t.notMatch(short, 'short-secret');
});

t.test('what a policy shows (GET /usage, the config dump): no secret, no credentials in the webhook URL', async (t) => {
  const policy = { webhook: { url: 'https://hook:PASSWORD@shop.example/sponsor?token=TOKEN', onTimeout: 'reject' as const, secret: SECRET } };
  const shown = JSON.stringify(shownPolicy(policy));
  for (const secret of [SECRET, 'PASSWORD', 'TOKEN']) t.notMatch(shown, secret, `${secret.slice(0, 8)}… not shown`);
  t.match(
    shownPolicy(policy).webhook,
    { url: 'https://redacted@shop.example/sponsor?redacted', secret: '<redacted>', onTimeout: 'reject' },
    'the host and path stay',
  );
  t.equal(policy.webhook.url, 'https://hook:PASSWORD@shop.example/sponsor?token=TOKEN', 'the policy itself is untouched');
  const allowed = { allow: { contracts: [{ address: 'ab'.repeat(32) }], nightTransfers: true }, perUser: { maxSponsorships: 1, windowMs: 1000 } };
  t.equal(keyPolicyProblem(allowed), undefined, 'users by inputs with nightTransfers allowed: fine');
  t.equal(
    keyPolicyProblem({ ...allowed, allow: { contracts: allowed.allow.contracts }, perUser: { ...allowed.perUser, userFrom: 'client-id' as const } }),
    undefined,
    'or counted by client id',
  );
});

t.test('a reload that changes only a policy or the admin flag reports the key changed, and the next request gets it', async (t) => {
  const before = key({ allow: { nightTransfers: true } });
  const keys = new KeyStore([before], []);
  t.same(keys.replace([key({ allow: { nightTransfers: false } })], []).changed, ['shop']);
  t.equal(keys.authenticate(RAW)?.policy?.allow?.nightTransfers, false);
  t.same(keys.replace([key({ allow: { nightTransfers: false } }, { admin: true })], []).changed, ['shop']);
  t.same(keys.replace([key({ allow: { nightTransfers: false } }, { admin: true })], []).changed, [], 'the same policy again changes nothing');
  t.same(keys.replace([{ id: 'shop', sha256: sha256Hex(RAW), admin: true }], []).changed, ['shop'], 'a policy removed');
  t.equal(keys.authenticate(RAW)?.policy, undefined);
});
