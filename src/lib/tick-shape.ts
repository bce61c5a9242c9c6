import { executionAsyncResource } from 'node:async_hooks';

/**
 * Keeps one entry of node's nextTick queue alive for the life of the process, so that V8 keeps the hidden classes
 * ("maps") of those entries, and `process.nextTick` keeps building them inline.
 *
 * Why (Node 20, V8 11.3; measured in bench/http/reads.ts, see BENCHMARKS.md "HTTP reads: history"): `nextTick`
 * builds every queue entry with the literal `{ [async_id_symbol]: ..., [trigger_async_id_symbol]: ..., callback,
 * args }`. Its first key is computed, so every member is defined through an inline cache that remembers the one map
 * it saw, and V8 holds those maps only weakly (the transition tree, the feedback, the optimized code). A full garbage
 * collection at a moment when no entry is queued frees them; the next entry gets fresh maps, the cache sees a map
 * other than the one it remembered and turns megamorphic for good, and from then on the optimized `nextTick` calls
 * into the runtime for each of its last two members (a transition lookup and a map migration each): 1-1.5 µs per
 * call instead of 0.1, several calls per HTTP request. A small process never runs such a collection after its
 * first ticks; building Causa's app (schemas, routes, OpenAPI: some 50 MB of heap) runs two or three, and one of
 * them regularly lands in that window. The measured cost was 5-8 µs of server CPU per request on every route of the
 * process, Causa's or not. Holding one entry alive keeps its maps alive, so the cache stays monomorphic.
 *
 * The entry is taken from inside a tick callback, where it is the current async resource (no async hook needed).
 * Must run before those caches are filled, a few dozen ticks into the process (loading the modules does not get
 * there; app.ts calls it when loaded, before any app is built); calling it again does nothing.
 */
const kept: object[] = [];

export function keepTickShape(): void {
  if (kept.length > 0) return;
  process.nextTick(() => {
    if (kept.length === 0) kept.push(executionAsyncResource());
  });
}
