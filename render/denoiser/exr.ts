/**
 * Reads the multilayer OpenEXR files Blender writes for the denoiser: one part, scanlines,
 * no compression, HALF or FLOAT channels (what the scene scripts ask Blender for). Any other
 * EXR is refused with a clear error rather than misread.
 */
import { openToRead } from '#core/storage/no-follow';
import { halfToFloat } from './tza';

export interface ExrImage {
  width: number;
  height: number;
  /** Channel name -> values row by row from the top. */
  channels: Map<string, Float32Array>;
}

const MAGIC = 20000630;
const PIXEL_SIZE = [4, 2, 4]; // UINT, HALF, FLOAT

export async function readExr(file: string): Promise<ExrImage> {
  // Blender wrote it in a folder it owns: read only what the path really names.
  const handle = await openToRead(file);
  return parseExr(await handle.readFile().finally(() => handle.close()), file);
}

export function parseExr(bytes: Buffer, source = 'EXR'): ExrImage {
  const fail = (why: string): never => {
    throw new Error(`${source}: ${why}`);
  };
  if (bytes.readInt32LE(0) !== MAGIC) fail('not an OpenEXR file');
  const flags = bytes.readUInt32LE(4) >> 8;
  if (flags & (0x2 | 0x10)) fail('tiled or multi-part EXR is not supported');
  let at = 8;
  const cString = () => {
    const end = bytes.indexOf(0, at);
    const text = bytes.toString('latin1', at, end);
    at = end + 1;
    return text;
  };
  const channelList: { name: string; type: number }[] = [];
  let compression = -1;
  let box: number[] | null = null;
  for (;;) {
    const name = cString();
    if (!name) break;
    cString(); // attribute type
    const size = bytes.readInt32LE(at);
    const value = bytes.subarray(at + 4, at + 4 + size);
    at += 4 + size;
    if (name === 'channels') {
      let p = 0;
      while (value[p] !== 0) {
        const end = value.indexOf(0, p);
        channelList.push({ name: value.toString('latin1', p, end), type: value.readInt32LE(end + 1) });
        p = end + 1 + 16;
      }
    } else if (name === 'compression') compression = value[0];
    else if (name === 'dataWindow') box = [0, 4, 8, 12].map((o) => value.readInt32LE(o));
  }
  if (compression !== 0) fail(`compression ${compression} is not supported (write it uncompressed)`);
  if (!box || channelList.length === 0) fail('no data window or channels');
  const [xMin, yMin, xMax, yMax] = box!;
  const width = xMax - xMin + 1, height = yMax - yMin + 1;
  const channels = new Map(channelList.map((c) => [c.name, new Float32Array(width * height)]));
  const lineBytes = channelList.reduce((sum, c) => sum + width * PIXEL_SIZE[c.type], 0);
  for (let line = 0; line < height; line += 1) {
    let p = Number(bytes.readBigUInt64LE(at + 8 * line));
    const y = bytes.readInt32LE(p) - yMin;
    if (y < 0 || y >= height || bytes.readInt32LE(p + 4) !== lineBytes) fail(`scanline ${line} is malformed`);
    p += 8;
    for (const { name, type } of channelList) {
      const target = channels.get(name)!;
      const row = y * width;
      for (let x = 0; x < width; x += 1) {
        target[row + x] = type === 1 ? halfToFloat(bytes.readUInt16LE(p)) : type === 2 ? bytes.readFloatLE(p) : bytes.readUInt32LE(p);
        p += PIXEL_SIZE[type];
      }
    }
  }
  return { width, height, channels };
}
