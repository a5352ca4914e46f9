import type { Module } from '../app-context.js';
import { notImplemented } from '../routes/not-implemented.js';

export const mountSponsorship: Module = (ctx) => {
  ctx.addRoutes([
    notImplemented('POST', '/prove-and-balance', 'Prove and balance', ['sponsorship'], 'prover', 'key'),
    notImplemented('POST', '/balance-only', 'Balance only', ['sponsorship'], 'prover', 'key'),
  ]);
};
