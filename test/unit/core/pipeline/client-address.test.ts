import t from 'tap';
import { ClientAddress } from '../../../../src/core/guards/client-address.js';

const PROXY = '127.0.0.1';

t.test('without trusted proxies X-Forwarded-For is ignored', async (t) => {
  const c = new ClientAddress([]);
  t.equal(c.resolve(PROXY, '203.0.113.9'), PROXY);
});

t.test('a peer that is not a trusted proxy is the client, whatever it forwards', async (t) => {
  const c = new ClientAddress(['10.0.0.0/8']);
  t.equal(c.resolve('198.51.100.4', '10.1.2.3'), '198.51.100.4');
});

t.test('the header is walked from the right: a forged left entry is never taken', async (t) => {
  const c = new ClientAddress(['127.0.0.1/32', '10.0.0.0/8']);
  t.equal(c.resolve(PROXY, '10.1.2.3, 203.0.113.9'), '203.0.113.9', 'the entry the proxy appended');
  t.equal(c.resolve(PROXY, '203.0.113.9, 10.0.0.7'), '203.0.113.9', 'trusted hops skipped');
  t.equal(c.resolve(PROXY, '198.51.100.1,203.0.113.9 , 10.0.0.7,10.0.0.8'), '203.0.113.9');
  t.equal(c.resolve(PROXY, '2001:db8::5'), '2001:db8::5', 'IPv6 literal');
  t.equal(c.resolve('0000:0000:0000:0000:0000:ffff:7f00:0001', '203.0.113.9'), '203.0.113.9', 'peer in uWS long IPv4-mapped form');
});

t.test('only IP literals are accepted: anything else falls back to the socket address', async (t) => {
  const c = new ClientAddress(['127.0.0.1/32', '10.0.0.0/8']);
  for (const bad of ['<script>', 'unknown', '203.0.113.9:443', '[2001:db8::1]', 'fe80::1%eth0', '1.2.3', '', ' , ']) {
    t.equal(c.resolve(PROXY, bad), PROXY, JSON.stringify(bad));
  }
  t.equal(c.resolve(PROXY, '203.0.113.9, <script>'), PROXY, 'an invalid rightmost hop');
  t.equal(c.resolve(PROXY, '<script>, 203.0.113.9'), '203.0.113.9', 'junk left of the client is never reached');
  t.equal(c.resolve(PROXY, undefined), PROXY);
});

t.test('when every hop is a trusted proxy the leftmost is the client', async (t) => {
  const c = new ClientAddress(['127.0.0.1/32', '10.0.0.0/8']);
  t.equal(c.resolve(PROXY, '10.0.0.9, 10.0.0.7'), '10.0.0.9');
});

t.test('a bad CIDR is refused at construction', async (t) => {
  t.throws(() => new ClientAddress(['10.0.0.0/40']), /not a CIDR/);
});
