/**
 * One Parquet file from several of the same schema, streamed: the parts' row groups one after another, then one
 * footer listing them all. A Parquet file is `PAR1`, its column chunks, the FileMetaData footer (Thrift compact),
 * the footer's length and `PAR1` again (Apache Parquet format, "File format"); the footer is the only place that
 * knows where the row groups lie, so a part's body can be copied as it is and its row groups listed again with
 * every file offset moved by where the body landed. An export read in parts (chDB hands over each result whole)
 * thus keeps one part in memory, not the whole file.
 */
import { CompactType, type ThriftField, type ThriftList, type ThriftStruct, field, readStruct, writeStruct } from './thrift-compact.js';

const MAGIC = Buffer.from('PAR1');

/**
 * Rows per part of a Parquet export read in parts: a part is a row group, and a row group compresses and reads best
 * large (the engine's own default row group size; 100,000-row groups made a 1M-row export 2.2 times the size of one
 * file). A part in memory is the part's compressed file.
 */
export const PARQUET_PART_ROWS = 1_000_000;

// FileMetaData, RowGroup, ColumnChunk and ColumnMetaData field ids (parquet.thrift).
const FILE_SCHEMA = 2;
const FILE_NUM_ROWS = 3;
const FILE_ROW_GROUPS = 4;
const GROUP_COLUMNS = 1;
const GROUP_FILE_OFFSET = 5;
const GROUP_ORDINAL = 7;
const CHUNK_FILE_OFFSET = 2;
const CHUNK_META = 3;
const CHUNK_OFFSET_INDEX = 4;
const CHUNK_COLUMN_INDEX = 6;
/** data_page_offset, index_page_offset, dictionary_page_offset, bloom_filter_offset. */
const META_OFFSETS = [9, 10, 11, 14];

/** The bytes of one Parquet file holding every row group of `parts` (complete Parquet files of one schema), in order. */
export async function* spliceParquet(parts: AsyncIterable<Uint8Array>): AsyncGenerator<Buffer> {
  let template: ThriftStruct | undefined;
  let schema: Buffer | undefined;
  const groups: ThriftStruct[] = [];
  let rows = 0n;
  let position = MAGIC.length;
  for await (const part of parts) {
    const { footer, body } = sections(part);
    const partSchema = Buffer.from(writeStruct({ kind: 'struct', fields: [required(footer, FILE_SCHEMA)] }));
    if (template === undefined) {
      template = footer;
      schema = partSchema;
      yield MAGIC;
    } else if (!partSchema.equals(schema!)) {
      throw new Error('the Parquet parts differ in schema');
    }
    const shift = BigInt(position - MAGIC.length);
    for (const group of listOf(footer, FILE_ROW_GROUPS)) groups.push(moved(group as ThriftStruct, shift, groups.length));
    rows += required(footer, FILE_NUM_ROWS).value as bigint;
    if (body.length > 0) yield body;
    position += body.length;
  }
  if (template === undefined) throw new Error('no Parquet part to splice');
  const fields = template.fields.map((f): ThriftField => {
    if (f.id === FILE_NUM_ROWS) return { ...f, value: rows };
    if (f.id === FILE_ROW_GROUPS) return { ...f, value: { kind: 'list', element: CompactType.Struct, items: groups } };
    return f;
  });
  const footer = writeStruct({ kind: 'struct', fields });
  const length = Buffer.alloc(4);
  length.writeUInt32LE(footer.length);
  yield Buffer.concat([footer, length, MAGIC]);
}

/** A Parquet file's footer, read, and the bytes between the leading magic and the footer. */
function sections(part: Uint8Array): { footer: ThriftStruct; body: Buffer } {
  const bytes = Buffer.from(part.buffer, part.byteOffset, part.length);
  if (bytes.length < 12 || !bytes.subarray(0, 4).equals(MAGIC) || !bytes.subarray(bytes.length - 4).equals(MAGIC)) throw new Error('a Parquet part is not a Parquet file');
  const footerLength = bytes.readUInt32LE(bytes.length - 8);
  const footerStart = bytes.length - 8 - footerLength;
  if (footerStart < 4) throw new Error('a Parquet part\'s footer is longer than the file');
  return { footer: readStruct(bytes.subarray(footerStart, bytes.length - 8)).struct, body: bytes.subarray(4, footerStart) };
}

/** A row group with its offsets moved by `shift` bytes and its ordinal set. */
function moved(group: ThriftStruct, shift: bigint, ordinal: number): ThriftStruct {
  return {
    kind: 'struct',
    fields: group.fields.map((f) => {
      if (f.id === GROUP_FILE_OFFSET) return shifted(f, shift);
      if (f.id === GROUP_ORDINAL) return { ...f, value: ordinal };
      if (f.id !== GROUP_COLUMNS) return f;
      const columns = f.value as ThriftList;
      return { ...f, value: { ...columns, items: columns.items.map((chunk) => movedChunk(chunk as ThriftStruct, shift)) } };
    }),
  };
}

function movedChunk(chunk: ThriftStruct, shift: bigint): ThriftStruct {
  return {
    kind: 'struct',
    fields: chunk.fields.map((f) => {
      if (f.id === CHUNK_FILE_OFFSET || f.id === CHUNK_OFFSET_INDEX || f.id === CHUNK_COLUMN_INDEX) return shifted(f, shift);
      if (f.id !== CHUNK_META) return f;
      const meta = f.value as ThriftStruct;
      return { ...f, value: { kind: 'struct', fields: meta.fields.map((m) => (META_OFFSETS.includes(m.id) ? shifted(m, shift) : m)) } };
    }),
  };
}

/** An i64 file offset moved by `shift`; 0 and values inside the leading magic mean "not set" to some writers and stay. */
function shifted(f: ThriftField, shift: bigint): ThriftField {
  if (f.type !== CompactType.I64) return f;
  const value = f.value as bigint;
  return value >= BigInt(MAGIC.length) ? { ...f, value: value + shift } : f;
}

function required(struct: ThriftStruct, id: number): ThriftField {
  const found = field(struct, id);
  if (found === undefined) throw new Error(`a Parquet footer lacks its field ${id}`);
  return found;
}

function listOf(struct: ThriftStruct, id: number): ThriftList['items'] {
  const found = field(struct, id);
  return found === undefined ? [] : (found.value as ThriftList).items;
}
