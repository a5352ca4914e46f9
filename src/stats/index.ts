import type { Module } from '../app-context.js';
import { notImplemented } from '../routes/not-implemented.js';

const ROUTES = ['summary', 'latest-block', 'block-time', 'blocks-produced', 'uptime', 'epoch', 'd-parameter', 'night-supply', 'search', 'recent-transactions', 'block', 'transaction', 'contract', 'address-activity'];

export const mountStats: Module = (ctx) => {
  ctx.addRoutes(ROUTES.map((r) => notImplemented('GET', `/api/v1/:network/${r}`, r, ['statistics'], 'stats', 'none')));
};
