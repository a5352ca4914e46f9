// Midnight.js 5's indexer public data provider, from this package's own install (README.md).
export { getAllContractEvents, indexerPublicDataProvider } from '@midnight-ntwrk/midnight-js-indexer-public-data-provider';
