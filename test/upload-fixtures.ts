/**
 * Crafted uploads for the upload-safety tests, built in memory (no binary fixture is
 * committed): real PNGs, PNG headers that only claim a size, and a textured glTF cube that
 * can be written as .glb or .gltf and then bent to name local files.
 */
import { crc32, deflateSync } from 'node:zlib';

function pngChunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function ihdr(width: number, height: number): Buffer {
  const data = Buffer.alloc(13);
  data.writeUInt32BE(width, 0);
  data.writeUInt32BE(height, 4);
  data.set([8, 2, 0, 0, 0], 8); // 8 bits, RGB, deflate, no filter, no interlace
  return pngChunk('IHDR', data);
}

/** A real, decodable PNG of one colour. */
export function solidPng(width: number, height: number, [r, g, b]: [number, number, number]): Buffer {
  const row = Buffer.alloc(1 + width * 3);
  for (let x = 0; x < width; x += 1) row.set([r, g, b], 1 + x * 3);
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([PNG_SIGNATURE, ihdr(width, height), pngChunk('IDAT', deflateSync(raw)), pngChunk('IEND', Buffer.alloc(0))]);
}

/**
 * A decompression bomb's shape: a valid header claiming width x height, then a few bytes
 * of compressed data (a real bomb's would inflate to gigabytes; the header alone must be
 * enough to refuse it).
 */
export function pngClaiming(width: number, height: number): Buffer {
  return Buffer.concat([PNG_SIGNATURE, ihdr(width, height), pngChunk('IDAT', deflateSync(Buffer.alloc(1024))), pngChunk('IEND', Buffer.alloc(0))]);
}

// ---------------------------------------------------------------- JPEG

/** A JPEG frame header (SOF0-SOF15 by `marker`): 8 bits, height, width, three components. */
export function jpegFrameHeader(marker: number, width: number, height: number): number[] {
  return [0xff, marker, 0x00, 0x11, 0x08, height >> 8, height & 255, width >> 8, width & 255, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1];
}

/**
 * A JPEG whose first frame header (`marker`) declares width x height, then its end, then two
 * bytes that image-size takes for a segment's length and a 16 x 16 baseline header it reads instead.
 */
export function jpegWithPlantedHeader(marker: number, width: number, height: number): Buffer {
  return Buffer.from([0xff, 0xd8, ...jpegFrameHeader(marker, width, height), 0xff, 0xd9, 0x00, 0x02, ...jpegFrameHeader(0xc0, 16, 16), 0xff, 0xd9]);
}

// ---------------------------------------------------------------- glTF

export type GltfJson = Record<string, any>;

export interface GltfParts {
  json: GltfJson;
  /** Buffer 0: the geometry, then the texture. */
  bin: Buffer;
}

const pad4 = (buffer: Buffer, fill = 0) => Buffer.concat([buffer, Buffer.alloc((4 - (buffer.length % 4)) % 4, fill)]);

/** A unit cube, 24 vertices and 12 triangles, its faces UV-mapped to the whole texture. */
export function texturedCube(texture: Buffer): GltfParts {
  const positions: number[] = [];
  const uvs: number[] = [];
  const indices: number[] = [];
  for (let axis = 0; axis < 3; axis += 1) {
    for (const side of [-0.5, 0.5]) {
      const base = positions.length / 3;
      for (const [u, v] of [[0, 0], [1, 0], [1, 1], [0, 1]]) {
        const point = [0, 0, 0];
        point[axis] = side;
        point[(axis + 1) % 3] = u - 0.5;
        point[(axis + 2) % 3] = v - 0.5;
        positions.push(...point);
        uvs.push(u, v);
      }
      // Winding does not matter for the tests: Blender renders both sides.
      indices.push(base, base + 1, base + 2, base, base + 2, base + 3);
    }
  }
  const positionBytes = Buffer.from(new Float32Array(positions).buffer);
  const uvBytes = Buffer.from(new Float32Array(uvs).buffer);
  const indexBytes = pad4(Buffer.from(new Uint16Array(indices).buffer));
  const imageBytes = pad4(texture);
  const bin = Buffer.concat([positionBytes, uvBytes, indexBytes, imageBytes]);
  let offset = 0;
  const view = (length: number, extra: GltfJson = {}) => {
    const entry = { buffer: 0, byteOffset: offset, byteLength: length, ...extra };
    offset += length;
    return entry;
  };
  const bufferViews = [
    view(positionBytes.length, { target: 34962 }),
    view(uvBytes.length, { target: 34962 }),
    view(indexBytes.length, { target: 34963 }),
    view(imageBytes.length),
  ];
  bufferViews[3].byteLength = texture.length;
  return {
    bin,
    json: {
      asset: { version: '2.0' },
      scene: 0,
      scenes: [{ nodes: [0] }],
      nodes: [{ mesh: 0 }],
      meshes: [{ primitives: [{ attributes: { POSITION: 0, TEXCOORD_0: 1 }, indices: 2, material: 0 }] }],
      materials: [{ pbrMetallicRoughness: { baseColorTexture: { index: 0 }, metallicFactor: 0, roughnessFactor: 0.8 } }],
      textures: [{ source: 0 }],
      images: [{ bufferView: 3, mimeType: 'image/png' }],
      accessors: [
        { bufferView: 0, componentType: 5126, count: 24, type: 'VEC3', min: [-0.5, -0.5, -0.5], max: [0.5, 0.5, 0.5] },
        { bufferView: 1, componentType: 5126, count: 24, type: 'VEC2' },
        { bufferView: 2, componentType: 5123, count: 36, type: 'SCALAR' },
      ],
      bufferViews,
      buffers: [{ byteLength: bin.length }],
    },
  };
}

/** Binary glTF: the JSON chunk (space-padded) and the BIN chunk (zero-padded). */
export function asGlb({ json, bin }: GltfParts): Buffer {
  const jsonChunk = pad4(Buffer.from(JSON.stringify(json)), 0x20);
  const binChunk = pad4(bin);
  const chunkHeader = (length: number, type: number) => {
    const header = Buffer.alloc(8);
    header.writeUInt32LE(length, 0);
    header.writeUInt32LE(type, 4);
    return header;
  };
  const total = 12 + 8 + jsonChunk.length + 8 + binChunk.length;
  const header = Buffer.alloc(12);
  header.write('glTF', 0, 'latin1');
  header.writeUInt32LE(2, 4);
  header.writeUInt32LE(total, 8);
  return Buffer.concat([header, chunkHeader(jsonChunk.length, 0x4e4f534a), jsonChunk, chunkHeader(binChunk.length, 0x004e4942), binChunk]);
}

/** glTF as JSON text, its buffer embedded as a base64 data: URI (the only form a single-file upload can carry). */
export function asGltf({ json, bin }: GltfParts): Buffer {
  const embedded = structuredClone(json);
  embedded.buffers[0].uri = `data:application/octet-stream;base64,${bin.toString('base64')}`;
  return Buffer.from(JSON.stringify(embedded));
}

/** The same model with its JSON changed by `change` (a copy: the original is left alone). */
export function withJson(parts: GltfParts, change: (json: GltfJson) => void): GltfParts {
  const json = structuredClone(parts.json);
  change(json);
  return { json, bin: parts.bin };
}
