/**
 * Threads of our own modules: starting a worker thread on one (compiled or from the TypeScript
 * sources), and lowering a thread's scheduling priority. The server and the embedded devnet both
 * start their threads with these.
 */
export { startModuleWorker } from './worker-thread.js';
export { lowerThreadPriority } from './thread-priority.js';
