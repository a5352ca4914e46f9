import t from 'tap';
import { CidrList, parseIp, rateLimitSubject } from '../../../../src/core/config/cidr.js';

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

t.test('the per-IP rate limit counts IPv4 addresses and IPv6 /64s', async (t) => {
  t.equal(rateLimitSubject('203.0.113.9'), '203.0.113.9');
  t.equal(rateLimitSubject('::ffff:203.0.113.9'), '203.0.113.9', 'IPv4-mapped is the IPv4 client');
  t.equal(rateLimitSubject('0000:0000:0000:0000:0000:ffff:7f00:0001'), '127.0.0.1', 'as uWS writes it');
  t.equal(rateLimitSubject('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
  t.equal(rateLimitSubject('2001:0db8:0001:0002:ffff:ffff:ffff:ffff'), '2001:db8:1:2::/64', 'the same /64');
  t.not(rateLimitSubject('2001:db8:1:3::1'), rateLimitSubject('2001:db8:1:2::1'), 'another /64');
  t.equal(rateLimitSubject('::1'), '0:0:0:0::/64');
  t.equal(rateLimitSubject('not-an-ip'), 'not-an-ip', 'anything else (a proxy header gone wrong) as given');
});
