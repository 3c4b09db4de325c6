"""Shared helpers for the catalogue scene builders (render/scenes/<slug>.py).

Every scene script is run as

    blender -b --factory-startup -noaudio --python render/scenes/<slug>.py -- args.json

and ends with ``common.run(build)``. ``run`` owns everything that is the same for all
scenes: reading and checking the JSON arguments, the render settings, the PREVIEW
watermark of test renders, the frame loop, the output file names and the control protocol
that render/blender.ts parses. Control lines go to file descriptor 3, a channel of their
own, never to stdout: Blender's importers print names from the user's file on stdout,
and a name can hold a line break and a forged control line. Every control line is one
line (line breaks in a message are escaped), and the worker answers DENOISE on fd 3 too:

    INFO <text>                            a log line for the job's log
    PROGRESS frame=<n> done=<k> total=<t>  after each frame file is written
    ERROR <message>                        a message for the user; the process exits with 2
    LIMIT <seconds> <message>              the next step must end within <seconds>, or the
                                           worker stops Blender and tells the user <message>
    LIMIT off                              that step has ended
    DENOISE {"frame","exr","raw"}          the frame's passes are written; the worker
                                           denoises them and answers DENOISED (or FAILED)

Any other failure (a bug, a Blender crash) exits non-zero without an ERROR line, so the
worker can tell "your file is bad" from "our render broke".

``build(scene, args)`` only builds the scene; it returns the frame a still shows (or
None for ``frameStart``).
"""

import contextlib
import json
import math
import os
import resource
import shutil
import subprocess
import sys
import traceback

import bmesh
import bpy
from mathutils import Vector

# Test renders are for judging the result before paying, not for keeping.
TEST_MAX_SIDE = 480
TEST_SAMPLES = 12
# Without the denoiser (denoise: false) a final needs many samples to look clean.
FINAL_SAMPLES = 96
# Denoised frames: adaptive sampling stops each pixel once its noise is below the threshold,
# up to the maximum; what is left the denoiser removes. Tuned per scene with
# `npm run bench:quality` (least time for a clean denoised frame); dark scenes need a lower
# threshold because their noise sits in the shadows.
DENOISED_SAMPLING = {  # scene id -> (max samples, noise threshold)
    None: (32, 0.05),
}
MAX_TEXT_LENGTH = 200

IMAGE_ERROR = "The uploaded file is not a readable image."
AUDIO_ERROR = "The uploaded file is not a readable audio file."

BOLD_FONT_CANDIDATES = (
    "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Bold.ttf",
)


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
        text = raw.get("customText")
        self.custom_text = str(text)[:MAX_TEXT_LENGTH] if text is not None else ""
        given = raw.get("options") or {}
        if not isinstance(given, dict):
            raise ValueError("options must be a JSON object")
        self.options = {key: _checked(spec, given.get(key)) for key, spec in self.option_specs.items()}
        self.input_file = raw.get("inputFile") or None
        self.mode = raw.get("mode") or "still"
        if self.mode not in ("still", "animation"):
            raise ValueError(f"mode must be still or animation, got {self.mode!r}")
        self.is_test = bool(raw.get("isTest"))
        self.resolution_x, self.resolution_y = _resolution(raw, self.is_test)
        self.frame_start = int(raw["frameStart"]) if raw.get("frameStart") is not None else 1
        # frameEnd may be omitted: audio scenes then end with the audio.
        self.frame_end = int(raw["frameEnd"]) if raw.get("frameEnd") is not None else None
        frames = raw.get("frames")
        self.frames = sorted({int(f) for f in frames}) if frames else None
        self.alignment = raw.get("alignment") or None
        self.denoise = bool(raw.get("denoise"))
        # A transparent output: the world is not drawn and frames keep their alpha (RGBA PNG).
        self.transparent = bool(raw.get("transparent"))
        samples = raw.get("samples")
        tuned, self.noise_threshold = DENOISED_SAMPLING.get(self.scene_id, DENOISED_SAMPLING[None])
        if not self.denoise:
            self.noise_threshold = 0.0  # Blender's automatic threshold
        untuned = TEST_SAMPLES if self.is_test else (tuned if self.denoise else FINAL_SAMPLES)
        self.samples = int(samples) if samples else untuned
        threshold = raw.get("noiseThreshold")
        if threshold is not None:
            self.noise_threshold = float(threshold)
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
        return hex_to_linear(self.options[key])

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
        return value if _parse_hex(value) else default
    if kind == "choice":
        return value if value in spec["choices"] else default
    raise ValueError(f"unknown option kind {kind!r}")


def _resolution(raw, is_test):
    x = max(16, int(raw.get("resolutionX") or 1920))
    y = max(16, int(raw.get("resolutionY") or 1080))
    if is_test and max(x, y) > TEST_MAX_SIDE:
        factor = TEST_MAX_SIDE / max(x, y)
        # Even sizes keep the H.264 encoder happy without a rescale.
        x, y = max(16, round(x * factor / 2) * 2), max(16, round(y * factor / 2) * 2)
    return x, y


def read_args():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    if not argv:
        raise ValueError("usage: blender -b --python <scene>.py -- <args.json>")
    with open(argv[0], encoding="utf-8") as handle:
        return Args(json.load(handle))


# --------------------------------------------------------------------------- colours


def srgb_to_linear(c):
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def hex_to_linear(value, fallback="#ffffff"):
    """'#rrggbb' (or '#rgb') as linear RGBA; fallback when value is not a colour."""
    channels = _parse_hex(value) or _parse_hex(fallback) or (1.0, 1.0, 1.0)
    return tuple(srgb_to_linear(c) for c in channels) + (1.0,)


def _parse_hex(value):
    text = (value or "").strip().lstrip("#")
    if len(text) == 3:
        text = "".join(ch * 2 for ch in text)
    try:
        return tuple(int(text[i:i + 2], 16) / 255 for i in (0, 2, 4)) if len(text) == 6 else None
    except ValueError:
        return None


# --------------------------------------------------------------------------- scene setup


# Set by configure_render: whether this render leaves its background out.
TRANSPARENT = False


def reset_scene():
    """Start from an empty file: --factory-startup still brings the default cube and light."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    return bpy.context.scene


def configure_render(scene, args):
    scene.render.engine = "CYCLES"
    cycles = scene.cycles
    cycles.device = "CPU"
    cycles.samples = args.samples
    cycles.use_adaptive_sampling = True
    cycles.adaptive_threshold = args.noise_threshold
    # Debian's Blender is built without OpenImageDenoise: frames are denoised outside it,
    # from the albedo and normal passes stored here.
    cycles.use_denoising = False
    bpy.context.view_layer.cycles.denoising_store_passes = args.denoise
    # Short light paths and clamping trade physical accuracy for less noise per sample,
    # which is what an un-denoised render needs.
    cycles.max_bounces = 6
    cycles.diffuse_bounces = 2
    cycles.glossy_bounces = 3
    cycles.transmission_bounces = 6
    cycles.sample_clamp_direct = 10.0
    cycles.sample_clamp_indirect = 4.0
    cycles.blur_glossy = 1.0
    cycles.caustics_reflective = False
    cycles.caustics_refractive = False

    render = scene.render
    render.resolution_x = args.resolution_x
    render.resolution_y = args.resolution_y
    render.resolution_percentage = 100
    render.fps = args.fps
    # Keeps the synced scene between the frames of the render loop.
    render.use_persistent_data = True
    render.image_settings.file_format = "PNG"
    render.image_settings.color_mode = "RGBA" if args.transparent else "RGB"
    render.image_settings.color_depth = "8"
    render.film_transparent = args.transparent
    global TRANSPARENT
    TRANSPARENT = args.transparent
    scene.view_settings.view_transform = "Filmic"
    scene.view_settings.look = "Medium High Contrast"

    scene.frame_start = args.frame_start
    scene.frame_end = max(args.frame_start, args.frame_end or args.frame_start)


def link(obj, collection=None):
    (collection or bpy.context.scene.collection).objects.link(obj)
    return obj


def add_empty(name, location=(0, 0, 0), parent=None):
    empty = link(bpy.data.objects.new(name, None))
    empty.location = location
    empty.parent = parent
    return empty


def look_at(obj, target):
    direction = Vector(target) - obj.location
    obj.rotation_euler = direction.to_track_quat("-Z", "Y").to_euler()


def add_camera(location, target, lens=50.0, parent=None):
    """A camera at location aimed at target; give a parent (a pivot) to orbit it."""
    data = bpy.data.cameras.new("Camera")
    data.lens = lens
    data.clip_start = 0.05
    data.clip_end = 500.0
    camera = link(bpy.data.objects.new("Camera", data))
    camera.location = location
    look_at(camera, target)
    if parent is not None:
        parent_to(camera, parent)
    bpy.context.scene.camera = camera
    return camera


def parent_to(child, parent):
    """Parents child to parent keeping its current world placement (location, target and
    so on are given in world space throughout these scripts)."""
    bpy.context.view_layer.update()
    child.parent = parent
    child.matrix_parent_inverse = parent.matrix_world.inverted()


def view_size_at(camera, distance):
    """Width and height (scene units) the camera sees at distance in front of it."""
    scene = bpy.context.scene
    aspect = scene.render.resolution_x / scene.render.resolution_y
    # With sensor_fit AUTO the field of view spans the longer side of the image.
    longer = 2 * distance * math.tan(camera.data.angle / 2)
    return (longer, longer / aspect) if aspect >= 1 else (longer * aspect, longer)


def add_light(kind, name, location, target=(0, 0, 0), energy=100.0, color=(1, 1, 1), size=1.0):
    data = bpy.data.lights.new(name, kind)
    data.energy = energy
    data.color = color[:3]
    if kind == "AREA":
        data.size = size
    elif kind in ("POINT", "SPOT"):
        data.shadow_soft_size = size
    light = link(bpy.data.objects.new(name, data))
    light.location = location
    look_at(light, target)
    return light


def set_world(color, strength=1.0, top_color=None):
    """A flat world colour, or a vertical gradient from color (horizon) to top_color."""
    world = bpy.data.worlds.new("World")
    bpy.context.scene.world = world
    world.use_nodes = True
    nodes, links = world.node_tree.nodes, world.node_tree.links
    background = nodes["Background"]
    background.inputs["Strength"].default_value = strength
    if top_color is None:
        background.inputs["Color"].default_value = color
        return world
    coords = nodes.new("ShaderNodeTexCoord")
    separate = nodes.new("ShaderNodeSeparateXYZ")
    ramp = nodes.new("ShaderNodeValToRGB")
    ramp.color_ramp.elements[0].color = color
    ramp.color_ramp.elements[1].position = 0.6
    ramp.color_ramp.elements[1].color = top_color
    links.new(coords.outputs["Generated"], separate.inputs["Vector"])
    links.new(separate.outputs["Z"], ramp.inputs["Fac"])
    links.new(ramp.outputs["Color"], background.inputs["Color"])
    return world


# --------------------------------------------------------------------------- materials


def principled_material(name, color, roughness=0.5, metallic=0.0, emission=None,
                        emission_strength=0.0, clearcoat=0.0):
    material = bpy.data.materials.new(name)
    material.use_nodes = True
    bsdf = material.node_tree.nodes["Principled BSDF"]
    bsdf.inputs["Base Color"].default_value = color
    bsdf.inputs["Roughness"].default_value = roughness
    bsdf.inputs["Metallic"].default_value = metallic
    bsdf.inputs["Clearcoat"].default_value = clearcoat
    if emission is not None:
        bsdf.inputs["Emission"].default_value = emission
        bsdf.inputs["Emission Strength"].default_value = emission_strength
    material.diffuse_color = color  # what the solid viewport shows, for debugging
    return material


def image_texture_node(material, image, extension="REPEAT"):
    """An Image Texture node for image, wired to the material's base colour."""
    nodes, links = material.node_tree.nodes, material.node_tree.links
    texture = nodes.new("ShaderNodeTexImage")
    texture.image = image
    texture.extension = extension
    links.new(texture.outputs["Color"], nodes["Principled BSDF"].inputs["Base Color"])
    return texture


def image_material(name, image, roughness=0.4, clearcoat=0.0, glow=0.0):
    """A material showing image via the mesh's UVs; glow adds a little of the image as
    emission so the user's colours stay readable in dim scenes."""
    material = principled_material(name, (1, 1, 1, 1), roughness=roughness, clearcoat=clearcoat)
    texture = image_texture_node(material, image)
    if glow > 0:
        bsdf = material.node_tree.nodes["Principled BSDF"]
        material.node_tree.links.new(texture.outputs["Color"], bsdf.inputs["Emission"])
        bsdf.inputs["Emission Strength"].default_value = glow
    return material


def assign_material(obj, material):
    obj.data.materials.clear()
    obj.data.materials.append(material)
    return obj


def hide_from_light_paths(obj):
    """Visible to the camera only: it neither casts shadows nor shows in reflections."""
    obj.visible_diffuse = False
    obj.visible_glossy = False
    obj.visible_transmission = False
    obj.visible_volume_scatter = False
    obj.visible_shadow = False


# --------------------------------------------------------------------------- geometry


def mesh_object(name, vertices, faces, smooth=False):
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata([tuple(v) for v in vertices], [], [tuple(f) for f in faces])
    mesh.update()
    if smooth:
        mesh.polygons.foreach_set("use_smooth", [True] * len(mesh.polygons))
    return link(bpy.data.objects.new(name, mesh))


def add_box(name, size, location, material=None, bottom_origin=False):
    """An axis-aligned box; bottom_origin puts the origin on its base so scale.z grows it up."""
    sx, sy, sz = (s / 2 for s in size)
    z0, z1 = (0.0, 2 * sz) if bottom_origin else (-sz, sz)
    vertices = [(x, y, z) for z in (z0, z1) for y in (-sy, sy) for x in (-sx, sx)]
    faces = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    box = mesh_object(name, vertices, faces)
    box.location = location
    if material:
        assign_material(box, material)
    return box


def add_cyclorama(material, width=30.0, depth=14.0, height=12.0, radius=4.0, back=6.0):
    """A photo-studio backdrop: a floor that curves up into a back wall at y=back, so the
    camera sees no horizon line."""
    profile = [(-depth, 0.0)]
    steps = 12
    for i in range(steps + 1):
        angle = -math.pi / 2 + (math.pi / 2) * i / steps
        profile.append((back - radius + radius * math.cos(angle), radius + radius * math.sin(angle)))
    profile.append((back, height))
    vertices = [(x, y, z) for y, z in profile for x in (-width / 2, width / 2)]
    faces = [(2 * i, 2 * i + 1, 2 * i + 3, 2 * i + 2) for i in range(len(profile) - 1)]
    backdrop = as_ground(mesh_object("Backdrop", vertices, faces, smooth=True))
    return assign_material(backdrop, material)


def as_ground(obj):
    """Marks the floor or backdrop a scene stands on. Without a background (a transparent
    render) it only catches the subject's shadows and reflections, kept in the alpha
    channel, so the subject still sits on something when composited."""
    obj.is_shadow_catcher = TRANSPARENT
    return obj


def add_uv_sphere(name, radius, location, segments=48, rings=24):
    mesh = bpy.data.meshes.new(name)
    bm = bmesh.new()
    bm.loops.layers.uv.new("UVMap")  # calc_uvs only fills an existing UV layer
    bmesh.ops.create_uvsphere(bm, u_segments=segments, v_segments=rings, radius=radius, calc_uvs=True)
    bm.to_mesh(mesh)
    bm.free()
    mesh.polygons.foreach_set("use_smooth", [True] * len(mesh.polygons))
    sphere = link(bpy.data.objects.new(name, mesh))
    sphere.location = location
    return sphere


def add_grid(name, size_x, size_y, cuts_x, cuts_y):
    """A flat, UV-mapped grid in the XY plane centred on the origin."""
    vertices, uvs = [], []
    for j in range(cuts_y + 1):
        for i in range(cuts_x + 1):
            u, v = i / cuts_x, j / cuts_y
            vertices.append(((u - 0.5) * size_x, (v - 0.5) * size_y, 0.0))
            uvs.append((u, v))
    row = cuts_x + 1
    faces = [(j * row + i, j * row + i + 1, (j + 1) * row + i + 1, (j + 1) * row + i)
             for j in range(cuts_y) for i in range(cuts_x)]
    grid = mesh_object(name, vertices, faces, smooth=True)
    layer = grid.data.uv_layers.new(name="UVMap")
    loop_uvs = [c for loop in grid.data.loops for c in uvs[loop.vertex_index]]
    layer.data.foreach_set("uv", loop_uvs)
    return grid


def add_text(name, body, size=1.0, extrude=0.0, bevel=0.0, bold=True):
    curve = bpy.data.curves.new(name, "FONT")
    curve.body = body
    curve.size = size
    curve.extrude = extrude
    curve.bevel_depth = bevel
    curve.bevel_resolution = 2
    curve.align_x = "CENTER"
    curve.align_y = "CENTER"
    if bold:
        font_path = next((p for p in BOLD_FONT_CANDIDATES if os.path.exists(p)), None)
        if font_path:  # otherwise Blender's built-in font
            curve.font = bpy.data.fonts.load(font_path, check_existing=True)
    return link(bpy.data.objects.new(name, curve))


def object_dimensions(obj):
    bpy.context.view_layer.update()
    return obj.dimensions.copy()


def world_bounds(objects):
    """Min and max corners (world space) of the bounding boxes of objects."""
    bpy.context.view_layer.update()
    points = [obj.matrix_world @ Vector(corner) for obj in objects for corner in obj.bound_box]
    low = Vector(min(p[i] for p in points) for i in range(3))
    high = Vector(max(p[i] for p in points) for i in range(3))
    return low, high


# --------------------------------------------------------------------------- animation


def set_keys(owner, data_path, frames, values, index=0, interpolation="LINEAR"):
    """Keyframes owner.data_path at frames with values in one call: fast for the thousands
    of keys that an audio track produces (keyframe_insert is per key and slow)."""
    if owner.animation_data is None:
        owner.animation_data_create()
    if owner.animation_data.action is None:
        owner.animation_data.action = bpy.data.actions.new(f"{owner.name}Action")
    fcurves = owner.animation_data.action.fcurves
    curve = fcurves.find(data_path, index=index) or fcurves.new(data_path, index=index)
    points = curve.keyframe_points
    start = len(points)
    points.add(len(frames))
    coords = []
    for frame, value in zip(frames, values):
        coords.extend((float(frame), float(value)))
    chunk = [0.0] * (2 * len(points))
    points.foreach_get("co", chunk)
    chunk[2 * start:] = coords
    points.foreach_set("co", chunk)
    points.foreach_set("interpolation", [_INTERPOLATION[interpolation]] * len(points))
    curve.update()
    return curve


# Keyframe.interpolation is an enum; foreach_set needs its integer value.
_INTERPOLATION = {"CONSTANT": 0, "LINEAR": 1, "BEZIER": 2}


def key_transform(obj, frame, location=None, rotation=None, scale=None):
    """keyframe_insert for the few keys of a hand-made move (Bezier: eased)."""
    for attr, value in (("location", location), ("rotation_euler", rotation), ("scale", scale)):
        if value is not None:
            setattr(obj, attr, value)
            obj.keyframe_insert(attr, frame=frame)


# --------------------------------------------------------------------------- inputs


def require_input(args, what):
    if not args.input_file:
        raise UserError(f"This scene needs {what}.")
    if not os.path.isfile(args.input_file):
        raise UserError("The uploaded file could not be found on the render machine.")
    return args.input_file


def load_image(path):
    """Loads and checks an image by content, whatever its file name says."""
    try:
        image = bpy.data.images.load(path, check_existing=False)
    except RuntimeError:
        raise UserError(IMAGE_ERROR)
    # Blender loads lazily and gives a 0x0 image for data it cannot decode.
    width, height = image.size
    if width <= 0 or height <= 0 or not image.has_data:
        raise UserError(IMAGE_ERROR)
    log(f"image {width}x{height}")
    return image


def load_audio_levels(path, fps, bands=0):
    """Decodes the audio and measures it per video frame (1/fps s windows).

    Returns (loudness, spectrum): loudness is a list of RMS levels scaled so that the loud
    parts of the track reach about 1; spectrum (when bands > 0) is a list of per-frame
    lists of band levels on a log frequency scale, scaled the same way per band.
    """
    import numpy as np  # Debian's python3-numpy; Blender's own Python has it via that package

    rate = 22050
    samples = _decode_audio(path, rate)
    if samples.size < rate // fps:
        raise UserError(AUDIO_ERROR)
    if float(np.max(np.abs(samples))) < 1e-4:
        raise UserError("The uploaded audio is silent.")
    window = rate // fps
    count = int(math.ceil(samples.size / window))
    padded = np.zeros(count * window, dtype=np.float32)
    padded[:samples.size] = samples
    frames = padded.reshape(count, window)
    rms = np.sqrt(np.mean(frames ** 2, axis=1))
    loudness = _normalise(rms)
    log(f"audio {samples.size / rate:.2f}s, {count} frames")
    if bands <= 0:
        return loudness.tolist(), None
    spectrum = np.abs(np.fft.rfft(frames * np.hanning(window), axis=1))
    freqs = np.fft.rfftfreq(window, 1 / rate)
    edges = np.geomspace(40, 10000, bands + 1)
    levels = np.stack([
        spectrum[:, (freqs >= lo) & (freqs < hi)].mean(axis=1) if np.any((freqs >= lo) & (freqs < hi))
        else np.zeros(count)
        for lo, hi in zip(edges[:-1], edges[1:])
    ], axis=1)
    levels = np.stack([_normalise(levels[:, b]) for b in range(bands)], axis=1)
    return loudness.tolist(), levels.tolist()


def _normalise(values):
    import numpy as np

    # The 95th percentile, not the maximum, so one click does not flatten the whole track.
    reference = float(np.percentile(values, 95)) or float(np.max(values)) or 1.0
    return np.clip(values / reference, 0.0, 1.25)


# The demuxer for each audio extension an upload may have, so ffmpeg never guesses the format
# from the content: a playlist disguised as audio would otherwise make it open other files.
_AUDIO_DEMUXERS = {".mp3": "mp3", ".wav": "wav"}


def _decode_audio(path, rate):
    """Mono float32 PCM, decoded by ffmpeg with only the file protocol and the demuxer the
    extension names."""
    import numpy as np

    ffmpeg = shutil.which("ffmpeg")
    demuxer = _AUDIO_DEMUXERS.get(os.path.splitext(path)[1].lower())
    if not ffmpeg:
        raise RuntimeError("ffmpeg is not installed on this machine: install it with `apt-get install -y ffmpeg`")
    if not demuxer:
        raise UserError(AUDIO_ERROR)
    result = subprocess.run(
        [ffmpeg, "-v", "error", "-nostdin", "-protocol_whitelist", "file", "-f", demuxer,
         "-i", "file:" + os.path.abspath(path), "-vn", "-ac", "1", "-ar", str(rate), "-f", "f32le", "pipe:1"],
        capture_output=True,
    )
    if result.returncode != 0 or not result.stdout:
        raise UserError(AUDIO_ERROR)
    return np.frombuffer(result.stdout, dtype=np.float32)


def audio_timeline(scene, args, loudness):
    """Which frames an audio scene keys and which audio frame each one shows.

    One video frame per 1/30 s of audio, frame_start showing the first. Without an explicit
    frameEnd the animation ends with the audio. A still shows the loudest moment.
    Returns (frames, audio_indexes, still_frame).
    """
    if args.frame_end is None:
        args.frame_end = args.frame_start + len(loudness) - 1
        scene.frame_end = args.frame_end
    loudest = max(range(len(loudness)), key=loudness.__getitem__)
    still_frame = args.frame_start + loudest
    frames = list(range(scene.frame_start, scene.frame_end + 1)) if args.animated else [still_frame]
    return frames, [frame - args.frame_start for frame in frames], still_frame


def level_at(levels, index):
    """The level at an audio frame index; silence past the end of the audio."""
    return levels[index] if 0 <= index < len(levels) else 0.0


def meter(levels, release=0.82):
    """Instant attack, slow release, like a VU meter: raw per-frame levels flicker."""
    smoothed, previous = [], 0.0
    for value in levels:
        previous = max(value, previous * release)
        smoothed.append(previous)
    return smoothed


# --------------------------------------------------------------------------- output


def add_preview_watermark(scene):
    """A semi-transparent PREVIEW across the middle of test renders, parented to the camera
    so it follows camera moves; hidden from light paths so the scene itself is unchanged."""
    camera = scene.camera
    distance = camera.data.clip_start * 4
    width, height = view_size_at(camera, distance)
    text = add_text("PreviewWatermark", "PREVIEW", size=1.0, extrude=0.0)
    dims = object_dimensions(text)
    factor = min(0.6 * width / dims.x, 0.3 * height / dims.y)
    text.scale = (factor, factor, factor)
    text.parent = camera
    text.location = (0, 0, -distance)
    text.rotation_euler = (0, 0, math.radians(12))
    material = bpy.data.materials.new("PreviewWatermark")
    material.use_nodes = True
    nodes, links = material.node_tree.nodes, material.node_tree.links
    nodes.remove(nodes["Principled BSDF"])
    emission = nodes.new("ShaderNodeEmission")
    emission.inputs["Color"].default_value = (1, 1, 1, 1)
    emission.inputs["Strength"].default_value = 1.5
    transparent = nodes.new("ShaderNodeBsdfTransparent")
    mix = nodes.new("ShaderNodeMixShader")
    mix.inputs["Fac"].default_value = 0.45  # opacity of the white text
    links.new(transparent.outputs[0], mix.inputs[1])
    links.new(emission.outputs[0], mix.inputs[2])
    links.new(mix.outputs[0], nodes["Material Output"].inputs["Surface"])
    assign_material(text, material)
    hide_from_light_paths(text)


def frames_to_render(args, still_frame):
    if not args.animated:
        return [still_frame if still_frame is not None else args.frame_start]
    if args.frames:
        return args.frames
    return list(range(args.frame_start, args.frame_end + 1))


def output_path(args, frame):
    name = args.frame_pattern % frame if args.animated else args.still_file
    return os.path.join(args.output_dir, name)


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
    from array import array

    stem = target[:-len(".png")]
    exr, raw = stem + ".passes.exr", stem + ".clean.f32"
    settings = scene.render.image_settings
    frame_format = (settings.file_format, settings.color_mode, settings.color_depth)
    settings.file_format = "OPEN_EXR_MULTILAYER"
    settings.exr_codec = "NONE"  # the worker's reader takes uncompressed EXR only
    settings.color_depth = "32"
    scene.render.filepath = exr
    bpy.ops.render.render(write_still=True)
    control("DENOISE", json.dumps({"frame": frame, "exr": exr, "raw": raw}))
    reply = control_reply()
    if reply != "DENOISED":
        raise RuntimeError(f"frame {frame} was not denoised: {reply or 'no answer from the worker'}")
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
    settings.file_format, settings.color_mode, settings.color_depth = frame_format
    image.save_render(target, scene=scene)
    os.remove(exr)
    os.remove(raw)


def run(build):
    """Entry point of every scene script: see the module docstring."""
    try:
        args = read_args()
        scene = reset_scene()
        configure_render(scene, args)
        log(f"scene {args.scene_id}, {args.mode}, options {json.dumps(args.options, sort_keys=True)}")
        still_frame = build(scene, args)
        if args.is_test:
            add_preview_watermark(scene)
        render_frames(scene, args, still_frame)
    except UserError as error:
        control("ERROR", error)
        sys.exit(2)
    except Exception:
        traceback.print_exc()
        sys.stderr.flush()
        sys.exit(1)


# --------------------------------------------------------------------------- limits


@contextlib.contextmanager
def time_limit(seconds, message):
    """A wall-clock limit on one step, kept by the worker (render/blender.ts): a signal
    inside Blender would wait for a C++ importer to return, the worker can stop it."""
    control("LIMIT", f"{int(seconds)} {message}")
    try:
        yield
    finally:
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
