/**
 * Key ids nightgate gives itself. A configured key under one of them would share its counts: the
 * DUST pool keeper's reservations are counted as the key `nightgate-pool` (dust/pool-constants.ts),
 * NIGHTGATE_API_KEYS's keys are `env-1`, `env-2`, … and the development key minted when nothing is
 * configured is `dev-generated` (app.ts) — rate limits, budgets, reservation shares and log lines
 * would mix the two. The `nightgate-` prefix is kept for ids to come.
 */
const RESERVED = [
  {
    test: (id: string) => id.startsWith('nightgate-'),
    why: 'starts with "nightgate-", kept for nightgate\'s own accounts (e.g. nightgate-pool, the DUST pool keeper)',
  },
  { test: (id: string) => /^env-\d+$/.test(id), why: 'is the id of a key from NIGHTGATE_API_KEYS (env-1, env-2, …)' },
  { test: (id: string) => id === 'dev-generated', why: 'is the id of the development key minted when no key is configured' },
];

/** Why `id` may not name a configured key, or undefined when it may. */
export function reservedKeyId(id: string): string | undefined {
  return RESERVED.find((r) => r.test(id))?.why;
}

const ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

/** Why `id` cannot name a new key (its form, or an id nightgate uses), or undefined when it can. */
export function keyIdProblem(id: string): string | undefined {
  if (!ID_PATTERN.test(id)) return 'is not 1 to 64 letters, digits, ".", "_" or "-"';
  return reservedKeyId(id);
}
