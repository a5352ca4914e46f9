/**
 * Series set at scrape time from what a component already keeps: gauges, and the counts it keeps
 * itself exposed as counters (they only grow). A collector owns one set, registered once, and at
 * each scrape resets it and sets it again in one synchronous pass, so a concurrent scrape never
 * sees (or doubles) a half-set series.
 */
import { Counter, Gauge } from 'prom-client';
import type { Metrics } from './metrics.js';

type Labels = Record<string, string>;

export class ScrapedSeries {
  readonly #series: Array<Gauge<string> | Counter<string>> = [];

  constructor(private readonly metrics: Metrics) {}

  gauge(name: string, help: string, labelNames: string[] = []): Gauge<string> {
    const g = new Gauge({ name, help, labelNames, registers: [this.metrics.registry] });
    this.#series.push(g);
    return g;
  }

  /** A count the component keeps itself: exposed as a counter, set to the component's total at each scrape. */
  counter(name: string, help: string, labelNames: string[] = []): Counter<string> {
    const c = new Counter({ name, help, labelNames, registers: [this.metrics.registry] });
    this.#series.push(c);
    return c;
  }

  /** Clears every series of the set, right before they are set again. */
  reset(): void {
    for (const s of this.#series) s.reset();
  }
}

/** Sets a counter to a total the component keeps; a missing or negative one leaves it unset. */
export function setCount(c: Counter<string>, labels: Labels, v: number | undefined | null): void {
  if (typeof v === 'number' && Number.isFinite(v) && v >= 0) c.inc(labels, v);
}

/** Sets a gauge unless the value is missing (a component that does not know it yet). */
export function setGauge(g: Gauge<string>, labels: Labels, v: number | undefined | null): void {
  if (typeof v === 'number' && Number.isFinite(v)) g.set(labels, v);
}
