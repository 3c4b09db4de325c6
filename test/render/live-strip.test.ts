/**
 * Animation mode's live strip (render/preview-step.ts, renderPreview with `strip`) with real Blender: its frames are
 * rendered by the warm scene server's forked children side by side, and what one customer's strip ran (a customer's
 * file that got code running in Blender, played here by a scene script) reaches nothing of the next customer's.
 */
import { copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { sceneScriptPath } from '#render/blender';
import { renderPreview, type PreviewJob } from '#render/preview-step';
import { WarmScenes } from '#render/warm-scene';
import { liveStripFrames } from '#shared/live-preview';

const strip = (customText: string): PreviewJob => ({
  step: 'preview',
  sceneId: 1,
  customText,
  options: '',
  resolutionX: 1920,
  resolutionY: 1080,
  deadline: Date.now() + 60_000,
  strip: { frames: liveStripFrames(120), clipFrames: 120 },
});
const noUpload = async () => {
  throw new Error('no upload in these strips');
};

describe("a live preview's strip", () => {
  // As root (CI, the render image), the children run as the scene's own user, swept after every request.
  test.skipIf(process.getuid?.() !== 0)("when one customer's strip ran code of its own, the next customer's strip finds neither the file nor the process it left", async () => {
    // Text Animation's script replaced by one standing for a customer's file that got code running in each child.
    const scripts = mkdtempSync(path.join(tmpdir(), 'hostile-strip-scenes-'));
    const real = path.dirname(sceneScriptPath('text-animation'));
    for (const name of readdirSync(real).filter((entry) => entry.endsWith('.py'))) copyFileSync(path.join(real, name), path.join(scripts, name));
    const planted = `/tmp/planted-by-a-strip-${process.pid}`;
    writeFileSync(
      path.join(scripts, 'text-animation.py'),
      [
        'import os, subprocess, sys',
        'sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))',
        'import protocol',
        'import building',
        `PLANTED = ${JSON.stringify(planted)}`,
        'def sleepers():',
        '    found = []',
        '    for pid in filter(str.isdigit, os.listdir("/proc")):',
        '        try:',
        '            if open(f"/proc/{pid}/cmdline", "rb").read() == b"sleep\\x00301\\x00" and os.stat(f"/proc/{pid}").st_uid == os.getuid():',
        '                found.append(pid)',
        '        except OSError:',
        '            pass',
        '    return found',
        'def build(scene, args):',
        '    scene.camera = building.add_camera((0, -5, 1), (0, 0, 0))',
        '    if args.custom_text == "hostile":',
        '        with open(PLANTED, "w") as planted:',
        '            planted.write("left for the next customer")',
        '        subprocess.Popen(["sleep", "301"], start_new_session=True)',
        '    elif args.custom_text == "next":',
        '        left = ["file " + ("left" if os.path.exists(PLANTED) else "gone"), "process " + ("left" if sleepers() else "gone")]',
        '        raise protocol.UserError(", ".join(left))',
        '    return None',
        'protocol.run(build)',
        '',
      ].join('\n'),
    );
    const saved = process.env.RENDER_SCENES_DIR;
    process.env.RENDER_SCENES_DIR = scripts;
    const servers = new WarmScenes({ bands: 2 });
    try {
      const hostile = await renderPreview(strip('hostile'), servers, noUpload);
      // The hostile customer's own strip is made, every frame asked for, in order.
      expect('strip' in hostile && hostile.strip.map(({ frame }) => frame), JSON.stringify(hostile).slice(0, 300)).toEqual(liveStripFrames(120));
      const pid = servers.scene(1).readyPid;
      const next = await renderPreview(strip('next'), servers, noUpload);
      expect(next).toEqual({ userError: 'file gone, process gone' });
      // The same parent served both: the sweep, not a fresh parent, left nothing.
      expect(servers.scene(1).readyPid).toBe(pid);
    } finally {
      await servers.stop();
      if (saved === undefined) delete process.env.RENDER_SCENES_DIR;
      else process.env.RENDER_SCENES_DIR = saved;
      rmSync(scripts, { recursive: true, force: true });
      rmSync(planted, { force: true });
    }
  }, 180_000);
});
