/**
 * ClickHouse's RowBinary format, written value by value into a growing buffer: fixed-width numbers little-endian,
 * a String as its LEB128 byte length then its UTF-8 bytes, Nullable(T) as a flag byte (1: null) then T when not
 * null (https://clickhouse.com/docs/interfaces/formats/RowBinary). NaN is written as null.
 */
/** A column of a table written as RowBinary (a batch run's results table): the name a reader sees, the stored column and its ClickHouse type. */
export interface ResultColumn {
  name: string;
  column: string;
  type: string;
}

export class RowBinaryWriter {
  private buffer: Buffer;
  private at = 0;

  constructor(size = 1 << 16) {
    this.buffer = Buffer.allocUnsafe(size);
  }

  uint64(n: number): void {
    this.room(8);
    this.buffer.writeUInt32LE(n % 0x1_0000_0000, this.at);
    this.buffer.writeUInt32LE(Math.floor(n / 0x1_0000_0000), this.at + 4);
    this.at += 8;
  }

  nullableFloat64(x: number): void {
    this.room(9);
    if (x !== x) {
      this.buffer[this.at++] = 1;
      return;
    }
    this.buffer[this.at] = 0;
    this.buffer.writeDoubleLE(x, this.at + 1);
    this.at += 9;
  }

  string(text: string): void {
    const length = Buffer.byteLength(text);
    this.room(length + 5);
    let n = length;
    do {
      let byte = n & 0x7f;
      n = Math.floor(n / 128);
      if (n > 0) byte |= 0x80;
      this.buffer[this.at++] = byte;
    } while (n > 0);
    this.at += this.buffer.write(text, this.at, 'utf8');
  }

  nullableString(text: string | null): void {
    this.room(1);
    if (text === null) {
      this.buffer[this.at++] = 1;
      return;
    }
    this.buffer[this.at++] = 0;
    this.string(text);
  }

  nullableBool(value: boolean | null): void {
    this.room(2);
    if (value === null) this.buffer[this.at++] = 1;
    else {
      this.buffer[this.at++] = 0;
      this.buffer[this.at++] = value ? 1 : 0;
    }
  }

  /** The bytes written (a view on the buffer: take it once, when done). */
  bytes(): Buffer {
    return this.buffer.subarray(0, this.at);
  }

  private room(n: number): void {
    if (this.at + n <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.at + n));
    this.buffer.copy(grown, 0, 0, this.at);
    this.buffer = grown;
  }
}
