// The served API is the real indexer's: the schema text is the v4.3.7 SDL verbatim, every type and
// field the server reports through introspection exists with the same type in the reference
// schema, and the reference example operations run without errors.
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
import { INDEXER_SDL } from '../../../src/devnet/indexer-schema.js';
import { startNetwork } from '../../fixtures/devnet/harness.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const reference = join(repoRoot, 'test', 'fixtures', 'midnight');
const referenceSdl = readFileSync(join(reference, 'indexer-schema-v4.3.7.graphql'), 'utf8');

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

t.test('the embedded SDL is the reference schema verbatim', async (t) => {
  t.equal(INDEXER_SDL, referenceSdl);
});

t.test('every served type and field matches the reference schema', async (t) => {
  const h = await startNetwork({ sponsorDustSeeds: [] });
  t.teardown(() => h.close());
  const { data } = await h.gql(getIntrospectionQuery());
  const served = buildClientSchema(data);
  const reference = buildSchema(referenceSdl);
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
  const h = await startNetwork({ sponsorDustSeeds: [] });
  t.teardown(() => h.close());
  await h.network.produceBlock();
  const block = await h.network.produceBlock();
  const { data } = await h.gql('{ block { transactions { hash ... on RegularTransaction { identifiers } contractActions { address } } } }');
  const tx = data.block.transactions[0];
  const { data: deployed } = await h.gql('{ block(offset: { height: 0 }) { hash } }');
  const contract = (await h.gql('query($h: Int!) { block(offset: { height: $h }) { transactions { contractActions { address } } } }', { h: 2 })).data;
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
