/**
 * The server's own state on /metrics: requests being answered and the API keys known, read at
 * scrape time from what the app passes in.
 */
import type { Metrics } from './metrics.js';
import { ScrapedSeries } from './scraped-series.js';

interface ServerState {
  /** Requests in flight on the HTTP server. */
  inFlight(): number;
  /** API keys known now: active and revoked. */
  keys(): { active: number; revoked: number };
}

export function collectServer(metrics: Metrics, state: ServerState): void {
  const series = new ScrapedSeries(metrics);
  const inFlight = series.gauge('nightgate_http_requests_in_flight', 'Requests being answered now');
  const keys = series.gauge('nightgate_api_keys', 'API keys known now, by state', ['state']);
  metrics.onScrape(() => {
    series.reset();
    inFlight.set(state.inFlight());
    const k = state.keys();
    keys.set({ state: 'active' }, k.active);
    keys.set({ state: 'revoked' }, k.revoked);
  });
}
