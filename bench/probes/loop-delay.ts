/**
 * The real process entry with an event-loop probe in front: `node …/loop-delay.js serve` installs
 * perf_hooks' monitorEventLoopDelay on the main thread, then imports src/cli (which reads the same
 * argv), so the delay is measured inside nightgate without adding anything to src/. The bench reads
 * and resets it over the IPC channel it opens. It also counts the process's worker threads (from
 * the diagnostic report) for the RSS-per-worker target.
 * Not a `--import` preload: worker threads inherit execArgv, and piscina's workers would load the
 * probe too (and, under tsx on Node 20, fail to load a .ts preload at all).
 * Messages: {type:'loop-delay:reset'} → {type:'loop-delay:reset'};
 * {type:'loop-delay:read'} → {type:'loop-delay', …figures}; {type:'workers'} → {type:'workers', count}.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { modulePath } from '../lib/paths.js';

/** Sampling period. The histogram holds the period plus the delay, so the period is subtracted. */
const RESOLUTION_MS = 5;
const NS_PER_MS = 1e6;

const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
histogram.enable();

const delayMs = (ns: number): number => Math.max(0, ns / NS_PER_MS - RESOLUTION_MS);

function reply(message: Record<string, unknown>): void {
  process.send?.(message);
}

if (process.send) {
  process.on('message', (message: { type?: string }) => {
    switch (message.type) {
      case 'loop-delay:reset':
        histogram.reset();
        reply({ type: 'loop-delay:reset' });
        break;
      case 'loop-delay:read':
        reply({
          type: 'loop-delay',
          resolutionMs: RESOLUTION_MS,
          samples: histogram.count,
          p50Ms: delayMs(histogram.percentile(50)),
          p99Ms: delayMs(histogram.percentile(99)),
          maxMs: delayMs(histogram.max),
          meanMs: delayMs(histogram.mean),
        });
        break;
      case 'workers': {
        const report = process.report.getReport() as { workers?: unknown[] };
        reply({ type: 'workers', count: report.workers?.length ?? 0 });
        break;
      }
    }
  });
  // The channel must never keep the server alive: its own shutdown decides when it exits.
  process.channel?.unref();
}

await import(pathToFileURL(modulePath('src/cli')).href);
