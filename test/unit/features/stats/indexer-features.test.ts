/**
 * What the indexer supports is asked once and shared; an outage is not remembered (the next
 * request asks again), a refusal to describe the schema is (baseline documents), and an answer
 * that arrives after the connection was lost does not describe the indexer that comes back.
 */
import t from 'tap';
import { pino } from 'pino';
import { GatewayError } from '../../../../src/core/errors.js';
import type { GqlDocument } from '../../../../src/infra/indexer/document.js';
import type { GraphqlHttpClient, GqlResult } from '../../../../src/infra/indexer/graphql-http.js';
import { IndexerFeatureProbe, featuresFromProbe } from '../../../../src/features/stats/indexer-features.js';
import { BASELINE_FEATURES, FEATURES_PROBE, documentsFor } from '../../../../src/features/stats/queries.js';

const V44 = { regular: { fields: [{ name: 'fee' }, { name: 'fees' }, { name: 'id' }] }, bridgeClaim: { name: 'BridgeClaimTransaction' } };
const V437 = { regular: { fields: [{ name: 'fee' }, { name: 'fees' }] }, bridgeClaim: null };

/** Answers the probe with whatever `next` holds, when the test releases it. */
class ScriptedIndexer {
  next: () => Promise<GqlResult> = async () => ({ data: V44, errors: [] });
  asked = 0;
  request(document: GqlDocument): Promise<GqlResult> {
    if (document !== FEATURES_PROBE) throw new Error(`unexpected ${document.name}`);
    this.asked++;
    return this.next();
  }
}

const probeOf = (indexer: ScriptedIndexer) => new IndexerFeatureProbe(indexer as unknown as GraphqlHttpClient, pino({ level: 'silent' }));

t.test('reading an answer', async (t) => {
  t.strictSame(featuresFromProbe(V44), { fee: true, legacyFees: true, bridgeClaims: true });
  t.strictSame(featuresFromProbe(V437), { fee: true, legacyFees: true, bridgeClaims: false });
  t.strictSame(featuresFromProbe({ regular: null, bridgeClaim: null }), { fee: false, legacyFees: false, bridgeClaims: false });
  t.throws(() => featuresFromProbe({ regular: 'x' }), { code: 'INDEXER_BAD_RESPONSE' });
});

t.test('asked once, shared by concurrent callers, kept until forgotten', async (t) => {
  const indexer = new ScriptedIndexer();
  const probe = probeOf(indexer);
  t.equal(probe.current, undefined);
  const [a, b] = await Promise.all([probe.features(), probe.documents()]);
  t.equal(indexer.asked, 1);
  t.strictSame(a, { fee: true, legacyFees: true, bridgeClaims: true });
  t.equal(b, documentsFor(a));
  await probe.features();
  t.equal(indexer.asked, 1, 'kept');
  probe.forget();
  t.equal(probe.current, undefined);
  indexer.next = async () => ({ data: V437, errors: [] });
  t.strictSame(await probe.features(), { fee: true, legacyFees: true, bridgeClaims: false }, 'asked again after forget');
  t.equal(probe.probes, 2);
});

t.test('an outage fails the caller and is not remembered; a refusal is, as the baseline', async (t) => {
  const indexer = new ScriptedIndexer();
  const probe = probeOf(indexer);
  indexer.next = async () => {
    throw new GatewayError('INDEXER_UNAVAILABLE', 'down');
  };
  await t.rejects(probe.features(), { code: 'INDEXER_UNAVAILABLE' });
  t.equal(probe.current, undefined);
  indexer.next = async () => {
    throw new GatewayError('INDEXER_BAD_RESPONSE', 'The indexer answered IndexerFeatures with an error: introspection is disabled');
  };
  t.strictSame(await probe.features(), BASELINE_FEATURES);
  t.strictSame(probe.current, BASELINE_FEATURES);
});

t.test('an answer that arrives after forget() is not kept', async (t) => {
  const indexer = new ScriptedIndexer();
  const probe = probeOf(indexer);
  let release!: () => void;
  indexer.next = () => new Promise((resolve) => (release = () => resolve({ data: V437, errors: [] })));
  const pending = probe.features();
  probe.forget();
  const first = release;
  const after = probe.features();
  t.equal(indexer.asked, 2, 'a caller after forget() does not join the probe sent before it');
  first();
  release();
  t.strictSame(await after, { fee: true, legacyFees: true, bridgeClaims: false });
  t.strictSame(probe.current, { fee: true, legacyFees: true, bridgeClaims: false }, 'the probe sent after the loss is kept');
  probe.forget();
  t.strictSame(await pending, { fee: true, legacyFees: true, bridgeClaims: false }, 'the caller still gets its answer');
  t.equal(probe.current, undefined, 'but it describes the indexer before the loss');
});
