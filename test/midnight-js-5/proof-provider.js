// Midnight.js 5's HTTP proof provider, from this package's own install (README.md).
export { httpClientProofProvider } from '@midnight-ntwrk/midnight-js-http-client-proof-provider';
