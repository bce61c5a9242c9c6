/**
 * A chunk read by reference, decoded (src/simulations/batch/input.ts chunkFrame): RowBinary rows of Float64 cells
 * become the frame's columns on shared memory, whatever the row count against the transposition's blocks and
 * whether the bytes start aligned or not; the caller's extra cells stay readable by row.
 */
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { ROW_ENVIRONMENT } from '../../../src/engine/panel/keys.js';
import { chunkFrame, readAll } from '../../../src/simulations/batch/input.js';

const model = {
  nodes: [
    { name: 'x', kind: 'continuous' as const },
    { name: 'plan', kind: 'categorical' as const, categories: ['basic', 'premium', 'gold'] },
    { name: 'y', kind: 'continuous' as const },
  ],
};
const keys = ['site=a', 'site=b'];

/** Row r's cells: x, plan's code, y, the environment code, then one extra cell (the caller's row key). */
const rowCells = (r: number) => [r / 4, r % 7 === 0 ? -1 : r % 3, r % 11 === 0 ? Number.NaN : -r, r % 5 === 0 ? -1 : r % 2, 1000 + r];

function rowBinary(rows: number, offset: number): Buffer {
  const bytes = Buffer.alloc(offset + rows * 5 * 8);
  for (let r = 0; r < rows; r++) rowCells(r).forEach((cell, j) => bytes.writeDoubleLE(cell, offset + (r * 5 + j) * 8));
  return bytes.subarray(offset);
}

for (const rows of [1, 511, 512, 1300]) {
  for (const offset of [0, 3]) {
    test(`${rows} rows whose bytes start ${offset === 0 ? 'aligned' : 'unaligned'} decode to the frame's columns`, () => {
      const { frame, cells, width } = chunkFrame(rowBinary(rows, offset), model, keys, 1);
      assert.equal(frame.nRows, rows);
      assert.equal(width, 5);
      assert.deepEqual(frame.columns.map((c) => c.name), ['x', 'plan', 'y', ROW_ENVIRONMENT]);
      const [x, plan, y, environment] = frame.columns;
      assert.ok(x?.kind === 'continuous' && plan?.kind === 'categorical' && y?.kind === 'continuous' && environment?.kind === 'categorical');
      for (const column of frame.columns) assert.ok((column.kind === 'continuous' ? column.values : column.codes).buffer instanceof SharedArrayBuffer);
      assert.deepEqual(plan.categories, ['basic', 'premium', 'gold']);
      assert.deepEqual(environment.categories, keys);
      for (let r = 0; r < rows; r++) {
        const expected = rowCells(r);
        assert.equal(x.values[r], expected[0], `x of row ${r}`);
        assert.equal(plan.codes[r], expected[1], `plan of row ${r}`);
        assert.ok(Object.is(y.values[r], expected[2]), `y of row ${r}`);
        assert.equal(environment.codes[r], expected[3], `environment of row ${r}`);
        assert.equal(cells[r * width + 4], expected[4], `extra cell of row ${r}`);
      }
    });
  }
}

test('a readable of several parts is read whole, in order; one part as it is', async () => {
  const parts = [Buffer.from([1, 2]), Buffer.from([3]), Buffer.from([4, 5, 6])];
  assert.deepEqual([...(await readAll(Readable.from(parts)))], [1, 2, 3, 4, 5, 6]);
  const one = Buffer.from([7, 8]);
  assert.equal(await readAll(Readable.from([one])), one);
});
