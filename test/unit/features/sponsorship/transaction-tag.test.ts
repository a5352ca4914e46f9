import t from 'tap';
import { readTransactionTag, expectKind } from '../../../../src/features/sponsorship/common/transaction-tag.js';

const tx = (inner: string) => Buffer.from(`midnight:transaction[v9](${inner}):\u0000\u0001rest`, 'latin1');

t.test('kinds and markers from the tag', async (t) => {
  t.same(readTransactionTag(tx('signature[v1],proof-preimage,embedded-fr[v1]')), {
    format: 'v9',
    markers: ['signature', 'pre-proof', 'pre-binding'],
    kind: 'unproven',
  });
  t.same(readTransactionTag(tx('signature[v1],proof,embedded-fr[v1]')).kind, 'proven');
  t.same(readTransactionTag(tx('signature[v1],proof,pedersen-schnorr[v1]')), { format: 'v9', markers: ['signature', 'proof', 'binding'], kind: 'finalized' });
  t.same(readTransactionTag(tx('signature[v1],proof-preimage,pedersen-schnorr[v1]')).kind, 'unproven-bound');
  t.same(readTransactionTag(tx('signature[v1],(),pedersen[v1]')), { format: 'v9', markers: ['signature', 'no-proof', 'no-binding'], kind: 'proof-erased' });
  t.same(readTransactionTag(tx('(),proof,pedersen-schnorr[v1]')).markers, ['signature-erased', 'proof', 'binding']);
});

t.test('wrong kinds and non-transactions are named', async (t) => {
  t.throws(() => expectKind(readTransactionTag(tx('signature[v1],proof,pedersen-schnorr[v1]')), ['unproven']), {
    code: 'WRONG_TRANSACTION_KIND',
    message: 'expected an unproven transaction, got a finalized one',
  });
  t.throws(() => expectKind(readTransactionTag(tx('signature[v1],proof-preimage,embedded-fr[v1]')), ['proven', 'finalized']), {
    message: 'expected a proven transaction or a finalized transaction, got an unproven one',
  });
  t.throws(() => readTransactionTag(Buffer.from('hello world')), {
    code: 'WRONG_TRANSACTION_KIND',
    message:
      'the body is not a serialized Midnight transaction (it starts "hello world", expected "midnight:transaction[v9](…):" or "midnight:transaction[v12](…):")',
  });
  t.throws(() => readTransactionTag(tx('signature[v2],proof,x')), { message: /unknown transaction variant/ });
  t.throws(() => readTransactionTag(new Uint8Array(0)), { code: 'WRONG_TRANSACTION_KIND' });
});
