/**
 * The policy webhook's signature: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`.
 * A receiver (test/helpers/webhook-receiver.ts, the documented check) accepts exactly what nightgate
 * signed with its secret, within the time tolerance.
 */
import t from 'tap';
import { createHmac } from 'node:crypto';
import { signWebhook } from '../../../../src/features/sponsorship/policy/signature.js';
import { verifyWebhookSignature } from '../../../helpers/webhook-receiver.js';

const SECRET = 'a-webhook-secret-of-some-length';
const BODY = '{"id":"q-1","fee":"1000","feeUnit":"SPECK"}';
const NOW = 1_750_000_000_123;

t.test('the header is the documented HMAC of "<t>.<body>", t in whole seconds', async (t) => {
  const header = signWebhook(SECRET, BODY, NOW);
  const mac = createHmac('sha256', SECRET).update(`1750000000.${BODY}`).digest('hex');
  t.equal(header, `t=1750000000,v1=${mac}`);
  t.equal(signWebhook(SECRET, Buffer.from(BODY), NOW), header, 'bytes and text sign alike');
});

t.test('a signature verifies with the same secret and body', async (t) => {
  const header = signWebhook(SECRET, BODY, NOW);
  t.ok(verifyWebhookSignature(SECRET, BODY, header, NOW));
  t.ok(verifyWebhookSignature(SECRET, Buffer.from(BODY), header, NOW), 'raw bytes as received');
  t.ok(verifyWebhookSignature(SECRET, BODY, header.replace(',', ' , '), NOW), 'spaces around pairs');
});

t.test('another secret or a changed body does not verify', async (t) => {
  const header = signWebhook(SECRET, BODY, NOW);
  t.notOk(verifyWebhookSignature('another-secret-of-some-length', BODY, header, NOW), 'wrong secret');
  t.notOk(verifyWebhookSignature(SECRET, BODY.replace('1000', '1001'), header, NOW), 'tampered body');
  t.notOk(verifyWebhookSignature(SECRET, `${BODY} `, header, NOW), 'a byte more');
  const [tPart, v1] = header.split(',') as [string, string];
  t.notOk(verifyWebhookSignature(SECRET, BODY, `t=${Number(tPart.slice(2)) + 1},${v1}`, NOW), 'timestamp changed, MAC kept');
});

t.test('a timestamp beyond the tolerance either way is refused', async (t) => {
  const header = signWebhook(SECRET, BODY, NOW);
  t.ok(verifyWebhookSignature(SECRET, BODY, header, NOW + 299_000), 'just within 300 s later');
  t.notOk(verifyWebhookSignature(SECRET, BODY, header, NOW + 301_000), 'stale');
  t.ok(verifyWebhookSignature(SECRET, BODY, header, NOW - 299_000), 'just within 300 s earlier');
  t.notOk(verifyWebhookSignature(SECRET, BODY, header, NOW - 301_000), 'from the future');
  t.ok(verifyWebhookSignature(SECRET, BODY, header, NOW + 3_000_000, 3_600), 'a wider tolerance');
  t.notOk(verifyWebhookSignature(SECRET, BODY, header, NOW + 10_000, 5), 'a narrower tolerance');
});

t.test('malformed headers are refused', async (t) => {
  const header = signWebhook(SECRET, BODY, NOW);
  const [tPart, v1] = header.split(',') as [string, string];
  const mac = v1.slice(3);
  for (const bad of [
    undefined,
    null,
    '',
    'garbage',
    tPart,
    v1,
    `${tPart},v1=`,
    `${tPart},v1=${mac.slice(1)}`,
    `${tPart},v1=${mac}00`,
    `${tPart},v1=${mac.toUpperCase()}`,
    `${tPart},v1=${'z'.repeat(64)}`,
    `t=,${v1}`,
    `t=-1,${v1}`,
    `t=1.5e9,${v1}`,
    `t=abc,${v1}`,
    `${tPart},${tPart},${v1}`,
    `${tPart},${v1},junk`,
    `${tPart};${v1}`,
    `${tPart},${v1},v0=${'x'.repeat(1000)}`,
  ]) {
    t.notOk(verifyWebhookSignature(SECRET, BODY, bad, NOW), `refused: ${String(bad).slice(0, 60)}`);
  }
});

t.test('several v1 values: any one that matches verifies, unknown keys are ignored', async (t) => {
  const header = signWebhook(SECRET, BODY, NOW);
  const [tPart, v1] = header.split(',') as [string, string];
  const other = signWebhook('an-older-rotated-secret-value', BODY, NOW).split(',')[1]!;
  t.ok(verifyWebhookSignature(SECRET, BODY, `${tPart},${other},${v1}`, NOW), 'new secret second');
  t.ok(verifyWebhookSignature(SECRET, BODY, `${tPart},${v1},${other}`, NOW), 'new secret first');
  t.ok(verifyWebhookSignature('an-older-rotated-secret-value', BODY, `${tPart},${v1},${other}`, NOW), 'the old secret too');
  t.notOk(verifyWebhookSignature(SECRET, BODY, `${tPart},${other},${other}`, NOW), 'none matches');
  t.ok(verifyWebhookSignature(SECRET, BODY, `${tPart},v2=future,${v1}`, NOW), 'a later scheme alongside');
  t.notOk(verifyWebhookSignature(SECRET, BODY, `${tPart},v2=${v1.slice(3)}`, NOW), 'a v2 alone is not a v1');
});
