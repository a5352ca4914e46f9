/**
 * Every GraphQL document nightgate sends (statistics and DUST sync) is valid against the indexer
 * schemas it may be sent to and within the public indexers' limits: complexity 200 (one point per
 * field selection, as async-graphql counts) and depth 15. The documents sent whatever the indexer
 * (and those for an indexer whose features are unknown) validate against both v4.3.7 and 4.4; the
 * statistics' feature variants validate against each schema whose probe answer selects them.
 */
import { readFileSync } from 'node:fs';
import t, { type Test } from 'tap';
import { Kind, buildSchema, execute, parse, validate, type GraphQLSchema, type SelectionSetNode } from 'graphql';
import { INDEXER_SDL } from '../../../../packages/devnet/src/indexer-schema.js';
import { featuresFromProbe } from '../../../../src/features/stats/indexer-features.js';
import * as statsQueries from '../../../../src/features/stats/queries.js';
import {
  BACKFILL_BATCH,
  BASELINE_FEATURES,
  FEATURES_PROBE,
  documentsFor,
  type FeatureDocuments,
  type GqlDocument,
  type IndexerFeatures,
} from '../../../../src/features/stats/queries.js';
import * as dustQueries from '../../../../src/features/sponsorship/common/queries.js';
import { schemaSdl } from '../../../fixtures/stats/fake-indexer.js';

const v437 = readFileSync(new URL('../../../fixtures/midnight/indexer-schema-v4.3.7.graphql', import.meta.url), 'utf8');
const SCHEMAS: Record<string, GraphQLSchema> = { 'v4.3.7': buildSchema(v437), 'v4.4': buildSchema(INDEXER_SDL) };
/** A 4.3 indexer from before `RegularTransaction.fee`: the statistics must still read it. */
const PRE_FEE = buildSchema(schemaSdl('v4.3-without-fee'));

function measure(set: SelectionSetNode | undefined, depth = 1): { fields: number; depth: number } {
  let fields = 0;
  let deepest = depth - 1;
  for (const sel of set?.selections ?? []) {
    if (sel.kind === Kind.FIELD) {
      const inner = measure(sel.selectionSet, depth + 1);
      fields += 1 + inner.fields;
      deepest = Math.max(deepest, depth, inner.depth);
    } else if (sel.kind === Kind.INLINE_FRAGMENT) {
      const inner = measure(sel.selectionSet, depth);
      fields += inner.fields;
      deepest = Math.max(deepest, inner.depth);
    }
  }
  return { fields, depth: deepest };
}

const cost = (d: GqlDocument): { fields: number; depth: number } => {
  const op = parse(d.text).definitions[0];
  return measure(op?.kind === Kind.OPERATION_DEFINITION ? op.selectionSet : undefined);
};

/** Every document of one feature variant, the backfill family included. */
function variantDocuments(d: FeatureDocuments): GqlDocument[] {
  const out = [d.tip, d.blocks, d.blockDetail, d.transactionDetail, d.contractDetail];
  for (let n = 1; n <= BACKFILL_BATCH; n++) out.push(d.backfill(n));
  return out;
}

/** What the statistics learn from `schema` when they probe it, as the real indexer would answer. */
function probe(schema: GraphQLSchema): IndexerFeatures {
  const result = execute({ schema, document: parse(FEATURES_PROBE.text) });
  if ('then' in result) throw new Error('introspection is synchronous');
  return featuresFromProbe(result.data);
}

/** The documents a module exports (those sent whatever the indexer's features). */
function exportedDocuments(module: Record<string, unknown>): GqlDocument[] {
  return Object.values(module).filter(
    (v): v is GqlDocument => typeof v === 'object' && v !== null && typeof (v as GqlDocument).name === 'string' && typeof (v as GqlDocument).text === 'string',
  );
}

/** Every feature set the indexer can report. */
function allFeatureSets(): IndexerFeatures[] {
  const out: IndexerFeatures[] = [];
  for (const fee of [false, true])
    for (const legacyFees of [false, true]) for (const bridgeClaims of [false, true]) out.push({ fee, legacyFees, bridgeClaims });
  return out;
}

const baseline = documentsFor(BASELINE_FEATURES);
/** Every document sent to an indexer whose features are unknown: the statistics' and the DUST sync's. */
const all: GqlDocument[] = [...exportedDocuments(statsQueries), ...variantDocuments(baseline), ...exportedDocuments(dustQueries)];

function assertValid(t: Test, d: GqlDocument, schema: GraphQLSchema, version: string): void {
  const ast = parse(d.text);
  const op = ast.definitions[0];
  t.equal(ast.definitions.length, 1, `${d.name}: one operation`);
  t.equal(op?.kind === Kind.OPERATION_DEFINITION ? op.name?.value : undefined, d.name, `${d.name}: operationName matches`);
  t.strictSame(
    validate(schema, ast).map((e) => e.message),
    [],
    `${d.name} is valid against ${version}`,
  );
}

t.test('every document validates against the indexer schemas with zero errors', async (t) => {
  for (const d of all) for (const [version, schema] of Object.entries(SCHEMAS)) assertValid(t, d, schema, version);
});

t.test("the probe reads each schema's features", async (t) => {
  t.strictSame(probe(SCHEMAS['v4.3.7']!), { fee: true, legacyFees: true, bridgeClaims: false }, '4.3.7 has fee beside the deprecated fees');
  t.strictSame(probe(SCHEMAS['v4.4']!), { fee: true, legacyFees: true, bridgeClaims: true }, '4.4 adds BridgeClaimTransaction');
  t.strictSame(probe(PRE_FEE), { fee: false, legacyFees: true, bridgeClaims: false }, 'a 4.3 without fee is read through fees');
  t.strictSame(documentsFor(probe(PRE_FEE)).tip, documentsFor(BASELINE_FEATURES).tip, 'the baseline documents are those of the oldest schema');
});

t.test('the variant chosen for each schema validates against it, and the baseline against every one', async (t) => {
  const schemas = { ...SCHEMAS, 'v4.3-without-fee': PRE_FEE };
  for (const [version, schema] of Object.entries(schemas)) {
    for (const d of variantDocuments(documentsFor(probe(schema)))) assertValid(t, d, schema, `${version} (its own variant)`);
    for (const d of variantDocuments(documentsFor(BASELINE_FEATURES))) assertValid(t, d, schema, `${version} (baseline)`);
  }
  const v44 = variantDocuments(documentsFor(probe(SCHEMAS['v4.4']!)));
  t.match(v44.find((d) => d.name === 'TransactionDetail')?.text, /\.\.\. on BridgeClaimTransaction \{ recipient amount \}/, '4.4: bridge claims read');
  t.match(v44.find((d) => d.name === 'Tip')?.text, /\{ status \} fee \}/, '4.4: the fee read from fee');
  t.notMatch(documentsFor(probe(PRE_FEE)).tip.text, /\bfee\b/, 'no fee field sent to an indexer without it');
  t.notMatch(documentsFor(probe(SCHEMAS['v4.3.7']!)).transactionDetail.text, /BridgeClaimTransaction/, 'no bridge claim type sent to 4.3.7');
});

t.test('a variant that needs a feature a schema lacks is invalid there (the probe is what keeps it away)', async (t) => {
  const bridge = documentsFor({ fee: true, legacyFees: true, bridgeClaims: true }).transactionDetail;
  t.ok(validate(SCHEMAS['v4.3.7']!, parse(bridge.text)).length > 0, 'BridgeClaimTransaction is unknown to 4.3.7');
  t.ok(validate(PRE_FEE, parse(documentsFor({ fee: true, legacyFees: true, bridgeClaims: false }).tip.text)).length > 0, 'fee is unknown before 4.3.7');
});

t.test('every document is within complexity 200 and depth 15', async (t) => {
  const variants = allFeatureSets().flatMap((f) => variantDocuments(documentsFor(f)));
  for (const d of [...all, ...variants]) {
    const m = cost(d);
    t.ok(m.fields <= 200, `${d.name}: complexity ${m.fields} ≤ 200`);
    t.ok(m.depth <= 15, `${d.name}: depth ${m.depth} ≤ 15`);
  }
  t.equal(cost(baseline.backfill(BACKFILL_BATCH)).fields, 14 * BACKFILL_BATCH, 'a backfill batch costs 14 points per block');
  for (const f of allFeatureSets())
    t.ok(cost(documentsFor(f).backfill(BACKFILL_BATCH)).fields <= 14 * BACKFILL_BATCH, `${JSON.stringify(f)}: at most 14 points per block`);
});

t.test('backfill batches outside 1..BACKFILL_BATCH are refused', async (t) => {
  t.throws(() => baseline.backfill(0), RangeError);
  t.throws(() => baseline.backfill(BACKFILL_BATCH + 1), RangeError);
  for (const f of allFeatureSets()) t.throws(() => documentsFor(f).backfill(BACKFILL_BATCH + 1), RangeError);
});

t.test('documents of one feature set are built once', async (t) => {
  t.equal(documentsFor({ ...BASELINE_FEATURES }), documentsFor(BASELINE_FEATURES));
  t.equal(documentsFor({ ...BASELINE_FEATURES }).backfill(3), baseline.backfill(3));
});
