/** The bench's side of bench/probes/loop-delay.ts: ask the server process over IPC, with a timeout. */
import type { ChildProcess } from 'node:child_process';

export interface LoopDelay {
  resolutionMs: number;
  samples: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  meanMs: number;
}

const ASK_TIMEOUT_MS = 10_000;

export class LoopDelayClient {
  readonly #child: ChildProcess;

  constructor(child: ChildProcess) {
    this.#child = child;
  }

  #ask<T>(type: string, answer: string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#child.off('message', onMessage);
        reject(new Error(`the loop-delay probe did not answer '${type}' within ${ASK_TIMEOUT_MS} ms`));
      }, ASK_TIMEOUT_MS);
      const onMessage = (message: { type?: string }): void => {
        if (message.type !== answer) return;
        clearTimeout(timer);
        this.#child.off('message', onMessage);
        resolve(message as T);
      };
      this.#child.on('message', onMessage);
      this.#child.send({ type });
    });
  }

  async reset(): Promise<void> {
    await this.#ask('loop-delay:reset', 'loop-delay:reset');
  }

  read(): Promise<LoopDelay> {
    return this.#ask<LoopDelay>('loop-delay:read', 'loop-delay');
  }

  async workers(): Promise<number> {
    return (await this.#ask<{ count: number }>('workers', 'workers')).count;
  }
}
