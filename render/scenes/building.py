"""Scene building for the scene scripts: render settings, colours, cameras, lights,
materials, geometry, keyframes and the PREVIEW watermark of test renders."""

import math
import os

import bmesh
import bpy
from mathutils import Vector

BOLD_FONT_CANDIDATES = (
    "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Bold.ttf",
)


# --------------------------------------------------------------------------- colours


def srgb_to_linear(c):
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def hex_to_linear(value, fallback="#ffffff"):
    """'#rrggbb' (or '#rgb') as linear RGBA; fallback when value is not a colour."""
    channels = parse_hex(value) or parse_hex(fallback) or (1.0, 1.0, 1.0)
    return tuple(srgb_to_linear(c) for c in channels) + (1.0,)


def parse_hex(value):
    text = (value or "").strip().lstrip("#")
    if len(text) == 3:
        text = "".join(ch * 2 for ch in text)
    try:
        return tuple(int(text[i:i + 2], 16) / 255 for i in (0, 2, 4)) if len(text) == 6 else None
    except ValueError:
        return None



# --------------------------------------------------------------------------- scene setup


TRANSPARENT = False
# The world's light map: Cycles' automatic one (1024 wide) costs about a second of one core to
# build per render; a test render's or preview's few samples see no difference with a small one.
WORLD_MAP_RESOLUTION = None


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
    cycles.adaptive_min_samples = args.min_samples
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
    global TRANSPARENT, WORLD_MAP_RESOLUTION
    TRANSPARENT = args.transparent
    WORLD_MAP_RESOLUTION = 64 if args.is_test else None
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
    if WORLD_MAP_RESOLUTION:
        world.cycles.sampling_method = "MANUAL"
        world.cycles.sample_map_resolution = WORLD_MAP_RESOLUTION
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


# --------------------------------------------------------------------------- watermark


def add_preview_watermark(scene):
    """A semi-transparent PREVIEW, small in the bottom-right corner of test renders and live
    previews: they exist to check the customer's text and image, which sit in the middle, so
    the mark must leave those readable. Parented to the camera so it follows camera moves;
    hidden from light paths so the scene is unchanged."""
    camera = scene.camera
    distance = camera.data.clip_start * 4
    width, height = view_size_at(camera, distance)
    text = add_text("PreviewWatermark", "PREVIEW", size=1.0, extrude=0.0)
    dims = object_dimensions(text)
    text.parent = camera
    factor = min(0.2 * width / dims.x, 0.1 * height / dims.y)
    margin = 0.04 * height
    text.location = (width / 2 - factor * dims.x / 2 - margin, -height / 2 + factor * dims.y / 2 + margin, -distance)
    text.scale = (factor, factor, factor)
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
