/** Seeded data from known models, for tests of what the engine learns (mulberry32 + Box-Muller). */
export function seededRandom(seed: number): { uniform(): number; normal(): number } {
  let state = seed >>> 0;
  const uniform = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const normal = () => Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
  return { uniform, normal };
}

/** x -> y -> z with y = 2x + e, z = -1.5y + e (unit noise), plus w independent: a chain with known weights. */
export function linearChainRows(n: number, seed = 7): Array<Record<string, number>> {
  const random = seededRandom(seed);
  return Array.from({ length: n }, () => {
    const x = random.normal();
    const y = 2 * x + random.normal();
    const z = -1.5 * y + random.normal();
    const w = random.normal();
    return { x: round(x), y: round(y), z: round(z), w: round(w) };
  });
}

const round = (value: number) => Math.round(value * 1e6) / 1e6;
