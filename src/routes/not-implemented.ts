/** Route records for capabilities whose module is not built yet: documented, answering 501. */
import { GatewayError } from '../errors.js';
import type { RouteDef } from '../http/route.js';

export function notImplemented(method: 'GET' | 'POST', url: string, summary: string, tags: string[], style: 'stats' | 'prover', auth: 'none' | 'key'): RouteDef {
  return {
    method, url, style, auth, rateLimit: auth === 'key' ? 'key' : 'ip',
    schema: { summary, tags, response: { 501: { description: 'Not available in this build yet' } } },
    handler: () => {
      throw new GatewayError('NOT_IMPLEMENTED');
    },
  };
}
