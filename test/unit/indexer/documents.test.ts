/**
 * Every GraphQL document nightgate sends (statistics and DUST sync) is valid against the indexer schema
 * (v4.3.7, and the 4.4 head for forward compatibility) and within the public indexers' limits:
 * complexity 200 (one point per field selection, as async-graphql counts) and depth 15.
 */
import { readFileSync } from 'node:fs';
import t from 'tap';
import { Kind, buildSchema, parse, validate, type SelectionSetNode } from 'graphql';
import { BACKFILL_BATCH, DOCUMENTS, backfillQuery, type GqlDocument } from '../../../src/stats/queries.js';
import { DOCUMENTS as DUST_DOCUMENTS } from '../../../src/dust/queries.js';

const schemaAt = (file: string) => buildSchema(readFileSync(new URL(`../../fixtures/midnight/${file}`, import.meta.url), 'utf8'));
const SCHEMAS = { 'v4.3.7': schemaAt('indexer-schema-v4.3.7.graphql'), 'v4-head': schemaAt('indexer-schema-v4-head.graphql') };

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

const all: GqlDocument[] = [...DOCUMENTS, ...DUST_DOCUMENTS];
for (let n = 1; n <= BACKFILL_BATCH; n++) all.push(backfillQuery(n));

t.test('every document validates against the indexer schemas with zero errors', async (t) => {
  for (const d of all) {
    const ast = parse(d.text);
    const op = ast.definitions[0];
    t.equal(ast.definitions.length, 1, `${d.name}: one operation`);
    t.equal(op?.kind === Kind.OPERATION_DEFINITION ? op.name?.value : undefined, d.name, `${d.name}: operationName matches`);
    for (const [version, schema] of Object.entries(SCHEMAS)) t.strictSame(validate(schema, ast).map((e) => e.message), [], `${d.name} is valid against ${version}`);
  }
});

t.test('every document is within complexity 200 and depth 15', async (t) => {
  for (const d of all) {
    const op = parse(d.text).definitions[0];
    const m = measure(op?.kind === Kind.OPERATION_DEFINITION ? op.selectionSet : undefined);
    t.ok(m.fields <= 200, `${d.name}: complexity ${m.fields} ≤ 200`);
    t.ok(m.depth <= 15, `${d.name}: depth ${m.depth} ≤ 15`);
  }
  const full = parse(backfillQuery(BACKFILL_BATCH).text).definitions[0];
  t.equal(measure(full?.kind === Kind.OPERATION_DEFINITION ? full.selectionSet : undefined).fields, 14 * BACKFILL_BATCH, 'a backfill batch costs 14 points per block');
});

t.test('backfill batches outside 1..BACKFILL_BATCH are refused', async (t) => {
  t.throws(() => backfillQuery(0), RangeError);
  t.throws(() => backfillQuery(BACKFILL_BATCH + 1), RangeError);
});
