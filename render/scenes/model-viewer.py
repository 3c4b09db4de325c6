"""Scene 4, 3D Model Viewer: the user's model on a turntable in a photo studio.

Accepts .fbx .obj .stl .gltf .glb (and .usd/.usda/.usdc when this Blender has USD). The
model is centred, scaled to fit and set on a pedestal; parts without a material get a
neutral clay one. Options: rotation (degrees the turntable is turned, default 30).
Animation: one full, seamless 360 degree turn over the frame range.
"""

import math
import os
import sys

import addon_utils
import bpy
import numpy as np
from mathutils import Vector

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import building  # noqa: E402
import media  # noqa: E402
import protocol  # noqa: E402

FIT_SIZE = 2.2  # the model's largest dimension after scaling
PEDESTAL_HEIGHT = 0.3
PEDESTAL_RADIUS = FIT_SIZE * 0.62
USD_EXTENSIONS = (".usd", ".usda", ".usdc")
FORMATS = ".fbx, .obj, .stl, .gltf, .glb"
# The importers run under their own limits: a model within the upload caps imports in
# seconds and well under 1.5 GB (`npm run bench:model-import`); these leave room for
# slower machines and still stop a crafted file long before the worker's memory is gone.
IMPORT_SECONDS = 120
IMPORT_MEMORY_BYTES = 2560 * 1024 * 1024
IMPORT_TOO_SLOW = "The uploaded model took more than 2 minutes to import. Please simplify it and upload it again."
IMPORT_TOO_BIG = "The uploaded model needs more memory than a render allows. Please simplify it and upload it again."
# Images stay as files (not packed) so that drop_images_from_disk can find the ones a
# model names on disk; textures embedded in the model are packed by the importers.
IMPORTERS = {
    ".obj": lambda path: bpy.ops.wm.obj_import(filepath=path),
    ".stl": lambda path: enabled("io_mesh_stl") and bpy.ops.import_mesh.stl(filepath=path),
    # Image search would look for a texture's file name through the whole folder tree.
    ".fbx": lambda path: enabled("io_scene_fbx") and bpy.ops.import_scene.fbx(filepath=path, use_image_search=False),
    ".gltf": lambda path: enabled("io_scene_gltf2") and bpy.ops.import_scene.gltf(filepath=path, import_pack_images=False),
    ".glb": lambda path: enabled("io_scene_gltf2") and bpy.ops.import_scene.gltf(filepath=path, import_pack_images=False),
}


def build(scene, args):
    path = media.require_input(args, "a 3D model")
    meshes = import_model(path, args.raw.get("imageLimits") or {})
    protocol.log(f"imported {len(meshes)} mesh object(s)")

    building.set_world((0.05, 0.055, 0.06, 1), 1.0)
    building.add_cyclorama(building.principled_material("Backdrop", (0.18, 0.19, 0.2, 1), roughness=0.6))
    pedestal_material = building.principled_material("Pedestal", (0.03, 0.03, 0.035, 1), roughness=0.3)
    pedestal = add_pedestal(pedestal_material)

    turntable = building.add_empty("Turntable", (0, 0, PEDESTAL_HEIGHT))
    model_size = fit_on_turntable(meshes, turntable)
    pedestal.parent = turntable  # the pedestal turns with the model, like a real turntable
    pedestal.location = (0, 0, -PEDESTAL_HEIGHT / 2)

    target = frame_model(model_size)
    building.add_light("AREA", "Key", (-4, -4, 5), target, 900, (1.0, 0.96, 0.92), size=3)
    building.add_light("AREA", "Fill", (4.5, -3, 2), target, 300, (0.9, 0.95, 1.0), size=4)
    building.add_light("AREA", "Rim", (1, 4, 4), target, 700, (1, 1, 1), size=2)

    facing = math.radians(args.option("rotation"))
    if args.animated:
        # Frame end + 1 is a full turn, so a looping video does not stutter on the seam.
        start, end = scene.frame_start, scene.frame_end
        building.set_keys(turntable, "rotation_euler", [start, end + 1], [facing, facing + 2 * math.pi], index=2)
    else:
        turntable.rotation_euler = (0, 0, facing)
    return None


# Blender 3.4's glTF importer still spells numpy's bool as np.bool, an alias numpy 1.24
# removed: without it every glTF mesh import fails in set_poly_smoothing.
if not hasattr(np, "bool"):
    np.bool = np.bool_


def import_model(path, image_limits):
    """Imports by extension; returns the new mesh objects or raises a UserError."""
    extension = os.path.splitext(path)[1].lower()
    importers = dict(IMPORTERS)
    if extension in USD_EXTENSIONS:
        if not bpy.app.build_options.usd:
            raise protocol.UserError("USD files are not supported by this Blender build.")
        importers[extension] = lambda path: bpy.ops.wm.usd_import(filepath=path)
    if extension not in importers:
        raise protocol.UserError(f"Unsupported 3D model format '{extension or path}'. Use {FORMATS}.")

    unreadable = f"The uploaded file is not a readable {extension[1:].upper()} model."
    before = set(bpy.data.objects)
    images_before = set(bpy.data.images)
    try:
        with protocol.time_limit(IMPORT_SECONDS, IMPORT_TOO_SLOW), protocol.memory_limit(IMPORT_MEMORY_BYTES):
            result = importers[extension](path)
            drop_images_from_disk(images_before)
            check_embedded_images(images_before, image_limits)
    except protocol.UserError:
        raise
    except Exception as error:  # importers raise RuntimeError, ValueError, struct.error...
        protocol.log(f"import failed: {type(error).__name__}: {error}")
        # A Python importer's MemoryError reaches us inside the operator's RuntimeError.
        if isinstance(error, MemoryError) or "MemoryError" in str(error):
            raise protocol.UserError(IMPORT_TOO_BIG)
        raise protocol.UserError(unreadable)
    if result != {"FINISHED"}:
        raise protocol.UserError(unreadable)
    meshes = [obj for obj in bpy.data.objects if obj not in before and obj.type == "MESH"
              and len(obj.data.vertices) > 0]
    if not meshes:
        raise protocol.UserError(f"{unreadable[:-1]}: it contains no 3D mesh.")
    return meshes


def drop_images_from_disk(images_before):
    """Only the uploaded file reaches the render machine, so an image a model names on
    disk is never the user's: it is some file of the machine's. Such images are removed
    before anything decodes their pixels (Blender reads them lazily, at render time), and
    the surfaces that used them render without that texture."""
    for image in [image for image in bpy.data.images if image not in images_before]:
        if image.packed_file is None and image.source in {"FILE", "SEQUENCE", "MOVIE", "TILED"}:
            protocol.log(f"ignored an image the model names on disk: {protocol.quoted(image.filepath)}")
            bpy.data.images.remove(image)


def check_embedded_images(images_before, limits):
    """Textures packed in the model (FBX, glTF) are decoded here, under the import's limits,
    instead of at render time outside them; one the worker's caps refuse (the same as the
    API's, passed as imageLimits) stops the render with its size, one Blender cannot decode
    within the limits (a decompression bomb) is dropped."""
    max_pixels, max_side = limits.get("maxPixels"), limits.get("maxSide")
    for image in [image for image in bpy.data.images if image not in images_before]:
        if image.packed_file is None:
            continue
        width, height = image.size  # decodes the packed bytes
        if width <= 0 or height <= 0 or not image.has_data:
            protocol.log(f"dropped an embedded image Blender could not decode: {protocol.quoted(image.name)}")
            bpy.data.images.remove(image)
            continue
        if max_pixels and max_side and (width * height > max_pixels or max(width, height) > max_side):
            raise protocol.UserError(
                f"An image inside the model is {width:,} x {height:,} pixels. Images may have at most "
                f"{max_pixels // 1_000_000:,} megapixels and {max_side:,} pixels a side: please upload a smaller one."
            )
    remove_orphan_image_nodes()


def remove_orphan_image_nodes():
    """An image node left without its image renders Cycles' missing-texture magenta; without
    the node the material shows its own base colour."""
    for material in bpy.data.materials:
        if material.node_tree:
            for node in [n for n in material.node_tree.nodes if n.type == "TEX_IMAGE" and n.image is None]:
                material.node_tree.nodes.remove(node)


def enabled(addon):
    addon_utils.enable(addon, default_set=False)
    return True


def fit_on_turntable(meshes, turntable):
    """Centres the model over the turntable, standing on it, scaled to FIT_SIZE."""
    low, high = building.world_bounds(meshes)
    size = max(high - low)
    if size <= 0:
        raise protocol.UserError("The uploaded model is empty: all its points are in one place.")
    factor = FIT_SIZE / size
    centre_x, centre_y = (low.x + high.x) / 2, (low.y + high.y) / 2
    clay = building.principled_material("Clay", (0.55, 0.5, 0.46, 1), roughness=0.55)
    # Parenting the imported roots keeps the model's own hierarchy (FBX/glTF rigs).
    roots = {top_parent(obj) for obj in meshes}
    for obj in meshes:
        if not any(slot.material for slot in obj.material_slots):
            building.assign_material(obj, clay)
        smooth_unless_authored(obj.data)
    # Plain parenting (no inverse matrix): the roots' world placement becomes their place
    # inside the holder, and the holder's transform then moves and scales them all.
    holder = building.add_empty("ModelFit", parent=turntable)
    holder.scale = (factor, factor, factor)
    holder.location = (-centre_x * factor, -centre_y * factor, -low.z * factor)
    for root in roots:
        root.parent = holder
    return (high - low) * factor


def frame_model(size):
    """Places the camera so the model and its pedestal fill the frame at every turntable
    angle, whatever the model's proportions; returns the point it looks at."""
    # The turn sweeps a cylinder as wide as the model's footprint diagonal.
    width = max(math.hypot(size.x, size.y), 2 * PEDESTAL_RADIUS)
    height = PEDESTAL_HEIGHT + size.z
    target = Vector((0, 0, height / 2))
    camera = building.add_camera((0, -10, target.z), target, lens=50)
    # Fit the bounding sphere of that cylinder: safe from any angle and elevation.
    radius = math.hypot(width, height) / 2
    view_w, view_h = building.view_size_at(camera, 1.0)
    half_angle = math.atan(min(view_w, view_h) / 2)
    distance = 1.05 * radius / math.sin(half_angle)
    elevation = math.radians(14)
    camera.location = target + distance * Vector((0, -math.cos(elevation), math.sin(elevation)))
    building.look_at(camera, target)
    return tuple(target)


def smooth_unless_authored(mesh):
    """STL and many OBJ files carry no normals and would show every facet; auto smooth
    rounds curved surfaces and keeps edges sharper than 30 degrees. Normals that the
    artist authored are kept."""
    if mesh.has_custom_normals:
        return
    mesh.polygons.foreach_set("use_smooth", [True] * len(mesh.polygons))
    mesh.use_auto_smooth = True
    mesh.auto_smooth_angle = math.radians(30)


def top_parent(obj):
    while obj.parent is not None:
        obj = obj.parent
    return obj


def add_pedestal(material):
    bpy.ops.mesh.primitive_cylinder_add(vertices=96, radius=PEDESTAL_RADIUS, depth=PEDESTAL_HEIGHT)
    pedestal = bpy.context.active_object
    pedestal.name = "Pedestal"
    bevel = pedestal.modifiers.new("Bevel", "BEVEL")
    bevel.width = 0.03
    bevel.segments = 3
    return building.assign_material(pedestal, material)


protocol.run(build)
