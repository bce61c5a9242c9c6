// A bump arena over linear memory. The JavaScript side resets it, allocates its inputs and outputs, calls one
// kernel and copies the outputs back; kernels take their scratch space from the same arena. Nothing is freed
// one by one, so there is no managed object anywhere (the module is built with --runtime stub).

let top: usize = 0;

// @ts-ignore: decorator
@inline function arenaStart(): usize {
  return (__heap_base + 15) & ~(<usize>15);
}

/**
 * `bytes` of 16-byte-aligned memory (contents undefined), growing memory as needed; 0 when it cannot grow.
 * Sizes are 64-bit so that a product of sizes past 4 GiB answers 0 instead of wrapping around.
 */
export function arenaAlloc(bytes: u64): usize {
  if (top == 0) top = arenaStart();
  const start = (top + 15) & ~(<usize>15);
  const end = <u64>start + bytes;
  if (end >= (<u64>1 << 32)) return 0;
  const have = <u64>memory.size() << 16;
  if (end > have && memory.grow(<i32>((end - have + 0xffff) >> 16)) < 0) return 0;
  top = <usize>end;
  return start;
}

/** Room for `count` doubles. */
export function allocF64(count: u64): usize {
  return count >= (<u64>1 << 32) ? 0 : arenaAlloc(count << 3);
}

/** Room for `count` doubles, zeroed (reused arena memory holds the previous call's values). */
export function allocF64Zeroed(count: u64): usize {
  const ptr = allocF64(count);
  if (ptr != 0) memory.fill(ptr, 0, <usize>(count << 3));
  return ptr;
}

/** Room for `count` 32-bit integers. */
export function allocI32(count: u64): usize {
  return count >= (<u64>1 << 32) ? 0 : arenaAlloc(count << 2);
}

/** Forgets every allocation: the next call's data overwrites the previous one's. */
export function arenaReset(): void {
  top = arenaStart();
}

// Element access on raw pointers: base + index * element size.

// @ts-ignore: decorator
@inline export function getF64(base: usize, index: i32): f64 {
  return load<f64>(base + (<usize>index << 3));
}

// @ts-ignore: decorator
@inline export function setF64(base: usize, index: i32, value: f64): void {
  store<f64>(base + (<usize>index << 3), value);
}

// @ts-ignore: decorator
@inline export function getI32(base: usize, index: i32): i32 {
  return load<i32>(base + (<usize>index << 2));
}

// @ts-ignore: decorator
@inline export function setI32(base: usize, index: i32, value: i32): void {
  store<i32>(base + (<usize>index << 2), value);
}

/** Fills `count` doubles at `base` with `value`. */
export function fillF64(base: usize, count: i32, value: f64): void {
  for (let i = 0; i < count; i++) setF64(base, i, value);
}

/** The arena's current top, to release everything allocated after it with arenaRelease. */
export function arenaMark(): usize {
  if (top == 0) top = arenaStart();
  return top;
}

export function arenaRelease(mark: usize): void {
  top = mark;
}
