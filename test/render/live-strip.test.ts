/**
 * Animation mode's live strip (render/preview-step.ts, renderPreview with `strip`) with real Blender: its frames are
 * rendered by the warm scene server's forked children side by side, and what one customer's strip ran (a customer's
 * file that got code running in Blender, played here by a scene script) reaches nothing of the next customer's. An
 * audio scene's strip shows the loudest moments of the customer's audio, measured by a child that reads the file.
 */
import { copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { copyFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { sceneScriptPath } from '#render/blender';
import { renderPreview, type PreviewJob, type UploadDownload } from '#render/preview-step';
import { WarmScenes } from '#render/warm-scene';
import { isStripOfClip, liveStripFrames } from '#shared/live-preview';

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

/** The rate the scenes measure audio at (render/scenes/media.py, AUDIO_RATE): a frame's 1/30 s is 735 samples of it. */
const RATE = 22_050;

/** A mono 16-bit WAV of `seconds`: a quiet steady tone, at `loud(t)`'s level where it returns one. */
function wav(seconds: number, loud: (t: number) => number | undefined = () => undefined): Buffer {
  const count = Math.round(seconds * RATE);
  const data = Buffer.alloc(count * 2);
  for (let i = 0; i < count; i += 1) {
    const t = i / RATE;
    const level = loud(t) ?? 0.05;
    data.writeInt16LE(Math.round(32_767 * level * Math.sin(2 * Math.PI * 220 * t)), i * 2);
  }
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(RATE, 24);
  header.writeUInt32LE(RATE * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

/** Audio Reactive's strip of a 4-second clip, its upload the WAV at `file` (read by the preview as from storage). */
const audioStrip = (file: string): { job: PreviewJob; download: UploadDownload } => ({
  job: {
    step: 'preview',
    sceneId: 3,
    options: '',
    resolutionX: 1920,
    resolutionY: 1080,
    input: { key: 'users/someone/inputs/track.wav', url: 'https://uploads.example/track.wav', etag: '"wav"' },
    deadline: Date.now() + 120_000,
    strip: { frames: liveStripFrames(120), clipFrames: 120 },
  },
  download: async (_upload, to) => copyFile(file, to),
});

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
  test("an audio scene's strip shows the frame of the audio's loud burst, besides the first and the last; a steady track's is spread evenly", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'audio-strip-'));
    const burst = path.join(dir, 'burst.wav');
    const steady = path.join(dir, 'steady.wav');
    // Loud for one frame's 1/30 s from 2.0 s: the clip's frame 61 (frame 1 shows the audio's start), which the evenly
    // spaced strip (1, 18, 35, 52, 69, 86, 103, 120) does not hold.
    writeFileSync(burst, wav(4, (t) => (t >= 2 && t < 2 + 1 / 30 ? 0.9 : undefined)));
    writeFileSync(steady, wav(4));
    expect(liveStripFrames(120)).not.toContain(61);
    const servers = new WarmScenes({ bands: 2 });
    try {
      const loud = audioStrip(burst);
      const answer = await renderPreview(loud.job, servers, loud.download);
      expect('strip' in answer, JSON.stringify(answer).slice(0, 300)).toBe(true);
      const frames = 'strip' in answer ? answer.strip.map(({ frame }) => frame) : [];
      expect(frames).toContain(61);
      expect(frames[0]).toBe(1);
      expect(frames.at(-1)).toBe(120);
      // A strip the API takes: eight frames of the clip, in order, each once; each a rendered JPEG.
      expect(isStripOfClip(frames, 120, 8), frames.join(', ')).toBe(true);
      for (const { image } of 'strip' in answer ? answer.strip : []) expect(Buffer.from(image, 'base64').subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));

      const even = audioStrip(steady);
      const flat = await renderPreview(even.job, servers, even.download);
      expect('strip' in flat && flat.strip.map(({ frame }) => frame), JSON.stringify(flat).slice(0, 300)).toEqual(liveStripFrames(120));
    } finally {
      await servers.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 240_000);
});
