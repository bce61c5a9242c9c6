/**
 * Parquet files of one schema spliced into one (src/lib/parquet-splice.ts), and the Thrift compact codec under it
 * (src/lib/thrift-compact.ts): parts written by the data engine, read back by hyparquet.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { newId } from '../../../src/lib/ids.js';
import { spliceParquet } from '../../../src/lib/parquet-splice.js';
import { CompactType, readStruct, writeStruct } from '../../../src/lib/thrift-compact.js';
import { sharedDataStore } from '../../helpers/app.js';

const ORG = newId('org');

/** Rows [from, to) as a Parquet file written by the data engine: an integer, a nullable text, a float. */
async function part(from: number, to: number): Promise<Buffer> {
  const store = sharedDataStore();
  await store.ensureTenant(ORG);
  const stream = await store.export(
    ORG,
    () => `SELECT number AS n, if(number % 3 = 0, NULL, concat('row ', toString(number))) AS s, number / 4 AS x FROM numbers({from:UInt64}, {count:UInt64})`,
    'Parquet',
    { from, count: to - from },
  );
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function spliced(parts: Buffer[]): Promise<ArrayBuffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of spliceParquet((async function* () { yield* parts; })())) chunks.push(chunk);
  const bytes = Buffer.concat(chunks);
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

test('a Parquet footer read and written back by the compact codec is the same bytes', async () => {
  const file = await part(0, 1000);
  const length = file.readUInt32LE(file.length - 8);
  const footer = file.subarray(file.length - 8 - length, file.length - 8);
  const { struct, end } = readStruct(footer);
  assert.equal(end, footer.length);
  assert.deepEqual(Buffer.from(writeStruct(struct)), footer);
});

test('the compact codec keeps booleans, negative and 64-bit integers, doubles, long lists, maps and field id jumps', () => {
  const struct = {
    kind: 'struct' as const,
    fields: [
      { id: 1, type: CompactType.True, value: true },
      { id: 2, type: CompactType.False, value: false },
      { id: 3, type: CompactType.I32, value: -123_456 },
      { id: 40, type: CompactType.I64, value: -(2n ** 62n) },
      { id: 41, type: CompactType.Double, value: -1.5e-300 },
      { id: 42, type: CompactType.List, value: { kind: 'list' as const, element: CompactType.True, items: Array.from({ length: 20 }, (_, i) => i % 3 === 0) } },
      { id: 43, type: CompactType.Map, value: { kind: 'map' as const, key: CompactType.Binary, value: CompactType.I16, entries: [[new Uint8Array([104, 105]), -7]] as Array<[Uint8Array, number]> } },
      { id: 44, type: CompactType.Byte, value: -3 },
    ],
  };
  const bytes = writeStruct(struct);
  const { struct: read, end } = readStruct(bytes);
  assert.equal(end, bytes.length);
  assert.deepEqual(read, struct);
});

test('parts spliced into one file hold every row in order, one row group per part, empty parts included', async () => {
  const parts = [await part(0, 5000), await part(5000, 5000), await part(5000, 12_345), await part(12_345, 12_346)];
  const file = await spliced(parts);
  const metadata = parquetMetadata(file);
  assert.equal(Number(metadata.num_rows), 12_346);
  const partGroups = parts.reduce((n, p) => n + parquetMetadata(p.buffer.slice(p.byteOffset, p.byteOffset + p.byteLength) as ArrayBuffer).row_groups.length, 0);
  assert.equal(metadata.row_groups.length, partGroups);
  const rows = await parquetReadObjects({ file, compressors });
  assert.equal(rows.length, 12_346);
  rows.forEach((row, i) => {
    assert.equal(Number(row.n), i);
    assert.equal(row.s, i % 3 === 0 ? null : `row ${i}`);
    assert.equal(row.x, i / 4);
  });
  // A single part is the same file again, but for its footer's bytes.
  const alone = await spliced([parts[0]!]);
  assert.deepEqual((await parquetReadObjects({ file: alone, compressors })).length, 5000);
});

test('parts of different schemas, and bytes that are not Parquet, are refused', async () => {
  const first = await part(0, 10);
  const other = await (async () => {
    const store = sharedDataStore();
    const stream = await store.export(ORG, () => 'SELECT toString(number) AS n FROM numbers(10)', 'Parquet');
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  })();
  await assert.rejects(spliced([first, other]), /differ in schema/);
  await assert.rejects(spliced([Buffer.from('not a parquet file at all')]), /not a Parquet file/);
});
