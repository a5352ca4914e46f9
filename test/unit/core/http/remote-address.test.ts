import t from 'tap';
import { addressText } from '../../../../src/core/http/remote-address.js';

const bytes = (...b: number[]): ArrayBuffer => new Uint8Array(b).buffer;

t.test('IPv4 and IPv6 in the text uWS itself produces', async (t) => {
  t.equal(addressText(bytes(127, 0, 0, 1)), '127.0.0.1');
  t.equal(addressText(bytes(255, 255, 0, 10)), '255.255.0.10');
  t.equal(addressText(bytes(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1)), '0000:0000:0000:0000:0000:0000:0000:0001');
  t.equal(
    addressText(bytes(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0x7f, 0, 0, 1)),
    '0000:0000:0000:0000:0000:ffff:7f00:0001',
    'IPv4-mapped, as uWS writes it',
  );
  t.equal(addressText(bytes(0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0xab, 0xcd, 0x0e, 0x0f)), '2001:0db8:0000:0000:0000:0000:abcd:0e0f');
  t.equal(addressText(new ArrayBuffer(0)), '', 'no address (a closed socket)');
  t.equal(addressText(bytes(1, 2, 3)), '', 'no other length');
});
