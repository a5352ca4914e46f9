import type { Module } from '../app-context.js';
import { notImplemented } from '../routes/not-implemented.js';

export const mountProver: Module = (ctx) => {
  ctx.addRoutes([
    notImplemented('POST', '/prove', 'Prove', ['proving'], 'prover', 'key'),
    notImplemented('POST', '/verify', 'Verify', ['proving'], 'prover', 'key'),
  ]);
};
