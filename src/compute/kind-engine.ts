/**
 * The worker side of a twin kind (src/twins/kinds/<kind>/engine.ts): named learning steps (discover, fit, ...) the
 * pool runs by module, so a new kind brings its steps in its own folder and the worker never names them. A step
 * takes its input (structured-cloned; frames on shared memory), the worker's kernels and progress hooks.
 */
import type { WorkHooks } from '../engine/types.js';
import type { Kernels } from './kernels.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each step declares its own input type
export type KindStep = (input: any, kernels: Kernels, hooks: WorkHooks) => unknown;
export type KindEngine = Record<string, KindStep>;

/** A kind's engine module by address, typed by the module's default export (E is only a compile-time tag). */
export interface KindEngineRef<E extends KindEngine> {
  href: string;
  readonly engine?: E;
}

export const kindEngineRef = <E extends KindEngine>(href: string): KindEngineRef<E> => ({ href });
