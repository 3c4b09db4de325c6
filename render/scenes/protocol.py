"""The worker's side of a scene script: its arguments, its frame loop and the control protocol.

Every scene script (render/scenes/<slug>.py) is run as

    blender -b --factory-startup -noaudio --python render/scenes/<slug>.py -- args.json

and ends with ``protocol.run(build)``. ``run`` owns everything that is the same for all
scenes: reading and checking the JSON arguments, the frame loop, the output file names
and the control protocol that render/blender.ts parses. Control lines go to file
descriptor 3, a channel of their own, never to stdout: Blender's importers print names
from the user's file on stdout, and a name can hold a line break and a forged control
line. Every control line is one line (line breaks in a message are escaped), names from
the user's file are logged quoted (``quoted``), and the worker answers DENOISE on fd 3 too:

    INFO <text>                            a log line for the job's log
    PROGRESS frame=<n> done=<k> total=<t>  after each frame file is written
    ERROR <message>                        a message for the user; the process exits with 2
    LIMIT <seconds> <message>              the next step must end within <seconds>, or the
                                           worker stops Blender and tells the user <message>
    LIMIT off                              that step has ended
    DENOISE {"frame","exr","raw"}          the frame's passes are written; the worker
                                           denoises them and answers DENOISED (or FAILED <why>)
                                           on fd 3; it opens only that frame's two files

Any other failure (a bug, a Blender crash) exits non-zero without an ERROR line, so the
worker can tell "your file is bad" from "our render broke".

Render policy (samples, noise threshold, the test size cap, the text limit) is not decided
here: the worker sends it in args.json from the render manifest (shared/render-manifest.ts).

A final still may be split into regions (shared/render-plan.ts): with ``region`` (rows from
the top, and a margin of rows) the script renders those rows with the margin above and below,
has the worker denoise that band (DENOISE, as for a frame), and saves only the region's rows
through the scene's view transform as region.png (REGION_FILE in shared/render-contract.ts):
final rows, which the finishing step joins and encodes without Blender or the denoiser.
A warm still's bands (render/scenes/warm.py) are stitched and denoised once by the worker,
which then runs the script with ``denoisedFile``: it sets the render's colour and output
settings (it builds nothing and reads no upload) and saves that frame as the still.

``build(scene, args)`` only builds the scene (with building.py and media.py); it returns
the frame a still shows (or None for ``frameStart``).
"""

import contextlib
import json
import math
import os
import resource
import signal
import sys
import traceback

import bpy

import building


class UserError(Exception):
    """A problem the user can fix (bad upload, unsupported format): shown to them verbatim."""


_CONTROL_FD = 3
_control_out = None
_control_in = None


def _one_line(text):
    """A message as one control line: line breaks and other control characters escaped."""
    return "".join(ch if ch >= " " and ch != "\x7f" else repr(ch)[1:-1] for ch in str(text))


def control(kind, message=""):
    """Writes one control line to the worker (fd 3; stdout when run outside the worker)."""
    global _control_out
    if _control_out is None:
        try:
            _control_out = os.fdopen(_CONTROL_FD, "w", buffering=1, closefd=False)
        except OSError:
            _control_out = sys.stdout
    line = f"{kind} {_one_line(message)}" if message != "" else kind
    _control_out.write(line + "\n")
    _control_out.flush()


def control_reply():
    """The worker's answer to the last control line (fd 3)."""
    global _control_in
    if _control_in is None:
        try:
            _control_in = os.fdopen(os.dup(_CONTROL_FD), "r")
        except OSError:
            _control_in = sys.stdin
    return _control_in.readline().strip()


def quoted(name, limit=80):
    """A name from the user's file as printed in a log line: quoted, cut, escaped."""
    return repr(str(name)[:limit])


def log(message):
    control("INFO", message)


# --------------------------------------------------------------------------- arguments


class Args:
    """The parsed args.json. Field names follow the JSON contract in snake_case.

    ``scene`` is the scene's contract from the catalogue (shared/render-contract.ts): its
    frame rate, output file names and, for every option, its kind, range and default.
    ``options`` arrive as a JSON object and are checked against it here, once: a value
    outside the contract takes the default, a number is clamped to its range.
    """

    def __init__(self, raw):
        self.raw = raw
        contract = raw.get("scene")
        if not isinstance(contract, dict):
            raise ValueError("scene (the scene's contract) is required")
        self.scene_id = int(contract["id"])
        self.fps = int(contract["fps"])
        self.still_file = contract["stillFile"]
        self.frame_pattern = contract["framePattern"]
        self.preview_pattern = contract.get("previewPattern")
        self.preview_width = int(contract.get("previewWidth") or 0)
        self.option_specs = contract.get("options") or {}
        # Already cut to the scene's text limit by the worker.
        text = raw.get("customText")
        self.custom_text = str(text) if text is not None else ""
        given = raw.get("options") or {}
        if not isinstance(given, dict):
            raise ValueError("options must be a JSON object")
        self.options = {key: _checked(spec, given.get(key)) for key, spec in self.option_specs.items()}
        self.input_file = raw.get("inputFile") or None
        self.mode = raw.get("mode") or "still"
        if self.mode not in ("still", "animation"):
            raise ValueError(f"mode must be still or animation, got {self.mode!r}")
        # A free test render or a live preview: capped, few samples, a PREVIEW mark in a corner.
        self.is_test = bool(raw.get("isTest"))
        # Sizes and sampling come from the worker, a test render's already capped (the render manifest).
        self.resolution_x = max(16, int(_required(raw, "resolutionX")))
        self.resolution_y = max(16, int(_required(raw, "resolutionY")))
        # The most audio an audio scene decodes: the duration the job was priced for.
        self.max_audio_seconds = float(_required(raw, "maxAudioSeconds"))
        self.frame_start = int(raw["frameStart"]) if raw.get("frameStart") is not None else 1
        # frameEnd may be omitted: audio scenes then end with the audio.
        self.frame_end = int(raw["frameEnd"]) if raw.get("frameEnd") is not None else None
        frames = raw.get("frames")
        self.frames = sorted({int(f) for f in frames}) if frames else None
        self.alignment = raw.get("alignment") or None
        self.denoise = bool(raw.get("denoise"))
        # A transparent output: the world is not drawn and frames keep their alpha (RGBA PNG).
        self.transparent = bool(raw.get("transparent"))
        self.samples = int(_required(raw, "samples"))
        # 0 is Blender's automatic threshold.
        self.noise_threshold = float(_required(raw, "noiseThreshold"))
        # The samples a pixel takes before adaptive sampling may stop it (0: Cycles' automatic figure).
        self.min_samples = max(0, int(raw.get("minSamples") or 0))
        # A region of a split still: rows from the top, the bottom one excluded, and the rows of
        # margin rendered and denoised around them (render/blender.ts).
        region = raw.get("region")
        self.region = (int(region["top"]), int(region["bottom"])) if region else None
        self.region_margin = int(region["margin"]) if region else 0
        # The finishing step of a split still: the stitched, denoised frame to save as the still
        # (a warm region's: its bands' rows, of which it saves its own as region.png).
        self.denoised_file = raw.get("denoisedFile") or None
        if self.region and not (0 <= self.region[0] < self.region[1] <= self.resolution_y and self.region_margin >= 0 and (self.denoise or self.denoised_file)):
            raise ValueError(f"region {self.region} (margin {self.region_margin}) must be rows of the frame, of a denoised final")
        # A warm still's band of rows: [index, count] (render/scenes/warm.py).
        band = raw.get("band")
        self.band = (int(band[0]), int(band[1])) if band else None
        self.output_dir = raw.get("outputDir")
        if not self.output_dir:
            raise ValueError("outputDir is required")

    def option(self, key):
        """A checked option value; a key the scene's contract does not name is a bug."""
        return self.options[key]

    def style(self):
        """The background style choice (e.g. cold or hot)."""
        return self.options[BACKGROUND_STYLE_OPTION]

    def option_color(self, key):
        """A '#rrggbb' option as a linear RGBA tuple (Blender shades in linear light)."""
        return building.hex_to_linear(self.options[key])

    @property
    def animated(self):
        return self.mode == "animation"

BACKGROUND_STYLE_OPTION = "backgroundStyle"


def _checked(spec, value):
    """One option value against its contract entry: the value, clamped, or the default."""
    kind, default = spec["kind"], spec["default"]
    if kind == "number":
        try:
            number = float(value if value is not None else default)
        except (TypeError, ValueError):
            return float(default)
        return min(spec["max"], max(spec["min"], number)) if math.isfinite(number) else float(default)
    if kind == "color":
        return value if building.parse_hex(value) else default
    if kind == "choice":
        return value if value in spec["choices"] else default
    raise ValueError(f"unknown option kind {kind!r}")


def _required(raw, key):
    if raw.get(key) is None:
        raise ValueError(f"{key} is required (the worker sends it from the render manifest)")
    return raw[key]


def args_file():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    if not argv:
        raise ValueError("usage: blender -b --python <scene>.py -- <args.json>")
    return argv[0]


def read_args():
    with open(args_file(), encoding="utf-8") as handle:
        return Args(json.load(handle))


# --------------------------------------------------------------------------- frames


def frames_to_render(args, still_frame):
    if not args.animated:
        return [still_frame if still_frame is not None else args.frame_start]
    if args.frames:
        return args.frames
    return list(range(args.frame_start, args.frame_end + 1))


def output_path(args, frame):
    name = args.frame_pattern % frame if args.animated else args.still_file
    return os.path.join(args.output_dir, name)


def crop_to_rows(scene, top, bottom):
    """Cycles renders only these rows of the frame (from the top, the bottom one excluded), cropped to them."""
    height = scene.render.resolution_y
    render = scene.render
    render.use_border = True
    render.use_crop_to_border = True
    render.border_min_x, render.border_max_x = 0.0, 1.0
    # Blender takes a border's rows as int(fraction * height), counted from the bottom: half a
    # row in puts each edge on its row whatever the rounding of the fraction.
    render.border_min_y = (height - bottom + 0.5) / height
    render.border_max_y = min(1.0, (height - top + 0.5) / height)


def rendered_rows(args):
    """The rows Cycles renders for a still (from the top, the bottom one excluded): the whole frame,
    or a region's rows with `margin` rows of the frame above and below them, for the denoiser."""
    if not args.region:
        return 0, args.resolution_y
    top, bottom = args.region
    return max(0, top - args.region_margin), min(args.resolution_y, bottom + args.region_margin)


def render_region(scene, args, still_frame):
    """Renders one region of a split still and saves its final rows as region.png. Cycles renders
    the region with `margin` rows of the frame above and below it (its border, cropped), the worker
    denoises that band, and only the region's rows are saved, through the scene's view transform in
    the still's format. The denoiser's result at a pixel depends on its neighbourhood: with the
    margin, a row at the region's edge sees what it would see in the whole frame, so it comes out as
    the whole frame's denoise would give it and no seam shows where two regions meet; Cycles' noise
    per pixel does not depend on the border, so the margin's rows are the whole frame's rows."""
    top, bottom = args.region
    width, height = args.resolution_x, args.resolution_y
    band_top, band_bottom = rendered_rows(args)
    crop_to_rows(scene, band_top, band_bottom)
    scene.frame_set(still_frame if still_frame is not None else args.frame_start)
    log(f"rendering rows {top}-{bottom} of {width}x{height} with rows {band_top}-{band_bottom} for the denoiser, "
        f"up to {args.samples} samples, noise threshold {args.noise_threshold or 'auto'}")
    # The worker accepts a DENOISE request only for the files of the frame it asked for (the still's).
    stem = output_path(args, 1)[:-len(".png")] + ".partial"
    exr, raw = stem + ".passes.exr", stem + ".clean.f32"
    render_passes(scene, exr)
    control("DENOISE", json.dumps({"frame": 1, "exr": exr, "raw": raw}))
    reply = control_reply()
    if reply != "DENOISED":
        raise RuntimeError(f"region {top}-{bottom} was not denoised: {reply or 'no answer from the worker'}")
    save_region(scene, args, raw)
    os.remove(exr)
    os.remove(raw)


def save_region(scene, args, raw):
    """Saves the region's own rows of its rendered rows, denoised (raw float32 RGBA, rows from the
    bottom), as region.png."""
    top, bottom = args.region
    band_top, band_bottom = rendered_rows(args)
    final = os.path.join(args.output_dir, "region.png")
    partial = os.path.join(args.output_dir, "region.partial.png")
    save_rows(scene, raw, args.resolution_x, band_bottom - band_top, band_bottom - bottom, bottom - top, partial)
    os.replace(partial, final)
    control("PROGRESS", "frame=1 done=1 total=1")


def save_rows(scene, raw, width, band_height, below, rows, target):
    """Saves `rows` rows of a denoised band (raw float32 RGBA, rows from the bottom), the lowest
    `below` rows left out, through the scene's view transform in its output format."""
    from array import array

    pixels = array("f")
    with open(raw, "rb") as handle:
        pixels.frombytes(handle.read())
    if len(pixels) != width * band_height * 4:
        raise RuntimeError(f"the denoised band has {len(pixels)} values, not {width}x{band_height}x4")
    start = below * width * 4
    image = bpy.data.images.new("Region", width, rows, alpha=True, float_buffer=True)
    image.pixels.foreach_set(pixels[start:start + rows * width * 4])
    image.save_render(target, scene=scene)


def band_rows(height, index, count):
    return (height * index // count, height * (index + 1) // count)


def render_band(scene, args, still_frame):
    """A warm still's band of rows (render/scenes/warm.py renders a still's bands side by side,
    one core each), cropped to its rows: band-<index>.png, which a child then joins; or, denoised,
    its noisy passes as band-<index>.exr, which the worker stitches and denoises once. A region's
    bands share its rendered rows (its own and its margins) as a whole still's share the frame."""
    index, count = args.band
    first, last = rendered_rows(args)
    top, bottom = band_rows(last - first, index, count)
    crop_to_rows(scene, first + top, first + bottom)
    scene.frame_set(still_frame if still_frame is not None else args.frame_start)
    if args.denoise:
        render_passes(scene, os.path.join(args.output_dir, f"band-{index}.exr"))
        return
    scene.render.filepath = os.path.join(args.output_dir, f"band-{index}.png")
    bpy.ops.render.render(write_still=True)


def join_bands(args, count):
    """Joins the bands (band-0.png at the top) into the still, and writes its JPEG preview."""
    import numpy

    width, height = args.resolution_x, args.resolution_y
    rows = []
    for index in range(count):
        top, bottom = band_rows(height, index, count)
        image = bpy.data.images.load(os.path.join(args.output_dir, f"band-{index}.png"))
        if tuple(image.size) != (width, bottom - top):
            raise RuntimeError(f"band {index} is {tuple(image.size)}, not {width}x{bottom - top}")
        pixels = numpy.empty(width * (bottom - top) * 4, dtype=numpy.float32)
        image.pixels.foreach_get(pixels)
        rows.append(pixels)
        bpy.data.images.remove(image)
    # Blender's pixels run from the bottom row up: the last band comes first.
    joined = bpy.data.images.new("Joined", width, height, alpha=False)
    joined.pixels.foreach_set(numpy.concatenate(rows[::-1]))
    joined.file_format = "PNG"
    final = output_path(args, 1)
    partial = final[:-len(".png")] + ".partial.png"
    joined.filepath_raw = partial
    joined.save()
    os.replace(partial, final)
    write_preview(final, os.path.join(args.output_dir, args.preview_pattern % 1), args.preview_width)
    control("PROGRESS", "frame=1 done=1 total=1")


def save_stitched(scene, args):
    """A warm still's bands, stitched and denoised by the worker: saves that frame as the still, or
    a region's rows as region.png."""
    if args.region:
        save_region(scene, args, args.denoised_file)
        return
    final = output_path(args, 1)
    partial = final[:-len(".png")] + ".partial.png"
    save_clean(scene, args.denoised_file, partial)
    os.replace(partial, final)
    if args.preview_pattern and args.preview_width:
        write_preview(final, os.path.join(args.output_dir, args.preview_pattern % 1), args.preview_width)
    control("PROGRESS", "frame=1 done=1 total=1")


def render_frames(scene, args, still_frame):
    frames = frames_to_render(args, still_frame)
    log(f"rendering {len(frames)} frame(s) at {args.resolution_x}x{args.resolution_y}, "
        f"up to {args.samples} samples, noise threshold {args.noise_threshold or 'auto'}, "
        f"{'denoised' if args.denoise else 'not denoised'}")
    for done, frame in enumerate(frames, start=1):
        final = output_path(args, frame)
        os.makedirs(os.path.dirname(final), exist_ok=True)
        # Write then rename, so a job killed mid-write never leaves a truncated frame that a
        # resume would take for a finished one.
        partial = final[:-len(".png")] + ".partial.png"
        scene.frame_set(frame)
        if args.denoise:
            render_denoised(scene, frame, partial)
        else:
            scene.render.filepath = partial
            bpy.ops.render.render(write_still=True)
        os.replace(partial, final)
        if args.preview_pattern and args.preview_width:
            write_preview(final, os.path.join(args.output_dir, args.preview_pattern % (frame if args.animated else 1)), args.preview_width)
        control("PROGRESS", f"frame={frame} done={done} total={len(frames)}")


def write_preview(png, target, width):
    """The frame's small JPEG for the live preview, made here because Blender has the
    frame at hand (measured: a few times cheaper than an ffmpeg process per frame). A
    preview that fails costs only that thumbnail, never the frame."""
    try:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        image = bpy.data.images.load(png)
        w, h = image.size
        if w > width:
            image.scale(width, max(2, round(h * width / w)))
        image.file_format = "JPEG"
        image.filepath_raw = target
        image.save()
        bpy.data.images.remove(image)
    except Exception as error:  # noqa: BLE001 - any failure here must not fail the render
        log(f"preview of {os.path.basename(png)} not written: {error}")


def render_denoised(scene, frame, target):
    """Renders the frame's linear passes to an EXR, has the worker denoise them (it answers
    on the control channel), and saves the clean frame through the scene's view transform as the PNG.
    A missing or failed denoiser fails the render: a noisy frame is never shipped."""
    stem = target[:-len(".png")]
    exr, raw = stem + ".passes.exr", stem + ".clean.f32"
    render_passes(scene, exr)
    control("DENOISE", json.dumps({"frame": frame, "exr": exr, "raw": raw}))
    reply = control_reply()
    if reply != "DENOISED":
        raise RuntimeError(f"frame {frame} was not denoised: {reply or 'no answer from the worker'}")
    save_clean(scene, raw, target)
    os.remove(exr)
    os.remove(raw)


def render_passes(scene, exr):
    """Renders the frame (or its border) with the denoiser's passes into an uncompressed
    multilayer EXR; the scene's frame format is back in place afterwards."""
    settings = scene.render.image_settings
    frame_format = (settings.file_format, settings.color_mode, settings.color_depth)
    settings.file_format = "OPEN_EXR_MULTILAYER"
    settings.exr_codec = "NONE"  # the worker's reader takes uncompressed EXR only
    settings.color_depth = "32"
    scene.render.filepath = exr
    try:
        bpy.ops.render.render(write_still=True)
    finally:
        settings.file_format, settings.color_mode, settings.color_depth = frame_format


def save_clean(scene, raw, target):
    """Saves a clean frame (raw float32 RGBA, rows from the bottom) through the scene's view transform."""
    from array import array

    width, height = scene.render.resolution_x, scene.render.resolution_y
    pixels = array("f")
    with open(raw, "rb") as handle:
        pixels.frombytes(handle.read())
    if len(pixels) != width * height * 4:
        raise RuntimeError(f"the denoised frame has {len(pixels)} values, not {width}x{height}x4")
    image = bpy.data.images.get("Denoised")
    if image is None or tuple(image.size) != (width, height):
        image = bpy.data.images.new("Denoised", width, height, alpha=True, float_buffer=True)
    image.pixels.foreach_set(pixels)
    image.save_render(target, scene=scene)


def render_request(args, build, empty=False):
    """Builds the scene for args and renders what they ask for (a still, frames, a region or a
    stitched still): the whole of a scene script's work once its arguments are read."""
    # A warm server's child starts from the parent's empty file already (render/scenes/warm.py): no second reset.
    scene = bpy.context.scene if empty else building.reset_scene()
    building.configure_render(scene, args)
    if args.denoised_file:
        # Saving a frame denoised outside Blender takes only the colour and output settings: nothing is built or read.
        save_stitched(scene, args)
        return
    log(f"scene {args.scene_id}, {args.mode}, options {json.dumps(args.options, sort_keys=True)}")
    still_frame = build(scene, args)
    if args.is_test:
        building.add_preview_watermark(scene)
    if args.band:
        render_band(scene, args, still_frame)
    elif args.region:
        render_region(scene, args, still_frame)
    else:
        render_frames(scene, args, still_frame)


# Set by a warm scene server (render/scenes/warm.py) before it loads a scene script: the
# script's run(build) then hands its build to the server instead of rendering once.
serve = None


def run(build):
    """Entry point of every scene script: see the module docstring."""
    if serve is not None:
        return serve(build)
    try:
        render_request(read_args(), build)
    except UserError as error:
        control("ERROR", error)
        sys.exit(2)
    except Exception:
        traceback.print_exc()
        sys.stderr.flush()
        sys.exit(1)


# --------------------------------------------------------------------------- limits


# A warm server's child whose control lines go to the worker's socket (render/scenes/warm.py): the
# worker cannot stop it alone, so it keeps a step's limit by an alarm, which the kernel carries out.
limit_by_alarm = False
LIMIT_ALARM_GRACE_SECONDS = 2


@contextlib.contextmanager
def time_limit(seconds, message):
    """A wall-clock limit on one step, kept by the worker (render/blender.ts): a signal
    handler inside Blender would wait for a C++ importer to return, the worker can stop it
    (or, in a warm server's child, SIGALRM's default action, which needs no handler)."""
    control("LIMIT", f"{int(seconds)} {message}")
    if limit_by_alarm:
        signal.alarm(int(seconds) + LIMIT_ALARM_GRACE_SECONDS)
    try:
        yield
    finally:
        if limit_by_alarm:
            signal.alarm(0)
        control("LIMIT", "off")


@contextlib.contextmanager
def memory_limit(extra_bytes):
    """Lets this process grow by at most extra_bytes of address space while the block runs
    (an importer reading /dev/zero or a bloated file fails instead of exhausting the
    machine), then gives the render its previous limit back."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = _address_space_bytes() + extra_bytes
    for bound in (soft, hard):
        if bound != resource.RLIM_INFINITY:
            limit = min(limit, bound)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _address_space_bytes():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmSize in /proc/self/status")
