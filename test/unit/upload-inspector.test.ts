import { describe, expect, it } from 'vitest';
import { inspectImage, inspectModel, UploadRefusedError } from '#core/uploads/upload-inspector';
import { EMBEDDED_IMAGE_UNREADABLE, IMAGE_UNREADABLE, imageTooLarge, MAX_MODEL_FACES, MAX_MODEL_VERTICES, modelRefersOutside, modelTooDetailed, modelUnreadable, OBJ_LINE_CONTINUED } from '#shared/upload-limits';
import { asGlb, asGltf, jpegFrameHeader, jpegWithPlantedHeader, pngClaiming, solidPng, texturedCube, withJson } from '../upload-fixtures';

const cube = texturedCube(solidPng(16, 16, [20, 180, 40]));

/** The message an inspection refuses with; fails the test when it accepts. */
function refusal(inspect: () => unknown): string {
  try {
    inspect();
  } catch (error) {
    expect(error).toBeInstanceOf(UploadRefusedError);
    return (error as Error).message;
  }
  throw new Error('the upload was accepted');
}

describe('models: only embedded data', () => {
  it('when a .glb embeds its geometry and texture, it is accepted with its vertices, faces and texture size', () => {
    expect(inspectModel(asGlb(cube), 'glb')).toEqual({ format: 'glb', vertices: 24, faces: 12, images: [{ type: 'png', width: 16, height: 16 }] });
  });

  it('when a .gltf carries its buffer as a base64 data: URI, it is accepted', () => {
    expect(inspectModel(asGltf(cube), 'gltf')).toMatchObject({ format: 'gltf', vertices: 24, faces: 12, images: [{ width: 16, height: 16 }] });
  });

  it('when a .gltf embeds its texture as a data: URI, it reads that image header too', () => {
    const model = withJson(cube, (json) => (json.images[0] = { uri: `data:image/png;base64,${pngClaiming(50_000, 50_000).toString('base64')}` }));
    expect(refusal(() => inspectModel(asGltf(model), 'gltf'))).toBe(imageTooLarge(50_000, 50_000, 'model'));
  });

  it('when a .gltf buffer URI is /dev/zero, it is refused and names the path', () => {
    const json = JSON.parse(asGltf(cube).toString());
    json.buffers[0].uri = '/dev/zero';
    expect(refusal(() => inspectModel(Buffer.from(JSON.stringify(json)), 'gltf'))).toBe(modelRefersOutside('/dev/zero'));
  });

  it('when a .gltf image URI climbs to ../../etc/passwd, it is refused', () => {
    const model = withJson(cube, (json) => (json.images[0] = { uri: '../../etc/passwd' }));
    expect(refusal(() => inspectModel(asGltf(model), 'gltf'))).toBe(modelRefersOutside('../../etc/passwd'));
  });

  it.each([
    ['a file: URI', 'file:///etc/hostname'],
    ['an http URI', 'http://127.0.0.1:9/texture.png'],
    ['a relative file name', 'texture.png'],
    ['a percent-encoded path', '..%2F..%2Fetc%2Fpasswd'],
    ['a data: URI the importer does not decode (no ;base64,)', 'data:image/png,iVBORw0KGgo'],
    ['an upper-case DATA: URI (the importer opens it as a path)', 'DATA:image/png;base64,iVBORw0KGgo'],
  ])('when an image URI is %s, it is refused', (_, uri) => {
    const model = withJson(cube, (json) => (json.images[0] = { uri }));
    expect(refusal(() => inspectModel(asGltf(model), 'gltf'))).toBe(modelRefersOutside(uri));
  });

  it('when a .glb names an external image beside its BIN chunk, it is refused', () => {
    const model = withJson(cube, (json) => json.images.push({ uri: '/proc/self/environ' }));
    expect(refusal(() => inspectModel(asGlb(model), 'glb'))).toBe(modelRefersOutside('/proc/self/environ'));
  });

  it('when a .glb adds a second buffer read from a local path, it is refused', () => {
    const model = withJson(cube, (json) => json.buffers.push({ uri: '/dev/urandom', byteLength: 1 << 30 }));
    expect(refusal(() => inspectModel(asGlb(model), 'glb'))).toBe(modelRefersOutside('/dev/urandom'));
  });

  it('when a .gltf file holds binary glTF, it is read as GLB, as Blender would', () => {
    expect(inspectModel(asGlb(cube), 'gltf')).toMatchObject({ format: 'glb', vertices: 24 });
  });

  it('when a long URI is refused, the message shortens it', () => {
    const uri = `/tmp/${'a'.repeat(200)}`;
    const model = withJson(cube, (json) => (json.images[0] = { uri }));
    const message = refusal(() => inspectModel(asGltf(model), 'gltf'));
    expect(message).toContain('/tmp/aaaa');
    expect(message.length).toBeLessThan(260);
  });
});

describe('models: size caps', () => {
  it('when a mesh declares more vertices than the cap, it is refused before any buffer is decoded', () => {
    const model = withJson(cube, (json) => (json.accessors[0].count = MAX_MODEL_VERTICES + 1));
    expect(refusal(() => inspectModel(asGlb(model), 'glb'))).toBe(modelTooDetailed('vertices', MAX_MODEL_VERTICES + 1));
  });

  it('when a small mesh is used by many nodes, every instance counts', () => {
    const instances = Math.ceil(MAX_MODEL_FACES / 12) + 1;
    const model = withJson(cube, (json) => {
      json.nodes = Array.from({ length: instances }, () => ({ mesh: 0 }));
      json.accessors[0].count = 1; // keep the vertices under their cap: the faces must trip
    });
    expect(refusal(() => inspectModel(asGlb(model), 'glb'))).toBe(modelTooDetailed('faces', instances * 12));
  });

  it('when a primitive is a triangle strip, its faces are its indices minus two', () => {
    const model = withJson(cube, (json) => (json.meshes[0].primitives[0].mode = 5));
    expect(inspectModel(asGlb(model), 'glb')).toMatchObject({ faces: 34 });
  });

  it('when an OBJ has more faces than the cap, it is refused', () => {
    const obj = `v 0 0 0\nv 1 0 0\nv 0 1 0\n${'f 1 2 3\n'.repeat(MAX_MODEL_FACES + 1)}`;
    expect(refusal(() => inspectModel(Buffer.from(obj), 'obj'))).toBe(modelTooDetailed('faces', MAX_MODEL_FACES + 1));
  });

  it('when a binary STL header counts more triangles than the cap, it is refused', () => {
    const triangles = MAX_MODEL_FACES + 1;
    const stl = Buffer.alloc(84 + 50 * triangles);
    stl.writeUInt32LE(triangles, 80);
    expect(refusal(() => inspectModel(stl, 'stl'))).toBe(modelTooDetailed('vertices', 3 * triangles));
  });

  it('when an ASCII STL is given, its triangles are its vertex lines in threes', () => {
    const facet = 'facet normal 0 0 1\n outer loop\n  vertex 0 0 0\n  vertex 1 0 0\n  vertex 0 1 0\n endloop\nendfacet\n';
    expect(inspectModel(Buffer.from(`solid t\n${facet.repeat(5)}endsolid t\n`), 'stl')).toMatchObject({ faces: 5, vertices: 15 });
  });
});

describe('models: OBJ material libraries', () => {
  it('when an OBJ names its material library by a bare file name, it is accepted (nothing beside it on the render machine)', () => {
    expect(inspectModel(Buffer.from('mtllib model.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl red\nf 1 2 3\n'), 'obj')).toMatchObject({ vertices: 3, faces: 1 });
  });

  it.each(['../../etc/passwd', '/etc/hostname', 'C:\\models\\a.mtl', 'sub/dir.mtl'])('when an OBJ material library is the path %s, it is refused', (path) => {
    expect(refusal(() => inspectModel(Buffer.from(`mtllib ${path}\nv 0 0 0\nf 1 1 1\n`), 'obj'))).toBe(modelRefersOutside(path));
  });

  it('when an OBJ puts a control byte before a keyword, as Blender skips it, the mtllib path is refused and the vertices are counted', () => {
    expect(refusal(() => inspectModel(Buffer.from('\x01mtllib ../../outside.mtl\nv 0 0 0\nf 1 1 1\n'), 'obj'))).toBe(modelRefersOutside('../../outside.mtl'));
    expect(refusal(() => inspectModel(Buffer.from('mtllib\x01../../outside.mtl\nv 0 0 0\nf 1 1 1\n'), 'obj'))).toBe(modelRefersOutside('../../outside.mtl'));
    expect(inspectModel(Buffer.from('\x01v 0 0 0\n\x1fv\x021 0 0\n\x00v 0 1 0\n\x01f 1 2 3\n'), 'obj')).toMatchObject({ vertices: 3, faces: 1 });
  });

  it.each([['form feed', '\f'], ['vertical tab', '\v'], ['carriage return', '\r']])('when an OBJ separates mtllib from its path by a %s, the path is still refused', (_name, blank) => {
    expect(refusal(() => inspectModel(Buffer.from(`${blank}mtllib${blank}/etc/hostname\nv 0 0 0\nf 1 1 1\n`), 'obj'))).toBe(modelRefersOutside('/etc/hostname'));
  });

  it('when an ASCII STL indents its vertices with form feeds, they are counted as Blender reads them', () => {
    expect(inspectModel(Buffer.from('solid s\nfacet normal 0 0 1\nouter loop\n\fvertex 0 0 0\n\fvertex 1 0 0\n\fvertex 0 1 0\nendloop\nendfacet\nendsolid s\n'), 'stl')).toMatchObject({ faces: 1 });
  });
});

// Blender 3.4's OBJ reader joins a line ending in a backslash (then any bytes up to the space,
// CR among them) to the next one; checked against Debian's Blender 3.4 `wm.obj_import`:
// `mtllib\` + newline + `../x.mtl` loaded that outside library, `v\` + newline + `0 0 0` is a vertex.
describe('models: OBJ line continuations', () => {
  it.each([
    ['LF', 'mtllib\\\n../elsewhere.mtl\n'],
    ['CRLF', 'mtllib\\\r\n../elsewhere.mtl\r\n'],
    ['blanks after the backslash', 'mtllib \\ \t\x01\n../elsewhere.mtl\n'],
    ['a bare name first', 'mtllib inside.mtl \\\n../elsewhere.mtl\n'],
  ])('when an OBJ continues its mtllib line onto a path (%s), it is refused', (_name, mtllib) => {
    expect(refusal(() => inspectModel(Buffer.from(`${mtllib}v 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl outside\nf 1 2 3\n`), 'obj'))).toBe(OBJ_LINE_CONTINUED);
  });

  it('when an OBJ splits 3.1 million vertex records over two lines each, it is refused (one line each read alone counts none)', () => {
    const obj = Buffer.from('v\\\n0 0 0\n'.repeat(3_100_000));
    expect(refusal(() => inspectModel(obj, 'obj'))).toBe(OBJ_LINE_CONTINUED);
  });

  it('when an OBJ has a backslash inside a line, or ending its last line without a newline (nothing follows to join), it is accepted', () => {
    expect(inspectModel(Buffer.from('# a\\b comment\no a\\b\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3 \\'), 'obj')).toMatchObject({ vertices: 3, faces: 1 });
  });
});

describe('models: unreadable files', () => {
  it('when a .glb is cut short, it is refused as unreadable', () => {
    const glb = asGlb(cube);
    expect(refusal(() => inspectModel(glb.subarray(0, glb.length - 100), 'glb'))).toBe(modelUnreadable('glb'));
    expect(refusal(() => inspectModel(glb.subarray(0, 10), 'glb'))).toBe(modelUnreadable('glb'));
  });

  it('when a .glb header claims another version or its first chunk is not JSON, it is refused', () => {
    const version1 = Buffer.from(asGlb(cube));
    version1.writeUInt32LE(1, 4);
    expect(refusal(() => inspectModel(version1, 'glb'))).toBe(modelUnreadable('glb'));
    const binFirst = Buffer.from(asGlb(cube));
    binFirst.writeUInt32LE(0x004e4942, 16);
    expect(refusal(() => inspectModel(binFirst, 'glb'))).toBe(modelUnreadable('glb'));
  });

  it('when a .gltf is not JSON, or its lists are not lists, it is refused as unreadable', () => {
    expect(refusal(() => inspectModel(Buffer.from('{"asset": '), 'gltf'))).toBe(modelUnreadable('gltf'));
    expect(refusal(() => inspectModel(Buffer.from('{"asset": {"version": "2.0"}, "buffers": {"uri": "/dev/zero"}}'), 'gltf'))).toBe(modelUnreadable('gltf'));
    expect(refusal(() => inspectModel(Buffer.from('{"buffers": [{"uri": 7}]}'), 'gltf'))).toBe(modelUnreadable('gltf'));
  });

  it('when an embedded image points past the end of its buffer, it is refused as unreadable', () => {
    const model = withJson(cube, (json) => (json.bufferViews[3].byteLength = 1 << 20));
    expect(refusal(() => inspectModel(asGlb(model), 'glb'))).toBe(modelUnreadable('glb'));
  });

  it('when an embedded image is not an image, it is refused', () => {
    const model = withJson(texturedCube(Buffer.from('not an image at all, only text')), () => {});
    expect(refusal(() => inspectModel(asGlb(model), 'glb'))).toBe(EMBEDDED_IMAGE_UNREADABLE);
  });

  it('when an OBJ has no vertex, or an STL no triangle, it is refused as unreadable', () => {
    expect(refusal(() => inspectModel(Buffer.from('this is text'), 'obj'))).toBe(modelUnreadable('obj'));
    expect(refusal(() => inspectModel(Buffer.from('this is text'), 'stl'))).toBe(modelUnreadable('stl'));
  });

  it('when the model is FBX or USD, it is not read here (Blender imports it under limits)', () => {
    expect(inspectModel(Buffer.from('Kaydara FBX Binary  \0'), 'fbx')).toBeUndefined();
    expect(inspectModel(Buffer.from('PXR-USDC'), 'usd')).toBeUndefined();
  });
});

describe('images: header only', () => {
  it('when a PNG header claims 50,000 x 50,000 pixels, it is refused with its size in the message', () => {
    const message = refusal(() => inspectImage(pngClaiming(50_000, 50_000), 'upload'));
    expect(message).toBe(imageTooLarge(50_000, 50_000, 'upload'));
    expect(message).toBe('The uploaded image is 50,000 x 50,000 pixels. Images may have at most 50 megapixels and 16,384 pixels a side: please upload a smaller one.');
  });

  it('when an image is over 50 megapixels or longer than 16,384 px a side, it is refused; a 50-MP photo passes', () => {
    expect(refusal(() => inspectImage(pngClaiming(8200, 6200), 'upload'))).toBe(imageTooLarge(8200, 6200, 'upload'));
    expect(refusal(() => inspectImage(pngClaiming(20_000, 100), 'upload'))).toBe(imageTooLarge(20_000, 100, 'upload'));
    expect(inspectImage(pngClaiming(8160, 6120), 'upload')).toEqual({ type: 'png', width: 8160, height: 6120 });
  });

  it('when a JPEG or GIF header is read, its size comes from the header', () => {
    // JPEG: SOI, a JFIF APP0 segment, then a baseline SOF0 segment (length 17, 8 bits, height 3000, width 4000, 3 components).
    const app0 = [0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00];
    const jpeg = Buffer.from([0xff, 0xd8, ...app0, 0xff, 0xc0, 0x00, 0x11, 0x08, 0x0b, 0xb8, 0x0f, 0xa0, 0x03, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1, 0xff, 0xd9]);
    expect(inspectImage(jpeg, 'upload')).toEqual({ type: 'jpg', width: 4000, height: 3000 });
    const gif = Buffer.concat([Buffer.from('GIF89a'), Buffer.from([0x50, 0xc3, 0x50, 0xc3]), Buffer.alloc(10)]);
    expect(refusal(() => inspectImage(gif, 'upload'))).toBe(imageTooLarge(50_000, 50_000, 'upload'));
  });

  it('when a JPEG\'s first frame is arithmetic-coded (SOF9, 30,000 px a side) and a small baseline header follows its end, it is refused; its size is its first frame\'s', () => {
    const frame = jpegFrameHeader;
    const forged = jpegWithPlantedHeader(0xc9, 30_000, 30_000);
    expect(forged.length).toBeLessThan(111);
    expect(refusal(() => inspectImage(forged, 'upload'))).toBe(IMAGE_UNREADABLE);
    // The same planted header after a real baseline frame: the size is the first frame's, and over the cap.
    const baseline = jpegWithPlantedHeader(0xc0, 30_000, 30_000);
    expect(refusal(() => inspectImage(baseline, 'upload'))).toBe(imageTooLarge(30_000, 30_000, 'upload'));
    // Lossless and hierarchical frames are refused too; extended and progressive ones are read.
    for (const marker of [0xc3, 0xc5, 0xca, 0xcf]) expect(refusal(() => inspectImage(Buffer.from([0xff, 0xd8, ...frame(marker, 16, 16), 0xff, 0xd9]), 'upload'))).toBe(IMAGE_UNREADABLE);
    const app0 = [0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00];
    for (const marker of [0xc1, 0xc2]) expect(inspectImage(Buffer.from([0xff, 0xd8, ...app0, ...frame(marker, 40, 30), 0xff, 0xd9]), 'upload')).toEqual({ type: 'jpg', width: 40, height: 30 });
  });

  it('when an image is cut short or is not an image, it is refused as unreadable', () => {
    expect(refusal(() => inspectImage(solidPng(4, 4, [0, 0, 0]).subarray(0, 20), 'upload'))).toBe(IMAGE_UNREADABLE);
    expect(refusal(() => inspectImage(Buffer.from('<svg width="10" height="10"></svg>'), 'upload'))).toBe(IMAGE_UNREADABLE);
    expect(refusal(() => inspectImage(Buffer.from('plain text'), 'upload'))).toBe(IMAGE_UNREADABLE);
  });
});
