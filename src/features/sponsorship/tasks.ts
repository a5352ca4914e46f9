/**
 * Sponsorship's worker tasks: the module that runs them (worker/tasks/), which the app hands to
 * the pool. Their arguments and results are declared with their types (common/balance-task.ts,
 * common/pool-task.ts).
 */
import { tasksIn } from '../../infra/pool/tasks.js';

export const SPONSORSHIP_TASKS = tasksIn(new URL('./worker/tasks/index.js', import.meta.url), ['admission', 'balance', 'poolAddresses', 'poolSplit']);
