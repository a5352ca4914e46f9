/** The statistics error table: JSON `{error, message, code}` with the right status, before any upstream call when the request is malformed. */
import t from 'tap';
import { hashOf } from '../fixtures/stats/fake-indexer.js';
import { statsApp } from '../fixtures/stats/stats-app.js';
import { hexToAddress } from '../../src/features/stats/params.js';

const H = hashOf('nothing');

t.test('400 for every malformed parameter, naming it, with no upstream call', async (t) => {
  const { get, fake } = await statsApp(t, { blocks: 2 });
  const before = fake.requests.length;
  const subsBefore = fake.subscriptions.length;
  const cases: Array<[string, string]> = [
    ['block', 'height or hash is required'],
    [`block?height=1&hash=${H}`, 'give either height or hash, not both'],
    ['block?height=-1', 'height must be a non-negative integer: decimal digits, no sign, leading zero or space'],
    ['block?height=abc', 'height must be a non-negative integer: decimal digits, no sign, leading zero or space'],
    ['block?height=1.5', 'height must be a non-negative integer: decimal digits, no sign, leading zero or space'],
    // Written canonically or refused: not read as height 1.
    ['block?height=01', 'height must be a non-negative integer: decimal digits, no sign, leading zero or space'],
    ['block?height=%2B1', 'height must be a non-negative integer: decimal digits, no sign, leading zero or space'],
    ['block?height=%201', 'height must be a non-negative integer: decimal digits, no sign, leading zero or space'],
    ['block?height=1%20', 'height must be a non-negative integer: decimal digits, no sign, leading zero or space'],
    ['block?height=00', 'height must be a non-negative integer: decimal digits, no sign, leading zero or space'],
    ['block?height=2147483648', 'height must be at most 2147483647'],
    ['block?hash=xyz', 'hash must be 64 hexadecimal characters'],
    ['transaction', 'hash is required'],
    [`transaction?hash=${H}00`, 'hash must be 64 hexadecimal characters'],
    ['contract', 'address is required'],
    ['contract?address=12zz', 'address must be hexadecimal, 64 to 256 characters'],
    ['address-activity', 'identifier is required'],
    ['address-activity?identifier=mn_addr1nope', 'identifier must be a 64-hex address or a Bech32m mn_addr… address'],
    [`address-activity?identifier=${hexToAddress(H, 'preview').bech32}`, 'identifier is an address for mn_addr_preview, this network uses mn_addr'],
    [`address-activity?identifier=${H}&limit=0`, 'limit must be an integer from 1 to 100'],
    [`address-activity?identifier=${H}&limit=101`, 'limit must be an integer from 1 to 100'],
    ['recent-transactions?limit=0', 'limit must be an integer from 1 to 100'],
    ['recent-transactions?limit=101', 'limit must be an integer from 1 to 100'],
    ['recent-transactions?limit=ten', 'limit must be an integer from 1 to 100'],
    ['recent-transactions?limit=05', 'limit must be an integer from 1 to 100'],
    ['recent-transactions?limit=%205', 'limit must be an integer from 1 to 100'],
    [`address-activity?identifier=${H}&limit=%2B5`, 'limit must be an integer from 1 to 100'],
    ['search?q=01', 'q must be a non-negative integer: decimal digits, no sign, leading zero or space'],
    ['search', 'q is required'],
    ['search?q=', 'q is required'],
    ['search?q=hello', 'q must be a block height, a hex hash, identifier or contract address, or a Bech32m mn_addr… address'],
  ];
  for (const [path, message] of cases) {
    const r = await get(`/api/v1/mainnet/${path}`);
    t.equal(r.status, 400, path);
    t.strictSame(r.json, { error: 'Invalid Parameter', message, code: 'INVALID_PARAMETER' }, path);
    t.equal(r.headers['cache-control'], 'no-store', `${path}: errors are not cached`);
  }
  t.equal(fake.requests.length, before, 'no indexer request');
  t.equal(fake.subscriptions.length, subsBefore, 'no indexer subscription');
});

t.test('404 for unknown networks and unknown things', async (t) => {
  const { get } = await statsApp(t, { blocks: 2 });
  const unknown = await get('/api/v1/moonnet/summary');
  t.equal(unknown.status, 404);
  t.equal(unknown.headers['cache-control'], 'no-store');
  t.strictSame(unknown.json, { error: 'Unknown Network', message: 'Network must be one of mainnet, preprod, preview', code: 'UNKNOWN_NETWORK' });
  const unserved = await get('/api/v1/preprod/latest-block');
  t.strictSame(
    [unserved.status, unserved.json],
    [404, { error: 'Unknown Network', message: 'Network preprod is not served by this instance', code: 'UNKNOWN_NETWORK' }],
  );
  t.equal((await get('/api/v1/moonnet/block?height=1')).status, 404, 'lookups too');

  const cases: Array<[string, string, string]> = [
    ['block?height=999', 'BLOCK_NOT_FOUND', 'No block at height 999'],
    [`block?hash=${H}`, 'BLOCK_NOT_FOUND', `No block with hash ${H}`],
    [`transaction?hash=${H}`, 'TRANSACTION_NOT_FOUND', `No transaction with hash ${H}`],
    [`contract?address=${H}`, 'CONTRACT_NOT_FOUND', `No contract at address ${H}`],
    ['search?q=999', 'SEARCH_NO_MATCH', 'Nothing on mainnet matches 999'],
    [`search?q=${H}`, 'SEARCH_NO_MATCH', `Nothing on mainnet matches ${H}`],
  ];
  for (const [path, code, message] of cases) {
    const r = await get(`/api/v1/mainnet/${path}`);
    t.equal(r.status, 404, path);
    t.strictSame(r.json, { error: 'Not Found', message, code }, path);
    t.equal(r.headers['cache-control'], 'no-store', path);
  }
});

t.test('503 NOT_READY before the first answer, then data', async (t) => {
  const { get, fake, net } = await statsApp(t, { blocks: 0 });
  const r = await get('/api/v1/mainnet/latest-block');
  t.equal(r.status, 503);
  t.strictSame([r.headers['retry-after'], r.headers['cache-control']], ['1', 'no-store']);
  t.strictSame(r.json, { error: 'Service Unavailable', message: 'No data received from the mainnet indexer yet', code: 'NOT_READY' });
  fake.addBlock(Date.UTC(2026, 0, 1));
  await net.follower.waitForHeight(0);
  t.equal((await get('/api/v1/mainnet/latest-block')).status, 200);
});
