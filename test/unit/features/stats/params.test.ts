/** Parameter parsing: every rejection is INVALID_PARAMETER naming the parameter. */
import t from 'tap';
import { hexToAddress, parseHash, parseHeight, parseIdentifier, parseLimit, parseSearch, parseSerializedHex } from '../../../../src/features/stats/params.js';

const bad = (message: string) => ({ code: 'INVALID_PARAMETER', status: 400, message });
const H = 'ab'.repeat(32);

t.test('height', async (t) => {
  t.equal(parseHeight('0'), 0);
  t.equal(parseHeight('42'), 42);
  t.equal(parseHeight('2147483647'), 2147483647);
  t.throws(() => parseHeight(null), bad('height is required'));
  t.throws(() => parseHeight(''), bad('height is required'));
  // Canonical or refused: `01`, `+1` and ` 42 ` are not read as numbers.
  for (const v of ['-1', 'abc', '1.5', '1e3', '0x10', '01', '00', '+1', ' 42 ', '42 ', '\t1'])
    t.throws(() => parseHeight(v), bad('height must be a non-negative integer: decimal digits, no sign, leading zero or space'), JSON.stringify(v));
  t.throws(() => parseHeight('2147483648'), bad('height must be at most 2147483647'));
});

t.test('limit', async (t) => {
  t.equal(parseLimit(null, 20), 20);
  t.equal(parseLimit('1', 20), 1);
  t.equal(parseLimit('100', 20), 100);
  for (const v of ['0', '101', '-5', 'ten', '', '1.0', '01', '+5', ' 5', '5 ', '020'])
    t.throws(() => parseLimit(v, 20), bad('limit must be an integer from 1 to 100'), v);
});

t.test('hashes, serialized hex, identifiers', async (t) => {
  t.equal(parseHash(H.toUpperCase(), 'hash'), H);
  t.equal(parseHash(`0x${H}`, 'hash'), H);
  t.throws(() => parseHash('abc', 'hash'), bad('hash must be 64 hexadecimal characters'));
  t.throws(() => parseHash(null, 'hash'), bad('hash is required'));
  t.equal(parseSerializedHex(`${H}00`, 'address'), `${H}00`);
  t.throws(() => parseSerializedHex('abcd', 'address'), bad('address must be hexadecimal, 64 to 256 characters'));
  t.throws(() => parseSerializedHex(`${H}0`, 'address'), bad('address must be hexadecimal, 64 to 256 characters'), 'odd length');
  const a = hexToAddress(H, 'preprod');
  t.strictSame(parseIdentifier(H, 'preprod'), a);
  t.strictSame(parseIdentifier(a.bech32, 'preprod'), a);
  t.throws(() => parseIdentifier('nope', 'preprod'), bad('identifier must be a 64-hex address or a Bech32m mn_addr_preprod… address'));
  t.throws(() => parseIdentifier(null, 'preprod'), bad('identifier is required'));
});

t.test('search queries are classified before anything is asked upstream', async (t) => {
  t.strictSame(parseSearch('123', 'mainnet'), { kind: 'height', height: 123 });
  t.strictSame(parseSearch(H, 'mainnet'), { kind: 'hex', hex: H });
  t.strictSame(parseSearch('1'.repeat(64), 'mainnet'), { kind: 'hex', hex: '1'.repeat(64) }, 'an all-digit hash is hex');
  const a = hexToAddress(H, 'mainnet');
  t.strictSame(parseSearch(a.bech32, 'mainnet'), { kind: 'address', address: a });
  t.throws(() => parseSearch('hello', 'mainnet'), bad('q must be a block height, a hex hash, identifier or contract address, or a Bech32m mn_addr… address'));
  t.throws(() => parseSearch('  ', 'mainnet'), bad('q is required'));
});
