// Uniform draws in [0, 1) from the sampler's seeded generator (shared/random.ts).
import { setF64 } from '../shared/memory';
import { nextUniform, seedRandom } from '../shared/random';
import { STATUS_OK } from '../shared/status';

export function uniforms(count: i32, seed: u32, out: usize): i32 {
  seedRandom(seed);
  for (let i = 0; i < count; i++) setF64(out, i, nextUniform());
  return STATUS_OK;
}
