import t from 'tap';
import { KeyRequests, OTHER } from '../../../../src/core/http/key-requests.js';

t.test('answered requests per key, refused ones by code', async (t) => {
  const k = new KeyRequests();
  k.count('shop', 200, undefined);
  k.count('shop', 304, undefined);
  k.count('shop', 429, 'RATE_LIMITED');
  k.count('shop', 429, 'RATE_LIMITED');
  k.count('shop', 403, 'POLICY_DENIED');
  k.count('ops', 500, undefined);
  t.same(k.of('shop'), { total: 5, refused: { RATE_LIMITED: 2, POLICY_DENIED: 1 } });
  t.same(k.of('ops'), { total: 1, refused: { '500': 1 } }, 'an error answer without a code: by status');
  t.equal(k.of('nobody'), undefined);
  t.same(k.keyIds(), ['shop', 'ops']);
});

t.test('bounded: keys beyond maxKeys and codes beyond maxCodes are counted as (other)', async (t) => {
  const k = new KeyRequests(2, 2);
  for (const id of ['a', 'b', 'c', 'd']) k.count(id, 200, undefined);
  k.count('a', 200, undefined);
  t.same(k.keyIds(), ['a', 'b', OTHER]);
  t.same(k.of(OTHER), { total: 2, refused: {} });
  t.same(k.of('a'), { total: 2, refused: {} }, 'a key already counted keeps its own count');
  for (const code of ['X', 'Y', 'Z', 'X']) k.count('b', 400, code);
  t.same(k.of('b'), { total: 5, refused: { X: 2, Y: 1, [OTHER]: 1 } });
});
