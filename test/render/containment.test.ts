/**
 * What a user's file can reach inside the render sandbox, with real Blender: a name
 * in a model that holds a forged control line is only a log line, a control request
 * for files outside the frame is refused, and Blender runs as a user that cannot
 * read the worker's environment (when the worker may switch users: it runs as root).
 * As root, what a tool leaves (in its home, where Blender looks for user scripts and
 * colour management, in the shared temporary folders, in System V IPC) reaches no other
 * user's Blender, no warm parent and no later request, and a tool's user holds a bounded
 * number of processes.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { chmod, cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { RenderError, runScene, sceneScriptPath, type SceneArgs } from '#render/blender';
import { containTools, DEFAULT_TOOL_UID, endToolRun, TOOL_PROCESS_LIMIT } from '#render/tool-environment';
import { sceneToolIdentity, WarmScene } from '#render/warm-scene';
import { getScene } from '#shared/catalogue';
import { asGlb, pngClaiming, texturedCube } from '../upload-fixtures';

const MODEL_VIEWER = 4;
const SMALL = { resolutionX: 160, resolutionY: 120, samples: 8, denoise: false } as const;
const FORGED = ['LIMIT 0 forged limit', 'PROGRESS frame=9 done=1 total=1', `DENOISE ${JSON.stringify({ frame: 1, exr: '/etc/passwd', raw: '/etc/passwd' })}`];

let dir: string;
let scripts: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'containment-'));
  // The test's scripts sit beside a copy of the scenes' modules (protocol.py and what it imports), as a scene's do.
  scripts = path.join(dir, 'scripts');
  await cp(path.dirname(sceneScriptPath('protocol')), scripts, { recursive: true });
});
afterAll(async () => {
  // The tools' homes of this run (a test process may be ended without its exit handlers).
  endToolRun();
  await rm(dir, { recursive: true, force: true });
});

/** Runs a script of the test's own in place of a scene script (it imports the scenes' protocol.py). */
async function runScript(name: string, body: string, extra: Partial<SceneArgs> = {}) {
  // finish() writes the still and reports it, as a scene does once its frame is on disk.
  const finish = 'def finish():\n    with open(os.path.join(protocol.read_args().output_dir, "still.png"), "wb") as still:\n        still.write(b"png")\n    protocol.control("PROGRESS", "frame=1 done=1 total=1")\n';
  await writeFile(path.join(scripts, `${name}.py`), `import json, os, sys, time\nsys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))\nimport protocol\n${finish}${body}\n`);
  const previous = process.env.RENDER_SCENES_DIR;
  process.env.RENDER_SCENES_DIR = scripts;
  const logs: string[] = [];
  try {
    const result = await runScene(
      { sceneId: MODEL_VIEWER, mode: 'still', outputDir: path.join(dir, `out-${name}`), ...SMALL, ...extra },
      { scene: { ...getScene(MODEL_VIEWER)!, slug: name }, onLog: (message) => logs.push(message) },
    );
    return { ...result, logs };
  } finally {
    if (previous === undefined) delete process.env.RENDER_SCENES_DIR;
    else process.env.RENDER_SCENES_DIR = previous;
  }
}

describe('the worker\'s control channel', () => {
  test('when a model\'s image name holds forged LIMIT, PROGRESS and DENOISE lines, the render is not stopped, counts its one frame and logs the name quoted', async () => {
    const file = path.join(dir, 'forged-name.glb');
    const parts = texturedCube(pngClaiming(50_000, 50_000));
    // Blender drops the undecodable image and the scene logs its name: the name carries the forged lines.
    (parts.json.images as { name?: string }[])[0].name = `t\n${FORGED[0]}\n${FORGED[1]}`;
    await writeFile(file, asGlb(parts));
    const logs: string[] = [];
    const { outputs } = await runScene({ sceneId: MODEL_VIEWER, mode: 'still', inputFile: file, outputDir: path.join(dir, 'out-forged-name'), ...SMALL }, { onLog: (message) => logs.push(message) });
    expect(outputs).toEqual([path.join(dir, 'out-forged-name', 'still.png')]);
    expect(logs).toContain(`dropped an embedded image Blender could not decode: 't\\nLIMIT 0 forged limit\\nPROGRESS frame=9 done=1 total=1'`);
  });

  test('when a script prints forged control lines on stdout, they are only log lines', async () => {
    const { outputs, logs } = await runScript(
      'forged-stdout',
      `${FORGED.map((line) => `print(${JSON.stringify(line)}, flush=True)`).join('\n')}\ntime.sleep(1)\nfinish()`,
    );
    expect(outputs).toEqual([path.join(dir, 'out-forged-stdout', 'still.png')]);
    for (const line of FORGED) expect(logs).toContain(line);
  });

  test('when a DENOISE request on the control channel names a file outside the frame\'s own, the worker refuses it and opens nothing', async () => {
    const before = await readFile('/etc/passwd', 'utf8');
    const { logs } = await runScript(
      'denoise-elsewhere',
      `protocol.control("DENOISE", json.dumps({"frame": 1, "exr": "/etc/passwd", "raw": "/etc/passwd"}))\nprotocol.log("reply: " + protocol.control_reply())\nfinish()`,
      { denoise: true },
    );
    expect(logs.find((line) => line.startsWith('reply: '))).toMatch(/^reply: FAILED denoiser failed: refused a DENOISE request/);
    expect(await readFile('/etc/passwd', 'utf8')).toBe(before);
  });
});

describe('progress the worker stores and records', () => {
  test('when a script reports a frame it was not given, or one whose file it never wrote, the worker refuses it and counts only the frame on disk', async () => {
    const { outputs, logs } = await runScript(
      'forged-progress',
      `args = protocol.read_args()\nprotocol.control("PROGRESS", "frame=999999 done=1 total=1")\nprotocol.control("PROGRESS", "frame=2 done=1 total=1")\nos.makedirs(os.path.join(args.output_dir, "frames"), exist_ok=True)\nwith open(os.path.join(args.output_dir, "frames", "frame_0001.png"), "wb") as frame:\n    frame.write(b"png")\nprotocol.control("PROGRESS", "frame=1 done=1 total=1")`,
      { mode: 'animation', frames: [1, 2] },
    );
    expect(outputs).toEqual([path.join(dir, 'out-forged-progress', 'frames', 'frame_0001.png')]);
    expect(logs).toContain('refused PROGRESS for frame 999999: this render was not given that frame');
    expect(logs).toContain('refused PROGRESS for frame 2: its file was not written');
  });
});

describe('the tools\' own user', () => {
  test.runIf(process.getuid?.() === 0)('when the worker contains its tools and runs as root, Blender runs as another user and cannot read the worker\'s environment', async () => {
    containTools();
    const { logs } = await runScript(
      'who-am-i',
      `protocol.log(f"uid {os.getuid()}")\ntry:\n    open(f"/proc/{os.getppid()}/environ", "rb").read()\n    protocol.log("environ read")\nexcept OSError as error:\n    protocol.log(f"environ refused: {type(error).__name__}")\nfinish()`,
    );
    expect(logs).toContain(`uid ${DEFAULT_TOOL_UID}`);
    expect(logs).toContain('environ refused: PermissionError');
  });

  test.runIf(process.getuid?.() === 0)('when a contained tool tries the local stack\'s services on 127.0.0.1, it cannot connect: it has no network', async () => {
    containTools();
    const accepted: string[] = [];
    const service = createServer((socket) => {
      accepted.push('connection');
      socket.end();
    });
    await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = service.address() as AddressInfo;
      const { logs } = await runScript(
        'reach-loopback',
        `import socket\ntry:\n    socket.create_connection(("127.0.0.1", ${port}), timeout=5).close()\n    protocol.log("connected")\nexcept OSError as error:\n    protocol.log(f"refused: {type(error).__name__}")\nfinish()`,
      );
      expect(logs.find((line) => line === 'connected' || line.startsWith('refused: '))).toMatch(/^refused: /);
      expect(accepted).toEqual([]);
    } finally {
      service.close();
    }
  });
});

/** Runs fn with the local pool's slot set as a worker of that slot has it (its tools' own user). */
async function inSlot<T>(slot: number, fn: () => Promise<T>): Promise<T> {
  const previous = process.env.RENDER_TOOL_SLOT;
  process.env.RENDER_TOOL_SLOT = String(slot);
  try {
    return await fn();
  } finally {
    if (previous === undefined) delete process.env.RENDER_TOOL_SLOT;
    else process.env.RENDER_TOOL_SLOT = previous;
  }
}

describe('a tool\'s home is its own', () => {
  test.runIf(process.getuid?.() === 0)(
    'when one slot\'s Blender plants a module where Blender looks for user scripts and an empty colour-management folder, neither another slot\'s Blender nor a warm scene server runs or reads them',
    async () => {
      containTools();
      // Where a planted module notes who ran it: a folder every tool user may write in.
      const markers = path.join(dir, 'markers');
      await mkdir(markers);
      await chmod(markers, 0o1777);
      await chmod(dir, 0o711);
      // numpy tries `import pickle5` when it loads (numpy/compat/py3k.py): Blender's own scripts, warm.py and the scenes load numpy.
      const planted = `import os\nopen(os.path.join(${JSON.stringify(markers)}, f"ran-as-{os.getuid()}"), "w").close()\n`;
      // Every place this Blender reads user scripts and colour management from: as bpy reports it, and under HOME.
      const plant = `import bpy
home = os.path.join(os.environ.get("HOME", "/nonexistent"), ".config", "blender", bpy.app.version_string[:3])
places = {bpy.utils.user_resource("SCRIPTS", path="addons/modules"): "modules", os.path.join(home, "scripts", "addons", "modules"): "modules",
          bpy.utils.user_resource("DATAFILES", path="colormanagement"): "colours", os.path.join(home, "datafiles", "colormanagement"): "colours"}
for place, kind in places.items():
    try:
        os.makedirs(place, exist_ok=True)
        if kind == "modules":
            with open(os.path.join(place, "pickle5.py"), "w") as module:
                module.write(${JSON.stringify(planted)})
            protocol.log("planted " + os.path.join(place, "pickle5.py"))
        else:
            protocol.log("planted " + place)
    except OSError as error:
        protocol.log(f"refused {place}: {type(error).__name__}")
finish()`;
      const plantedPaths: string[] = [];
      try {
        const { logs } = await inSlot(5, () => runScript('plant-user-files', plant));
        plantedPaths.push(...logs.filter((line) => line.startsWith('planted ')).map((line) => line.slice(8)));
        // The tool could write in its own home: what it planted there must not reach anyone else.
        expect(plantedPaths.length, logs.join('\n')).toBeGreaterThan(0);

        const victim = await inSlot(6, () => runScript('victim-of-user-files', 'import numpy\ntry:\n    import pickle5\n    protocol.log("found pickle5")\nexcept ImportError:\n    protocol.log("no pickle5")\nfinish()')).catch(
          (error: RenderError) => error,
        );
        // A Blender that found an empty colour-management folder aborts at start: its last lines say so.
        expect(victim instanceof RenderError ? victim.details.logTail : undefined).toBeUndefined();
        expect(victim).toMatchObject({ outputs: [path.join(dir, 'out-victim-of-user-files', 'still.png')] });
        expect((victim as { logs: string[] }).logs).toContain('no pickle5');

        const server = new WarmScene({ scene: getScene(1)!, identity: sceneToolIdentity(1) });
        try {
          // Its start imports numpy and reads the colour management: a planted copy of either would run or abort here.
          await server.warm();
          expect(await server.parentPid()).toBeGreaterThan(0);
        } finally {
          await server.stop();
        }
        expect(await readdir(markers)).toEqual([]);
      } finally {
        // On a machine where the plant reached a shared folder, what it left is removed (it would break every later Blender).
        for (const place of plantedPaths) await rm(place, { recursive: true, force: true });
      }
    },
  );
});

describe('the tools\' process limit', () => {
  test.runIf(process.getuid?.() === 0)('when a contained tool forks without end, its forks are refused before its user holds TOOL_PROCESS_LIMIT processes', async () => {
    containTools();
    // At most the limit and a margin: where no limit holds, the test fails without filling the machine.
    const { logs } = await inSlot(40, () =>
      runScript(
        'fork-bomb',
        // The forks come from a small Python that Blender starts (it inherits the limit): forking Blender itself is slow.
        `import resource, subprocess
soft, hard = resource.getrlimit(resource.RLIMIT_NPROC)
protocol.log(f"limit {soft} {hard}")
bomb = """
import errno, os, signal, time
children = []
try:
    while len(children) < ${TOOL_PROCESS_LIMIT + 64}:
        pid = os.fork()
        if pid == 0:
            time.sleep(60)
            os._exit(0)
        children.append(pid)
    print(f"forked {len(children)}")
except OSError as error:
    print(f"refused after {len(children)}: {errno.errorcode[error.errno]}")
finally:
    for pid in children:
        os.kill(pid, signal.SIGKILL)
    for pid in children:
        os.waitpid(pid, 0)
"""
protocol.log(subprocess.run(["/usr/bin/python3", "-c", bomb], capture_output=True, text=True, timeout=120).stdout.strip())
finish()`,
      ),
    );
    expect(logs).toContain(`limit ${TOOL_PROCESS_LIMIT} ${TOOL_PROCESS_LIMIT}`);
    const refused = logs.map((line) => /^refused after (\d+): EAGAIN$/.exec(line)).find(Boolean);
    expect(refused, logs.join('\n')).toBeTruthy();
    expect(Number(refused![1])).toBeLessThan(TOOL_PROCESS_LIMIT);
  });

  test.runIf(process.getuid?.() === 0)('when a warm scene server\'s child has taken its request\'s user, the same limit holds for it', async () => {
    const identity = sceneToolIdentity(1)!;
    const answer = await askHostileWarmChild('report-limit', 'raise protocol.UserError(f"uid {os.getuid()} limit {resource.getrlimit(resource.RLIMIT_NPROC)[0]}")');
    expect(answer.userMessage, JSON.stringify(answer.details)).toBe(`uid ${identity.uid} limit ${TOOL_PROCESS_LIMIT}`);
  });
});

/** A request whose parent is stopped once stopWhen holds (its child is then at work). */
interface StoppedRequest {
  text: string;
  stopWhen: () => boolean;
}

/**
 * Asks a warm scene server for one preview whose scene script stands for a customer's file that got code running in
 * the warm child: once the child has its request's settings (it has taken the request's user), it runs `code`, which
 * ends with the user's error it reports. Its answer, that error (one per text asked, in order, from one server).
 */
async function askHostileWarmChild(slug: string, code: string): Promise<RenderError>;
async function askHostileWarmChild(slug: string, code: string, texts: (string | StoppedRequest)[]): Promise<RenderError[]>;
async function askHostileWarmChild(slug: string, code: string, texts?: (string | StoppedRequest)[]): Promise<RenderError | RenderError[]> {
  const scenes = path.join(dir, `${slug}-scenes`);
  await cp(path.dirname(sceneScriptPath('protocol')), scenes, { recursive: true, filter: (source) => !source.includes('__pycache__') });
  const build = ['def build(scene, args):', '    scene.camera = building.add_camera((0, -5, 1), (0, 0, 0))', '    if not args.custom_text:', '        return None', ...code.split('\n').map((line) => `    ${line}`)];
  await writeFile(path.join(scenes, `${slug}.py`), ['import os, resource, sys', 'sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))', 'import protocol', 'import building', ...build, 'protocol.run(build)', ''].join('\n'));
  const previous = process.env.RENDER_SCENES_DIR;
  process.env.RENDER_SCENES_DIR = scenes;
  const server = new WarmScene({ scene: { id: 1, slug, optionsConfig: getScene(1)!.optionsConfig }, identity: sceneToolIdentity(1) });
  try {
    const answers: RenderError[] = [];
    for (const asked of texts ?? [slug]) {
      const customText = typeof asked === 'string' ? asked : asked.text;
      const rendering = server.render({ sceneId: 1, customText, mode: 'still', resolutionX: 64, resolutionY: 36, isTest: true, samples: 1, denoise: false }, 30_000).catch((error: unknown) => error);
      if (typeof asked === 'object') {
        for (let waited = 0; !asked.stopWhen() && waited < 30_000; waited += 50) await new Promise((wake) => setTimeout(wake, 50));
        // The parent is replaced mid-request: its end-of-request sweep never runs.
        await server.stop();
      }
      const answer = await rendering;
      expect(answer).toBeInstanceOf(RenderError);
      answers.push(answer as RenderError);
    }
    return texts ? answers : answers[0];
  } finally {
    await server.stop();
    if (previous === undefined) delete process.env.RENDER_SCENES_DIR;
    else process.env.RENDER_SCENES_DIR = previous;
  }
}

describe('what a warm child leaves', () => {
  test.runIf(process.getuid?.() === 0)('when a warm scene server\'s child writes in the machine\'s shared temporary folders, nothing of it is there once its request is answered', async () => {
    // The next request, another customer's, runs as the same user: a file left here would be theirs to read.
    const left = ['/tmp', '/dev/shm', '/tmp/.X11-unix'].map((folder) => path.join(folder, `warm-left-${process.pid}`));
    try {
      const answer = await askHostileWarmChild(
        'leave-files',
        `left = []
for place in ${JSON.stringify(left)}:
    try:
        with open(place, "w") as kept:
            kept.write("the last customer's text")
        left.append(place)
    except OSError:
        pass
raise protocol.UserError("left " + " ".join(left))`,
      );
      // At least /tmp and /dev/shm took a file (where /tmp/.X11-unix is missing, it is skipped).
      expect(answer.userMessage, JSON.stringify(answer.details)).toMatch(new RegExp(`^left ${left[0]} ${left[1]}`));
      for (const place of left) expect(existsSync(place), place).toBe(false);
    } finally {
      for (const place of left) await rm(place, { force: true });
    }
  });

  test.runIf(process.getuid?.() === 0)("when a warm parent is replaced while its child works, what the child left in /tmp is gone before the next parent's first child runs", async () => {
    const place = `/tmp/warm-left-replaced-${process.pid}`;
    try {
      const [, next] = await askHostileWarmChild(
        'leave-then-wait',
        `if args.custom_text == "leave":\n    with open(${JSON.stringify(place)}, "w") as kept:\n        kept.write("the last customer's text")\n    import time\n    time.sleep(60)\nraise protocol.UserError("found" if os.path.exists(${JSON.stringify(place)}) else "none")`,
        [{ text: 'leave', stopWhen: () => existsSync(place) }, 'look'],
      );
      expect(next.userMessage, JSON.stringify(next.details)).toBe('none');
    } finally {
      await rm(place, { force: true });
    }
  });
});

/** Python that creates a System V shared memory segment (it outlives its process unless removed) and reports its id. */
const LEAVE_SEGMENT = `import ctypes
libc = ctypes.CDLL(None, use_errno=True)
segment = libc.shmget(0, 4096, 0o1000 | 0o600)
protocol.log(f"segment {segment} of uid {os.getuid()}")`;

/** The System V shared memory segments of uid in this process's IPC namespace (/proc/sysvipc/shm's uid column). */
async function segmentsOf(uid: number): Promise<string[]> {
  const [header, ...rows] = (await readFile('/proc/sysvipc/shm', 'utf8')).split('\n').filter((line) => line.trim());
  const column = header.trim().split(/\s+/).indexOf('uid');
  return rows.map((row) => row.trim().split(/\s+/)).filter((fields) => Number(fields[column]) === uid).map((fields) => fields[1]);
}

describe('what a tool leaves in System V IPC', () => {
  test.runIf(process.getuid?.() === 0)("when a warm child leaves a shared memory segment, the next request's child, of the same user, finds none", async () => {
    const [left, found] = await askHostileWarmChild(
      'segments',
      `if args.custom_text == "leave":\n${LEAVE_SEGMENT.replace(/^/gm, '    ')}\n    raise protocol.UserError(f"left {segment}")\nlines = open("/proc/sysvipc/shm").read().split("\\n")\ncolumn = lines[0].split().index("uid")\nmine = [row.split()[1] for row in lines[1:] if row.strip() and int(row.split()[column]) == os.getuid()]\nraise protocol.UserError("found " + " ".join(mine))`,
      ['leave', 'look'],
    );
    expect(left.userMessage, JSON.stringify(left.details)).toMatch(/^left \d+$/);
    expect(found.userMessage, JSON.stringify(found.details)).toBe('found');
  });

  test.runIf(process.getuid?.() === 0)('when a contained tool leaves a shared memory segment, it is gone with the tool: the next job of its user finds none', async () => {
    containTools();
    const uid = DEFAULT_TOOL_UID + 41;
    try {
      const { logs } = await inSlot(41, () => runScript('leave-segment', `${LEAVE_SEGMENT}\nfinish()`));
      expect(logs.find((line) => line.startsWith('segment '))).toMatch(new RegExp(`^segment \\d+ of uid ${uid}$`));
      expect(await segmentsOf(uid)).toEqual([]);
    } finally {
      // Where it outlived the tool (the machine's namespace), it is removed here.
      for (const segment of await segmentsOf(uid)) execFileSync('ipcrm', ['-m', segment]);
    }
  });
});
