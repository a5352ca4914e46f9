/**
 * packages/client/src/openapi-types.ts is generated (openapi-typescript) from the OpenAPI document
 * of a server with every module, and committed: the client builds without starting a server. This
 * test regenerates it and fails when the committed file differs: the routes changed and the
 * client's types with them. `npm run client:types` rewrites it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import t from 'tap';
import { clientTypesSource, TYPES_FILE } from './types-source.js';

t.test('the committed client types are generated from the current OpenAPI document', async (t) => {
  const fresh = await clientTypesSource();
  if (process.env['NIGHTGATE_WRITE_CLIENT_TYPES'] === '1') writeFileSync(TYPES_FILE, fresh);
  const committed = readFileSync(TYPES_FILE, 'utf8');
  t.ok(committed === fresh, 'packages/client/src/openapi-types.ts is current (else: npm run client:types, and review the diff)');
});
