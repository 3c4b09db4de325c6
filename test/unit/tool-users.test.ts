import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_TOOL_UID, MAX_TOOL_SLOTS, containTools, endToolRun, prepareForTool, serverProcess, toolAccessProblem, toolIdentity, toolProcess } from '#render/tool-environment';

const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;

describe.runIf(asRoot)('the tools\' own users, when the worker runs as root', () => {
  containTools();

  it('when local workers run at once, each slot\'s tools get a uid of their own, from RENDER_TOOL_UID up', () => {
    expect(toolIdentity({})).toEqual({ uid: DEFAULT_TOOL_UID, gid: DEFAULT_TOOL_UID });
    expect(toolIdentity({ RENDER_TOOL_SLOT: '0' })!.uid).toBe(DEFAULT_TOOL_UID);
    expect(toolIdentity({ RENDER_TOOL_SLOT: '3' })).toEqual({ uid: DEFAULT_TOOL_UID + 3, gid: DEFAULT_TOOL_UID + 3 });
    expect(toolIdentity({ RENDER_TOOL_UID: '20000', RENDER_TOOL_SLOT: '1' })!.uid).toBe(20001);
    expect(() => toolIdentity({ RENDER_TOOL_SLOT: String(MAX_TOOL_SLOTS) })).toThrow(/RENDER_TOOL_SLOT/);
    expect(() => toolIdentity({ RENDER_TOOL_SLOT: '-1' })).toThrow(/RENDER_TOOL_SLOT/);
  });

  it('when a folder is handed to a slot\'s tools, it and its sub-folders are owned by that uid and closed to every other (0700)', async () => {
    const top = mkdtempSync(join(tmpdir(), 'tool-users-'));
    const previous = process.env.RENDER_TOOL_SLOT;
    try {
      const out = join(top, 'out');
      mkdirSync(join(out, 'frames'), { recursive: true, mode: 0o755 });
      writeFileSync(join(out, 'frames', 'a.png'), 'x');
      process.env.RENDER_TOOL_SLOT = '2';
      await prepareForTool([out]);
      for (const dir of [out, join(out, 'frames')]) {
        const stats = statSync(dir);
        expect(stats.uid, dir).toBe(DEFAULT_TOOL_UID + 2);
        expect(stats.mode & 0o777, dir).toBe(0o700);
      }
      expect(statSync(join(out, 'frames', 'a.png')).uid).toBe(DEFAULT_TOOL_UID + 2);
    } finally {
      if (previous === undefined) delete process.env.RENDER_TOOL_SLOT;
      else process.env.RENDER_TOOL_SLOT = previous;
      rmSync(top, { recursive: true, force: true });
    }
  });

  it('when a job\'s input is prepared for a slot\'s tools, only that slot\'s group may pass the job\'s folder and read the input (0710, 0640)', async () => {
    const job = mkdtempSync(join(tmpdir(), 'tool-users-'));
    try {
      const input = join(job, 'input.png');
      writeFileSync(input, 'x', { mode: 0o644 });
      await prepareForTool([], [input], { uid: DEFAULT_TOOL_UID + 1, gid: DEFAULT_TOOL_UID + 1 });
      expect(statSync(job)).toMatchObject({ uid: 0, gid: DEFAULT_TOOL_UID + 1 });
      expect(statSync(job).mode & 0o777).toBe(0o710);
      expect(statSync(input)).toMatchObject({ uid: 0, gid: DEFAULT_TOOL_UID + 1 });
      expect(statSync(input).mode & 0o777).toBe(0o640);
    } finally {
      rmSync(job, { recursive: true, force: true });
    }
  });

  it("when a slot's tool is started, its HOME and temporary folder are its own (0700, in a folder only its group may pass), Blender's user folders are an empty folder of root's it cannot write, and the run's end removes the home", () => {
    const previous = process.env.RENDER_TOOL_SLOT;
    process.env.RENDER_TOOL_SLOT = '7';
    try {
      const { env } = toolProcess('/bin/true', []).options;
      const uid = DEFAULT_TOOL_UID + 7;
      const home = env.HOME!;
      for (const dir of [home, env.TMPDIR!]) {
        expect(statSync(dir), dir).toMatchObject({ uid, gid: uid });
        expect(statSync(dir).mode & 0o777, dir).toBe(0o700);
      }
      expect(dirname(env.TMPDIR!)).toBe(home);
      // Its folder is root's: the tool can neither move its home away from the removal nor reach another's.
      expect(statSync(dirname(home))).toMatchObject({ uid: 0, gid: uid });
      expect(statSync(dirname(home)).mode & 0o777).toBe(0o710);

      const folders = ['BLENDER_USER_RESOURCES', 'BLENDER_USER_CONFIG', 'BLENDER_USER_SCRIPTS', 'BLENDER_USER_DATAFILES'].map((name) => env[name]);
      expect(new Set(folders).size).toBe(1);
      const empty = folders[0]!;
      expect(statSync(empty)).toMatchObject({ uid: 0 });
      expect(statSync(empty).mode & 0o7777).toBe(0o555);
      expect(readdirSync(empty)).toEqual([]);

      // The warm parent: the same empty folder, and a HOME of root's that no child can enter.
      const server = serverProcess('/bin/true', []).options.env;
      expect(server.BLENDER_USER_SCRIPTS).toBe(empty);
      expect(statSync(server.HOME!)).toMatchObject({ uid: 0 });
      expect(statSync(server.HOME!).mode & 0o777).toBe(0o700);

      writeFileSync(join(home, 'left-by-the-tool'), 'x');
      endToolRun();
      expect(existsSync(home)).toBe(false);
      expect(existsSync(dirname(home))).toBe(false);
      expect(existsSync(server.HOME!)).toBe(false);
      expect(existsSync(empty)).toBe(true);
    } finally {
      if (previous === undefined) delete process.env.RENDER_TOOL_SLOT;
      else process.env.RENDER_TOOL_SLOT = previous;
      endToolRun();
    }
  });

  describe('what the tools\' user can reach, asked before the first render', () => {
    const withTmpdir = async <T>(dir: string, run: () => Promise<T>) => {
      const previous = process.env.TMPDIR;
      process.env.TMPDIR = dir;
      try {
        return await run();
      } finally {
        if (previous === undefined) delete process.env.TMPDIR;
        else process.env.TMPDIR = previous;
      }
    };

    it('when the temporary folder is open to every user, nothing stands in the way', async () => {
      expect(await toolAccessProblem('/bin/sh')).toBeUndefined();
    });

    it('when the temporary folder sits in a folder only root may enter (a private checkout), the operator is told which path, which user and what to change', async () => {
      const home = mkdtempSync(join(tmpdir(), 'private-home-'));
      try {
        const temporary = join(home, 'tmp');
        mkdirSync(temporary);
        expect(statSync(home).mode & 0o777).toBe(0o700);
        const problem = await withTmpdir(temporary, () => toolAccessProblem('/bin/sh'));
        expect(problem).toContain(`user id ${DEFAULT_TOOL_UID}`);
        expect(problem).toContain(`cannot enter ${home} (owner uid 0, group 0, mode 0700)`);
        expect(problem).toContain(`chmod o+x ${home}`);
        expect(problem).toContain('set TMPDIR to a folder every user may enter, such as /tmp');
        // Nothing was opened to get there.
        expect(statSync(home).mode & 0o777).toBe(0o700);
      } finally {
        rmSync(home, { recursive: true, force: true });
      }
    });

    it('when Blender sits where the tools\' user cannot run it, the operator is told to move it or set BLENDER_PATH', async () => {
      const home = mkdtempSync(join(tmpdir(), 'private-blender-'));
      try {
        const blender = join(home, 'blender');
        copyFileSync('/bin/true', blender);
        chmodSync(blender, 0o700);
        chmodSync(home, 0o755);
        expect(await toolAccessProblem(blender)).toMatch(new RegExp(`user id ${DEFAULT_TOOL_UID}.*cannot run Blender at ${blender} \\(owner uid 0, group 0, mode 0700\\).*BLENDER_PATH`));
      } finally {
        rmSync(home, { recursive: true, force: true });
      }
    });
  });
});
