/**
 * The Thrift compact protocol (Apache Thrift, "Thrift Compact protocol encoding", doc/specs/thrift-compact-protocol.md),
 * read into a generic tree and written back field for field, so a structure can be edited without a schema for the
 * members it leaves alone. Parquet's footer (FileMetaData) is such a structure (parquet-splice.ts).
 */

/** Compact protocol type codes (the boolean of a struct field carries its value in the type: 1 true, 2 false). */
export const CompactType = {
  Stop: 0, True: 1, False: 2, Byte: 3, I16: 4, I32: 5, I64: 6, Double: 7, Binary: 8, List: 9, Set: 10, Map: 11, Struct: 12,
} as const;
export type CompactType = (typeof CompactType)[keyof typeof CompactType];

export type ThriftValue = boolean | number | bigint | Uint8Array | ThriftList | ThriftMap | ThriftStruct;
export interface ThriftList {
  kind: 'list' | 'set';
  element: CompactType;
  items: ThriftValue[];
}
export interface ThriftMap {
  kind: 'map';
  key: CompactType;
  value: CompactType;
  entries: Array<[ThriftValue, ThriftValue]>;
}
export interface ThriftField {
  id: number;
  type: CompactType;
  value: ThriftValue;
}
export interface ThriftStruct {
  kind: 'struct';
  fields: ThriftField[];
}

/** Reads one struct from `bytes` at `offset`; `end` is where it stopped. */
export function readStruct(bytes: Uint8Array, offset = 0): { struct: ThriftStruct; end: number } {
  const reader = new Reader(bytes, offset);
  const struct = reader.struct();
  return { struct, end: reader.position };
}

/** The struct's bytes. */
export function writeStruct(struct: ThriftStruct): Uint8Array {
  const writer = new Writer();
  writer.struct(struct);
  return writer.bytes();
}

/** The field with this id, if present. */
export function field(struct: ThriftStruct, id: number): ThriftField | undefined {
  return struct.fields.find((f) => f.id === id);
}

class Reader {
  constructor(private readonly bytes: Uint8Array, public position: number) {}

  struct(): ThriftStruct {
    const fields: ThriftField[] = [];
    let last = 0;
    for (;;) {
      const header = this.byte();
      const type = (header & 0x0f) as CompactType;
      if (type === CompactType.Stop) return { kind: 'struct', fields };
      const delta = header >> 4;
      const id = delta === 0 ? zigzag32(this.varint()) : last + delta;
      last = id;
      const value = type === CompactType.True ? true : type === CompactType.False ? false : this.value(type);
      fields.push({ id, type, value });
    }
  }

  private value(type: CompactType): ThriftValue {
    switch (type) {
      case CompactType.True:
      case CompactType.False:
        return this.byte() === CompactType.True; // a container's element: one byte, 1 true, 2 false
      case CompactType.Byte: {
        const b = this.byte();
        return b > 127 ? b - 256 : b;
      }
      case CompactType.I16:
      case CompactType.I32:
        return zigzag32(this.varint());
      case CompactType.I64:
        return zigzag64(this.varint64());
      case CompactType.Double: {
        const view = new DataView(this.bytes.buffer, this.bytes.byteOffset + this.position, 8);
        this.position += 8;
        return view.getFloat64(0, true);
      }
      case CompactType.Binary: {
        const length = this.varint();
        const out = this.bytes.subarray(this.position, this.position + length);
        if (out.length !== length) throw new RangeError('Thrift binary runs past the end of the bytes');
        this.position += length;
        return out;
      }
      case CompactType.List:
      case CompactType.Set: {
        const header = this.byte();
        const element = (header & 0x0f) as CompactType;
        const size = header >> 4 === 15 ? this.varint() : header >> 4;
        const items: ThriftValue[] = [];
        for (let i = 0; i < size; i++) items.push(this.value(element));
        return { kind: type === CompactType.List ? 'list' : 'set', element, items };
      }
      case CompactType.Map: {
        const size = this.varint();
        if (size === 0) return { kind: 'map', key: CompactType.Stop, value: CompactType.Stop, entries: [] };
        const types = this.byte();
        const key = (types >> 4) as CompactType;
        const value = (types & 0x0f) as CompactType;
        const entries: Array<[ThriftValue, ThriftValue]> = [];
        for (let i = 0; i < size; i++) entries.push([this.value(key), this.value(value)]);
        return { kind: 'map', key, value, entries };
      }
      case CompactType.Struct:
        return this.struct();
      default:
        throw new RangeError(`unknown Thrift compact type ${type as number}`);
    }
  }

  private byte(): number {
    if (this.position >= this.bytes.length) throw new RangeError('Thrift struct runs past the end of the bytes');
    return this.bytes[this.position++]!;
  }

  private varint(): number {
    let result = 0;
    let shift = 0;
    for (;;) {
      const b = this.byte();
      result |= (b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result >>> 0;
      shift += 7;
      if (shift > 28) throw new RangeError('Thrift varint longer than 32 bits');
    }
  }

  private varint64(): bigint {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const b = this.byte();
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
      if (shift > 63n) throw new RangeError('Thrift varint longer than 64 bits');
    }
  }
}

const zigzag32 = (n: number) => (n >>> 1) ^ -(n & 1);
const zigzag64 = (n: bigint) => (n >> 1n) ^ -(n & 1n);

class Writer {
  private buffer = new Uint8Array(1024);
  private length = 0;

  bytes(): Uint8Array {
    return this.buffer.slice(0, this.length);
  }

  struct(struct: ThriftStruct): void {
    let last = 0;
    for (const f of struct.fields) {
      const type = f.type === CompactType.True || f.type === CompactType.False ? (f.value === true ? CompactType.True : CompactType.False) : f.type;
      const delta = f.id - last;
      if (delta > 0 && delta <= 15) this.byte((delta << 4) | type);
      else {
        this.byte(type);
        this.varint(((f.id << 1) ^ (f.id >> 31)) >>> 0);
      }
      last = f.id;
      if (type !== CompactType.True && type !== CompactType.False) this.value(type, f.value);
    }
    this.byte(CompactType.Stop);
  }

  private value(type: CompactType, value: ThriftValue): void {
    switch (type) {
      case CompactType.True:
      case CompactType.False:
        return this.byte(value === true ? CompactType.True : CompactType.False);
      case CompactType.Byte:
        return this.byte((value as number) & 0xff);
      case CompactType.I16:
      case CompactType.I32: {
        const n = value as number;
        return this.varint(((n << 1) ^ (n >> 31)) >>> 0);
      }
      case CompactType.I64: {
        const n = BigInt.asIntN(64, value as bigint);
        return this.varint64(BigInt.asUintN(64, (n << 1n) ^ (n >> 63n)));
      }
      case CompactType.Double: {
        this.reserve(8);
        new DataView(this.buffer.buffer, this.length, 8).setFloat64(0, value as number, true);
        this.length += 8;
        return;
      }
      case CompactType.Binary: {
        const bytes = value as Uint8Array;
        this.varint(bytes.length);
        this.reserve(bytes.length);
        this.buffer.set(bytes, this.length);
        this.length += bytes.length;
        return;
      }
      case CompactType.List:
      case CompactType.Set: {
        const list = value as ThriftList;
        if (list.items.length < 15) this.byte((list.items.length << 4) | list.element);
        else {
          this.byte(0xf0 | list.element);
          this.varint(list.items.length);
        }
        for (const item of list.items) this.value(list.element, item);
        return;
      }
      case CompactType.Map: {
        const map = value as ThriftMap;
        this.varint(map.entries.length);
        if (map.entries.length === 0) return;
        this.byte((map.key << 4) | map.value);
        for (const [k, v] of map.entries) {
          this.value(map.key, k);
          this.value(map.value, v);
        }
        return;
      }
      case CompactType.Struct:
        return this.struct(value as ThriftStruct);
      default:
        throw new RangeError(`unknown Thrift compact type ${type as number}`);
    }
  }

  private byte(b: number): void {
    this.reserve(1);
    this.buffer[this.length++] = b;
  }

  private varint(n: number): void {
    while (n > 0x7f) {
      this.byte((n & 0x7f) | 0x80);
      n >>>= 7;
    }
    this.byte(n);
  }

  private varint64(n: bigint): void {
    while (n > 0x7fn) {
      this.byte(Number(n & 0x7fn) | 0x80);
      n >>= 7n;
    }
    this.byte(Number(n));
  }

  private reserve(extra: number): void {
    if (this.length + extra <= this.buffer.length) return;
    const next = new Uint8Array(Math.max(this.buffer.length * 2, this.length + extra));
    next.set(this.buffer.subarray(0, this.length));
    this.buffer = next;
  }
}
