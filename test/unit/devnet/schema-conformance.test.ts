// The served API is the real indexer's: the schema text is indexer 4.4's SDL verbatim (its digest is
// the published file's), every type and field the server reports through introspection exists with
// the same type in it, every v4.3.7 type and field is still there unchanged but for the one
// argument list 4.4 changed, and the reference example operations run without errors.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  buildClientSchema,
  buildSchema,
  getIntrospectionQuery,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  parse,
  print,
  type GraphQLNamedType,
  type OperationDefinitionNode,
} from 'graphql';
import t from 'tap';
import { INDEXER_SDL } from '../../../packages/devnet/src/indexer-schema.js';
import { startNetwork } from '../../fixtures/devnet/harness.js';
import { DEVNET_PROTOCOL_VERSION } from '../../../packages/ledger/src/era.js';
import { featuresFromProbe } from '../../../src/features/stats/indexer-features.js';
import { FEATURES_PROBE, documentsFor } from '../../../src/features/stats/queries.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const reference = join(repoRoot, 'test', 'fixtures', 'midnight');
const v437Sdl = readFileSync(join(reference, 'indexer-schema-v4.3.7.graphql'), 'utf8');
/** SHA-256 of midnight-indexer's 4.4-line schema file (indexer-schema-v4-head.graphql), as published. */
const PUBLISHED_4_4_SHA256 = '6c3058d26bcfd8d77cba59e54af73595d8cf888ea0187d6dd72a42f75f62ea20';
/** What 4.4 changed in v4.3.7's types and fields: nothing else. */
const CHANGED_SINCE_4_3_7 = ['Subscription.dustGenerations'];

function fieldTypes(type: GraphQLNamedType): Map<string, string> {
  const out = new Map<string, string>();
  if (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)) {
    for (const field of Object.values(type.getFields())) {
      const args = 'args' in field ? field.args.map((a: { name: string; type: unknown }) => `${a.name}:${String(a.type)}`).join(',') : '';
      out.set(field.name, `${String(field.type)}(${args})`);
    }
  }
  return out;
}

t.test('the embedded SDL is the published 4.4 schema verbatim', async (t) => {
  t.equal(createHash('sha256').update(INDEXER_SDL).digest('hex'), PUBLISHED_4_4_SHA256);
});

t.test('4.4 keeps every v4.3.7 type and field, but for the changes it documents', async (t) => {
  const v44 = buildSchema(INDEXER_SDL);
  const changed: string[] = [];
  for (const [name, type] of Object.entries(buildSchema(v437Sdl).getTypeMap())) {
    if (name.startsWith('__')) continue;
    const now = v44.getType(name);
    t.ok(now, `type ${name} is still there`);
    if (!now) continue;
    const nowFields = fieldTypes(now);
    for (const [field, signature] of fieldTypes(type)) if (nowFields.get(field) !== signature) changed.push(`${name}.${field}`);
  }
  t.strictSame(changed, CHANGED_SINCE_4_3_7);
});

t.test('every served type and field matches the reference schema', async (t) => {
  const h = await startNetwork({ sponsorWallets: [] });
  t.teardown(() => h.close());
  const { data } = await h.gql(getIntrospectionQuery());
  const served = buildClientSchema(data);
  const reference = buildSchema(INDEXER_SDL);
  let compared = 0;
  for (const [name, type] of Object.entries(served.getTypeMap())) {
    if (name.startsWith('__')) continue;
    const ref = reference.getType(name);
    t.ok(ref, `type ${name} exists in the reference`);
    if (!ref) continue;
    t.equal(type.constructor.name, ref.constructor.name, `${name} is the same kind of type`);
    const refFields = fieldTypes(ref);
    for (const [field, signature] of fieldTypes(type)) {
      t.equal(signature, refFields.get(field), `${name}.${field}`);
      compared++;
    }
  }
  t.ok(compared > 200, `compared ${compared} fields`);
});

t.test('the reference example operations run without errors', async (t) => {
  const h = await startNetwork({ sponsorWallets: [] });
  t.teardown(() => h.close());
  const firstLive = (await h.network.produceBlock()).height;
  const block = await h.network.produceBlock();
  const { data } = await h.gql('{ block { transactions { hash ... on RegularTransaction { identifiers } contractActions { address } } } }');
  const tx = data.block.transactions[0];
  const { data: deployed } = await h.gql('{ block(offset: { height: 0 }) { hash } }');
  const contract = (await h.gql('query($h: Int!) { block(offset: { height: $h }) { transactions { contractActions { address } } } }', { h: firstLive })).data;
  const address = contract.block.transactions.flatMap((x: any) => x.contractActions)[0]?.address;
  t.ok(address, 'the first live block deployed a contract');
  t.ok(deployed.block.hash);
  const variables: Record<string, Record<string, unknown>> = {
    BlockByHeight: { height: block.height },
    TxByHash: { hash: tx.hash },
    ContractByAddress: { address },
    RecentBlocks: { h0: block.height, h1: block.height - 1, h2: block.height - 2 },
  };
  const document = parse(readFileSync(join(reference, 'queries.graphql'), 'utf8'));
  for (const op of document.definitions as OperationDefinitionNode[]) {
    if (op.operation !== 'query') continue;
    const name = op.name?.value ?? '';
    const result = await h.gql(print(op), variables[name] ?? {});
    t.equal(result.errors, undefined, `${name} runs without errors`);
    t.ok(result.data && Object.values(result.data).every((v) => v !== null), `${name} finds its data`);
  }
});

t.test("the statistics documents for a 4.4 indexer run on the devnet, which reports each era's protocol version and the fee", async (t) => {
  for (const ledger of [9, 8] as const) {
    const h = await startNetwork({ sponsorWallets: [], ledger });
    t.teardown(() => h.close());
    await h.network.produceBlock();
    await h.network.produceBlock();
    const docs = documentsFor(featuresFromProbe((await h.gql(FEATURES_PROBE.text)).data));
    t.strictSame(docs.features, { fee: true, legacyFees: true, bridgeClaims: true }, `ledger ${ledger}: the devnet is a 4.4 indexer`);
    const tip = await h.gql(docs.tip.text);
    t.equal(tip.errors, undefined, `ledger ${ledger}: ${docs.tip.name}`);
    t.equal(tip.data.block.protocolVersion, DEVNET_PROTOCOL_VERSION[ledger]);
    const regular = tip.data.block.transactions.find((x: { __typename: string }) => x.__typename === 'RegularTransaction');
    t.match(regular, { fee: /^[0-9]+$/ }, 'a regular transaction has its fee');
    const detail = await h.gql(docs.transactionDetail.text, { hash: regular.hash });
    t.equal(detail.errors, undefined, `ledger ${ledger}: ${docs.transactionDetail.name}`);
    t.equal(detail.data.transactions[0].protocolVersion, DEVNET_PROTOCOL_VERSION[ledger]);
    t.equal(detail.data.transactions[0].fee, regular.fee);
    const block = await h.gql(docs.blockDetail.text, { offset: { height: tip.data.block.height } });
    t.equal(block.errors, undefined, `ledger ${ledger}: ${docs.blockDetail.name}`);
  }
});
