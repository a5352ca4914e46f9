import t from 'tap';
import { CORK_BUFFER_BYTES, refusalBody, socketClosed } from '../../../../src/core/http/refusal.js';

t.test('refusalBody: JSON padded with trailing spaces to one byte over the cork buffer', async (t) => {
  const body = JSON.stringify({ error: 'Request body exceeds 1024 bytes', code: 'PAYLOAD_TOO_LARGE' });
  const padded = refusalBody(body) as string;
  t.equal(Buffer.byteLength(padded), CORK_BUFFER_BYTES + 1);
  t.same(JSON.parse(padded), JSON.parse(body), 'the same JSON value (RFC 8259 §2: whitespace after a value)');
  const multibyte = JSON.stringify({ error: 'unsupported Transfer-Encoding "é€"' });
  t.equal(Buffer.byteLength(refusalBody(multibyte) as string), CORK_BUFFER_BYTES + 1, 'counted in bytes, not characters');
  const bytes = refusalBody(Buffer.from(body)) as Uint8Array;
  t.equal(bytes.byteLength, CORK_BUFFER_BYTES + 1);
  t.equal(Buffer.from(bytes).toString('latin1').trimEnd(), body, 'bytes padded with spaces too');
  const large = 'x'.repeat(CORK_BUFFER_BYTES + 10);
  t.equal(refusalBody(large), large, 'a body already over the cork buffer is left alone');
});

t.test('socketClosed: a socket without a peer address', async (t) => {
  t.equal(socketClosed(new ArrayBuffer(0)), true);
  t.equal(socketClosed(new TextEncoder().encode('127.0.0.1').buffer), false);
});
