// The devnet's executable schema: the real indexer SDL with resolvers attached. Attaching fails on
// any type or field the SDL lacks, so the served API cannot drift from the real one. Fields the
// devnet has no data for (SPO and Cardano views, wallet sessions, beta DUST-tree fields) answer
// with an explicit error rather than an invented value.
import {
  Kind,
  buildSchema,
  GraphQLError,
  GraphQLInt,
  GraphQLInterfaceType,
  GraphQLObjectType,
  GraphQLUnionType,
  type GraphQLFieldResolver,
  type GraphQLSchema,
} from 'graphql';
import { DevnetErrorCode } from './errors.js';
import type { ResolverMap, SubscriptionResolver } from './graphql-context.js';
import { INDEXER_SDL } from './indexer-schema.js';
import { queryResolvers } from './query-resolvers.js';
import { subscriptionResolvers } from './subscription-resolvers.js';
import { typeNames, typeResolvers } from './type-resolvers.js';

const NOT_SERVED: Record<string, string[]> = {
  Query: [
    'dustGenerationStatus',
    'dustGenerations',
    'dustCommitmentMerkleTreeUpdate',
    'dustGenerationMerkleTreeUpdate',
    'spoIdentities',
    'spoIdentityByPoolId',
    'spoCount',
    'poolMetadata',
    'poolMetadataList',
    'spoByPoolId',
    'spoList',
    'spoCompositeByPoolId',
    'stakePoolOperators',
    'spoPerformanceLatest',
    'spoPerformanceBySpoSk',
    'epochPerformance',
    'committee',
    'registeredTotalsSeries',
    'registeredSpoSeries',
    'registeredPresence',
    'registeredFirstValidEpochs',
    'stakeDistribution',
    // The Cardano bridge (indexer 4.4): no bridge feeds the devnet.
    'bridgeEvents',
    'bridgeBalance',
    'bridgeDeposits',
    'bridgeReserveInflows',
    'bridgeTreasuryInflows',
    'bridgePoolSummary',
  ],
  Mutation: ['connect', 'disconnect'],
  Subscription: [
    'dustGenerations',
    'dustNullifierTransactions',
    'shieldedNullifierTransactions',
    'shieldedTransactions',
    'bridgeEvents',
    'bridgePoolUpdates',
    'bridgeBalance',
  ],
  Block: ['dustCommitmentEndIndex', 'dustGenerationEndIndex', 'dustCommitmentMerkleTreeRoot', 'dustGenerationMerkleTreeRoot'],
  Contract: ['maintenanceAuthority'],
  RegularTransaction: ['dustCommitmentStartIndex', 'dustCommitmentEndIndex', 'dustGenerationStartIndex', 'dustGenerationEndIndex'],
};

function fieldOf(schema: GraphQLSchema, typeName: string, fieldName: string) {
  const type = schema.getType(typeName);
  if (!(type instanceof GraphQLObjectType)) throw new Error(`the indexer schema has no object type ${typeName}`);
  const field = type.getFields()[fieldName];
  if (!field) throw new Error(`the indexer schema has no field ${typeName}.${fieldName}`);
  return field;
}

function attach(schema: GraphQLSchema, map: ResolverMap): void {
  for (const [typeName, fields] of Object.entries(map)) {
    for (const [fieldName, resolver] of Object.entries(fields)) {
      const field = fieldOf(schema, typeName, fieldName);
      if (typeof resolver === 'function') {
        field.resolve = resolver as unknown as GraphQLFieldResolver<unknown, unknown>;
      } else {
        field.subscribe = (resolver as SubscriptionResolver).subscribe as unknown as GraphQLFieldResolver<unknown, unknown>;
        field.resolve = (resolver as SubscriptionResolver).resolve as unknown as GraphQLFieldResolver<unknown, unknown>;
      }
    }
  }
}

function notServed(typeName: string, fieldName: string): () => never {
  return () => {
    throw new GraphQLError(`${typeName}.${fieldName} is not served by the embedded devnet`, {
      extensions: { code: DevnetErrorCode.NOT_SERVED },
    });
  };
}

/**
 * The indexer (async-graphql) serializes 64-bit integers as `Int` — block timestamps are Unix
 * milliseconds — where graphql-js's `Int` stops at 32 bits. Widen it to JavaScript's safe
 * integers, as the real server behaves. This changes the `Int` scalar of the graphql module
 * instance it runs in, which is the devnet worker's own.
 */
function widenInt(): void {
  const check = (value: unknown): number => {
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw new GraphQLError(`Int cannot represent ${String(value)}`);
    return value;
  };
  GraphQLInt.serialize = check;
  GraphQLInt.parseValue = check;
  GraphQLInt.parseLiteral = (node) => {
    if (node.kind !== Kind.INT) throw new GraphQLError(`Int cannot represent a non-integer literal`, { nodes: node });
    return check(Number(node.value));
  };
}

export function buildExecutableSchema(): GraphQLSchema {
  widenInt();
  const schema = buildSchema(INDEXER_SDL);
  attach(schema, queryResolvers);
  attach(schema, subscriptionResolvers);
  attach(schema, typeResolvers);
  for (const [typeName, fields] of Object.entries(NOT_SERVED)) {
    for (const fieldName of fields) {
      const field = fieldOf(schema, typeName, fieldName);
      field.resolve = notServed(typeName, fieldName);
      if (typeName === 'Subscription') field.subscribe = notServed(typeName, fieldName);
    }
  }
  for (const [typeName, resolveType] of Object.entries(typeNames)) {
    const type = schema.getType(typeName);
    if (!(type instanceof GraphQLInterfaceType || type instanceof GraphQLUnionType)) {
      throw new Error(`the indexer schema has no abstract type ${typeName}`);
    }
    type.resolveType = resolveType as (value: unknown) => string;
  }
  return schema;
}
