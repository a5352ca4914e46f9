/**
 * Watches the worker pool from the test: every task handed to piscina (`queued`) and every
 * caller that has seen its outcome (`settled`, one macrotask after the task's promise settled, so
 * the caller's own `finally` has run). Tests await these instead of sleeping.
 */
import { EventEmitter } from 'node:events';
import type { WorkerPoolComponent } from '../../../src/features/proving/index.js';

export interface PoolSpy {
  /** Tasks handed to the pool whose callers have not yet seen the outcome. */
  readonly outstanding: number;
  /** The next task handed to the pool (piscina has queued or started it when this resolves). */
  nextQueued(): Promise<void>;
  /** Resolves when no task is outstanding. */
  idle(): Promise<void>;
}

export function spyOnPool(pool: WorkerPoolComponent): PoolSpy {
  const events = new EventEmitter<{ queued: []; settled: [] }>();
  let outstanding = 0;
  const run = pool.run.bind(pool);
  pool.run = ((...args: Parameters<typeof run>) => {
    // piscina queues or starts the task synchronously inside `run`, before its first await.
    const p = run(...args);
    outstanding++;
    events.emit('queued');
    const settle = (): void => {
      setImmediate(() => {
        outstanding--;
        events.emit('settled');
      });
    };
    p.then(settle, settle);
    return p;
  }) as typeof pool.run;
  return {
    get outstanding() {
      return outstanding;
    },
    nextQueued: () => new Promise((resolve) => events.once('queued', () => resolve())),
    idle: () =>
      new Promise((resolve) => {
        if (outstanding === 0) return resolve();
        events.on('settled', function on() {
          if (outstanding > 0) return;
          events.off('settled', on);
          resolve();
        });
      }),
  };
}
