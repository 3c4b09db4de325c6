import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_TOOL_UID, MAX_TOOL_SLOTS, containTools, prepareForTool, toolIdentity } from '../../render/tool-environment';

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
});
