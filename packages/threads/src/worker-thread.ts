/**
 * Start a worker thread on one of our own modules, from compiled JS (production, `dist/`) or from
 * the TypeScript sources (tests, `npx tsx`). On Node 20 a worker does not get the parent's tsx
 * loader for its entry module even with the parent's execArgv, so under TypeScript the worker
 * boots a tiny script that registers tsx first and then imports the entry. tsx is looked up only
 * then, in the repository (its devDependency): compiled code never needs it.
 */
import { Worker, type WorkerOptions } from 'node:worker_threads';

/** `entry` is the module URL without extension, resolved against the caller's `import.meta.url`. */
export function startModuleWorker(entry: URL, callerUrl: string, options: WorkerOptions = {}): Worker {
  const ts = callerUrl.endsWith('.ts');
  const url = new URL(`${entry.href}${ts ? '.ts' : '.js'}`);
  if (!ts) return new Worker(url, options);
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(url.href)}); });`;
  return new Worker(boot, { ...options, eval: true });
}
