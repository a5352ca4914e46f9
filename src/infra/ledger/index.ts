/**
 * The product's entry to the ledger boundary: the API of `@nightgate/ledger` (packages/ledger, the
 * one place that imports the Midnight ledger packages), and the server-side registry of the era
 * each network runs (network-eras.ts). Code under src/ imports the ledger from here.
 */
export * from '@nightgate/ledger';
export * from '@nightgate/ledger/address';
export * from '@nightgate/ledger/bech32m';
export * from '@nightgate/ledger/checks';
export * from '@nightgate/ledger/wallet-keys';
export * from '@nightgate/ledger/scale';
export * from '@nightgate/ledger/extrinsic';
export { NetworkEras, networkEras, ledgerPackageReport } from './network-eras.js';
