import t from 'tap';
import { baseUrl } from '../../../src/cli/base-url.js';

t.test('the base URL is read as curl reads it', async (t) => {
  t.equal(baseUrl('localhost:8080'), 'http://localhost:8080');
  t.equal(baseUrl('http://127.0.0.1:8080/'), 'http://127.0.0.1:8080');
  t.equal(baseUrl('HTTPS://gw.example'), 'HTTPS://gw.example');
});
