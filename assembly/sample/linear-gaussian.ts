// Ancestral sampling of a linear-Gaussian network in topological order: sampleLinearGaussian of
// src/compute/reference/sampling.ts (every (row, node) draws its normal, so interventions share the noise).
import { fillF64, getF64, getI32, setF64 } from '../shared/memory';
import { nextNormal, seedRandom } from '../shared/random';
import { STATUS_INVALID_INPUT, STATUS_OK } from '../shared/status';

function validParents(p: i32, parentStart: usize, parentIndex: usize, parentCount: i32): bool {
  if (getI32(parentStart, 0) < 0 || getI32(parentStart, p) > parentCount) return false;
  for (let j = 0; j < p; j++) {
    const from = getI32(parentStart, j);
    const to = getI32(parentStart, j + 1);
    if (to < from) return false;
    for (let m = from; m < to; m++) {
      const parent = getI32(parentIndex, m);
      if (parent < 0 || parent >= j) return false;
    }
  }
  return true;
}

export function sampleLinearGaussian(
  n: i32,
  p: i32,
  intercept: usize,
  noiseStd: usize,
  parentStart: usize,
  parentIndex: usize,
  parentCount: i32,
  weight: usize,
  fixed: usize,
  seed: u32,
  out: usize,
): i32 {
  if (!validParents(p, parentStart, parentIndex, parentCount)) {
    fillF64(out, n * p, NaN);
    return STATUS_INVALID_INPUT;
  }
  seedRandom(seed);
  for (let r = 0; r < n; r++) {
    const row = r * p;
    for (let j = 0; j < p; j++) {
      const noise = nextNormal();
      const clamp = getF64(fixed, j);
      if (!isNaN(clamp)) {
        setF64(out, row + j, clamp);
        continue;
      }
      let value = getF64(intercept, j);
      const to = getI32(parentStart, j + 1);
      for (let m = getI32(parentStart, j); m < to; m++) value += getF64(weight, m) * getF64(out, row + getI32(parentIndex, m));
      setF64(out, row + j, value + getF64(noiseStd, j) * noise);
    }
  }
  return STATUS_OK;
}
