/**
 * A ZIP archive written as a stream, entries stored as they are (rendered PNGs
 * and MP4s are compressed already): each entry's CRC is computed while its bytes
 * pass through and written after them in a data descriptor, so no entry is ever
 * held in memory. Archives and entries stay below 4 GiB (no ZIP64).
 */
import { PassThrough, type Readable } from 'node:stream';
import { crc32 } from 'node:zlib';

const LIMIT = 0xffffffff;

interface Written {
  name: Buffer;
  crc: number;
  size: number;
  offset: number;
}

export function zipStream(entries: AsyncIterable<{ name: string; open: () => Promise<Readable> }>): Readable {
  const out = new PassThrough();
  const written: Written[] = [];
  let offset = 0;
  const push = async (chunk: Buffer) => {
    offset += chunk.length;
    if (offset > LIMIT) throw new Error('The archive would exceed 4 GiB.');
    if (!out.write(chunk)) await new Promise((resolve) => out.once('drain', resolve));
  };
  (async () => {
    for await (const entry of entries) {
      const name = Buffer.from(entry.name, 'utf8');
      const start = offset;
      const header = Buffer.alloc(30);
      header.writeUInt32LE(0x04034b50, 0);
      header.writeUInt16LE(20, 4); // version needed
      header.writeUInt16LE(0x0808, 6); // bit 3: sizes and CRC follow the data; bit 11: UTF-8 name
      header.writeUInt16LE(0, 8); // stored
      header.writeUInt32LE(0x00210000, 10); // 1980-01-01 00:00
      header.writeUInt16LE(name.length, 26);
      await push(Buffer.concat([header, name]));
      let crc = 0;
      let size = 0;
      for await (const chunk of await entry.open()) {
        const bytes = chunk as Buffer;
        crc = crc32(bytes, crc);
        size += bytes.length;
        await push(bytes);
      }
      const descriptor = Buffer.alloc(16);
      descriptor.writeUInt32LE(0x08074b50, 0);
      descriptor.writeUInt32LE(crc >>> 0, 4);
      descriptor.writeUInt32LE(size, 8);
      descriptor.writeUInt32LE(size, 12);
      await push(descriptor);
      written.push({ name, crc: crc >>> 0, size, offset: start });
    }
    const directoryStart = offset;
    for (const entry of written) {
      const record = Buffer.alloc(46);
      record.writeUInt32LE(0x02014b50, 0);
      record.writeUInt16LE(20, 4);
      record.writeUInt16LE(20, 6);
      record.writeUInt16LE(0x0808, 8);
      record.writeUInt16LE(0, 10);
      record.writeUInt32LE(0x00210000, 12);
      record.writeUInt32LE(entry.crc, 16);
      record.writeUInt32LE(entry.size, 20);
      record.writeUInt32LE(entry.size, 24);
      record.writeUInt16LE(entry.name.length, 28);
      record.writeUInt32LE(entry.offset, 42);
      await push(Buffer.concat([record, entry.name]));
    }
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(written.length, 8);
    end.writeUInt16LE(written.length, 10);
    end.writeUInt32LE(offset - directoryStart, 12);
    end.writeUInt32LE(directoryStart, 16);
    await push(end);
    out.end();
  })().catch((error: Error) => out.destroy(error));
  return out;
}
