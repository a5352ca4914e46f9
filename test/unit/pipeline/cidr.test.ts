import t from 'tap';
import { CidrList, parseIp } from '../../../src/pipeline/cidr.js';

t.test('IPv4, IPv6 and IPv4-mapped IPv6 matching', async (t) => {
  const l = new CidrList(['10.0.0.0/8', '192.168.1.0/24', 'fd00::/8', '2001:db8::1/128']);
  t.equal(l.match('10.1.2.3'), '10.0.0.0/8');
  t.equal(l.match('192.168.1.77'), '192.168.1.0/24');
  t.equal(l.match('192.168.2.1'), undefined);
  t.equal(l.match('::ffff:10.9.9.9'), '10.0.0.0/8', 'IPv4-mapped');
  t.equal(l.match('0000:0000:0000:0000:0000:ffff:0a00:0001'), '10.0.0.0/8', 'uWS long form');
  t.equal(l.match('fd12:3456::1'), 'fd00::/8');
  t.equal(l.match('2001:db8::1'), '2001:db8::1/128');
  t.equal(l.match('2001:db8::2'), undefined);
  t.equal(l.match('not-an-ip'), undefined);
  t.same(parseIp('127.0.0.1'), { value: 0x7f000001n, width: 32 });
  t.throws(() => new CidrList(['10.0.0.0/33']), /not a CIDR/);
});
