/**
 * Benchmark: what a model at the upload caps costs, to check the caps and the import
 * limits against each other (shared/upload-limits.ts, render/scenes/model-viewer.py).
 *
 * For a flat grid at half the face cap and at the face cap, written as GLB and as OBJ, it
 * prints the file size, the inspector's time (core/uploads/upload-inspector.ts) and
 * Blender's import the way the model viewer runs it (under the same address-space limit):
 * seconds, the growth of the address space the limit counts, and the peak resident memory.
 *
 *   npx tsx bench/model-import.ts
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { inspectModel } from '#core/uploads/upload-inspector';
import { findBlender, sceneScriptPath } from '#render/blender';
import { MAX_MODEL_FACES } from '#shared/upload-limits';

const run = promisify(execFile);
/** Must match IMPORT_MEMORY_BYTES in render/scenes/model-viewer.py. */
const IMPORT_MEMORY_BYTES = 2560 * 1024 * 1024;

/** A side x side grid of vertices: 2 (side - 1)^2 triangles. */
function grid(side: number) {
  const positions = new Float32Array(side * side * 3);
  for (let y = 0; y < side; y += 1) for (let x = 0; x < side; x += 1) positions.set([x / side, y / side, Math.sin(x / 7) * Math.cos(y / 9) * 0.05], (y * side + x) * 3);
  const indices = new Uint32Array((side - 1) * (side - 1) * 6);
  let i = 0;
  for (let y = 0; y < side - 1; y += 1) {
    for (let x = 0; x < side - 1; x += 1) {
      const a = y * side + x;
      indices.set([a, a + 1, a + side + 1, a, a + side + 1, a + side], i);
      i += 6;
    }
  }
  return { positions, indices };
}

function glb({ positions, indices }: ReturnType<typeof grid>): Buffer {
  const bin = Buffer.concat([Buffer.from(positions.buffer), Buffer.from(indices.buffer)]);
  const json = {
    asset: { version: '2.0' },
    scenes: [{ nodes: [0] }],
    nodes: [{ mesh: 0 }],
    meshes: [{ primitives: [{ attributes: { POSITION: 0 }, indices: 1 }] }],
    accessors: [
      { bufferView: 0, componentType: 5126, count: positions.length / 3, type: 'VEC3', min: [0, 0, -1], max: [1, 1, 1] },
      { bufferView: 1, componentType: 5125, count: indices.length, type: 'SCALAR' },
    ],
    bufferViews: [
      { buffer: 0, byteOffset: 0, byteLength: positions.byteLength },
      { buffer: 0, byteOffset: positions.byteLength, byteLength: indices.byteLength },
    ],
    buffers: [{ byteLength: bin.length }],
  };
  let text = Buffer.from(JSON.stringify(json));
  text = Buffer.concat([text, Buffer.alloc((4 - (text.length % 4)) % 4, 0x20)]);
  const header = Buffer.alloc(12);
  header.write('glTF', 0, 'latin1');
  header.writeUInt32LE(2, 4);
  header.writeUInt32LE(12 + 8 + text.length + 8 + bin.length, 8);
  const chunk = (length: number, type: number) => {
    const b = Buffer.alloc(8);
    b.writeUInt32LE(length, 0);
    b.writeUInt32LE(type, 4);
    return b;
  };
  return Buffer.concat([header, chunk(text.length, 0x4e4f534a), text, chunk(bin.length, 0x004e4942), bin]);
}

function obj({ positions, indices }: ReturnType<typeof grid>): Buffer {
  const lines: string[] = [];
  for (let i = 0; i < positions.length; i += 3) lines.push(`v ${positions[i].toFixed(5)} ${positions[i + 1].toFixed(5)} ${positions[i + 2].toFixed(5)}`);
  for (let i = 0; i < indices.length; i += 3) lines.push(`f ${indices[i] + 1} ${indices[i + 1] + 1} ${indices[i + 2] + 1}`);
  return Buffer.from(`${lines.join('\n')}\n`);
}

const IMPORT_SCRIPT = `
import json, os, sys, time
sys.path.insert(0, os.environ["SCENES_DIR"])
import addon_utils, bpy, numpy as np
import common
if not hasattr(np, "bool"):
    np.bool = np.bool_
def status(key):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
path = os.environ["MODEL"]
addon_utils.enable("io_scene_gltf2", default_set=False)
before = status("VmSize")
started = time.time()
with common.memory_limit(int(os.environ["EXTRA"])):
    if path.endswith(".obj"):
        result = bpy.ops.wm.obj_import(filepath=path)
    else:
        result = bpy.ops.import_scene.gltf(filepath=path, import_pack_images=False)
seconds = time.time() - started
print("BENCH " + json.dumps({"result": sorted(result), "seconds": seconds, "addressGrowth": status("VmPeak") - before, "peakResident": status("VmHWM")}), flush=True)
`;

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

async function main() {
  const blender = await findBlender();
  if (!blender) throw new Error('Blender is needed for this benchmark');
  const dir = await mkdtemp(join(tmpdir(), 'bench-models-'));
  const script = join(dir, 'import.py');
  await writeFile(script, IMPORT_SCRIPT);
  console.log(`Blender ${blender.version}; import limit: ${mb(IMPORT_MEMORY_BYTES)} of address space above Blender's own`);
  console.log('model                              file     inspect   import    address +   peak RSS');
  try {
    for (const faces of [MAX_MODEL_FACES / 2, MAX_MODEL_FACES]) {
      const side = Math.floor(Math.sqrt(faces / 2)) + 1;
      const mesh = grid(side);
      for (const [format, bytes] of [['glb', glb(mesh)], ['obj', obj(mesh)]] as const) {
        const file = join(dir, `grid-${side}.${format}`);
        await writeFile(file, bytes);
        const read = await readFile(file);
        const inspectStart = performance.now();
        const figures = inspectModel(read, format)!;
        const inspectMs = performance.now() - inspectStart;
        const { stdout } = await run(blender.path, ['-b', '--factory-startup', '-noaudio', '--python-exit-code', '1', '--python', script], {
          env: { ...process.env, MODEL: file, EXTRA: String(IMPORT_MEMORY_BYTES), SCENES_DIR: join(sceneScriptPath('model-viewer'), '..') },
          maxBuffer: 16 * 1024 * 1024,
        });
        const line = stdout.split('\n').find((l) => l.startsWith('BENCH '));
        if (!line) throw new Error(`no figures from Blender for ${file}`);
        const result = JSON.parse(line.slice(6)) as { result: string[]; seconds: number; addressGrowth: number; peakResident: number };
        const label = `${format.toUpperCase()} ${figures.vertices.toLocaleString('en-US')} v / ${figures.faces.toLocaleString('en-US')} f`;
        console.log(
          `${label.padEnd(34)} ${mb(read.length).padStart(7)} ${`${inspectMs.toFixed(0)} ms`.padStart(9)} ${`${result.seconds.toFixed(1)} s`.padStart(8)} ${mb(result.addressGrowth).padStart(11)} ${mb(result.peakResident).padStart(10)}  ${result.result.join(',')}`,
        );
        await rm(file);
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
