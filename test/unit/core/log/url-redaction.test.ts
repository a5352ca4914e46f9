/** One redaction for every URL nightgate prints or returns: no credentials, no query string. */
import t from 'tap';
import { redactUrl, redactUrls, redactDeep } from '../../../../src/core/log/url-redaction.js';

t.test('a URL loses its user info, query and fragment; the rest stays readable', async (t) => {
  t.equal(redactUrl('http://user:PASS@idx.example:8088/api/v4/graphql?key=TOKEN#frag'), 'http://redacted@idx.example:8088/api/v4/graphql?redacted');
  t.equal(redactUrl('wss://idx.example/api/v4/graphql/ws?apikey=X'), 'wss://idx.example/api/v4/graphql/ws?redacted');
  t.equal(redactUrl('https://token@idx.example/'), 'https://redacted@idx.example/');
  t.equal(redactUrl('http://127.0.0.1:6300'), 'http://127.0.0.1:6300', 'nothing secret: unchanged (no slash added)');
  t.equal(redactUrl('http://127.0.0.1:6300/'), 'http://127.0.0.1:6300/');
  t.equal(redactUrl('https://idx.example/graphql?'), 'https://idx.example/graphql', 'an empty query is dropped');
});

t.test('what does not parse is cut at the first sign of a secret', async (t) => {
  t.equal(redactUrl('not a url user:pw@x?y=1'), 'redacted');
  t.equal(redactUrl(''), '');
});

t.test('URLs inside text (error messages) are redacted, the text around them kept', async (t) => {
  t.equal(
    redactUrls('The indexer subscription at ws://u:p@10.0.0.5:8088/api/v4/graphql/ws?apikey=X closed (1006)'),
    'The indexer subscription at ws://redacted@10.0.0.5:8088/api/v4/graphql/ws?redacted closed (1006)',
  );
  t.equal(redactUrls('two: http://a:b@x/1?q=1, https://y/2?t=2.'), 'two: http://redacted@x/1?redacted, https://y/2?redacted.');
  t.equal(redactUrls('no url here'), 'no url here');
});

t.test('every string of a report is redacted, the shape kept', async (t) => {
  const report = { status: 'ok', n: 3, list: ['http://u:p@h/x?k=1', null], nested: { url: 'https://h/?token=T', ok: true } };
  t.strictSame(redactDeep(report), { status: 'ok', n: 3, list: ['http://redacted@h/x?redacted', null], nested: { url: 'https://h/?redacted', ok: true } });
  t.equal(report.list[0], 'http://u:p@h/x?k=1', 'the input is not changed');
});
