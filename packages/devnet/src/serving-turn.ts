// Block production shares its thread with the indexer API it feeds: one worker hosts every network
// and their HTTP and WebSocket servers. A block chains WASM steps of tens to hundreds of
// milliseconds each through awaits that settle as microtasks, so without a break the thread reads
// no socket until the whole block is done. On a busy machine a block then takes seconds of wall
// time, blocks fall behind their schedule and run back to back, and every round trip of a client
// waits for a whole block: a new subscription (TCP accept, upgrade, connection_init, subscribe) is
// answered only after four of them. Awaiting this between steps lets the event loop poll its
// sockets first, so a round trip waits for one step at most.
export function yieldToServing(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
