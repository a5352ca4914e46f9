/**
 * Task `admission`: read and judge a transaction sent for sponsorship, and answer what the main
 * thread checks before a `balance` task may reserve anything for it — its unshielded inputs and,
 * for a key with a policy, its effects (src/features/sponsorship/worker/sponsor.ts,
 * `readForAdmission`). It reserves nothing and waits on nothing: the checks that wait on the
 * network are the main thread's, made with no worker thread held.
 */
import { GatewayError } from '../../../../core/errors.js';
import type { AdmissionResult } from '../../common/balance-task.js';
import { readForAdmission } from '../sponsor.js';
import { defineTask, requireData } from '../../../../infra/pool/worker/task.js';

export const admission = defineTask<'admission'>(async (args, data, shared): Promise<AdmissionResult> => {
  const body = requireData(data);
  const snapshot = shared?.[0];
  if (!snapshot) throw new GatewayError('INTERNAL', 'the admission task needs the wallet snapshot');
  return readForAdmission(body, args, snapshot);
});
