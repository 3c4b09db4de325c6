"""Scene 6, Bus Stop: a city bus shelter at dusk with the user's image on its backlit poster.

The image is placed on the poster by the alignment data from the customisation screen's
'Image Alignment Preview', so the render matches what the user saw there:

- the poster is POSTER_W x POSTER_H (2:3 portrait); at scale 100 the image is fitted
  inside it keeping its aspect ratio (like CSS object-fit: contain), centred;
- scale (percent, 50..150) resizes the fitted image around its centre;
- x, y (percent, -100..100) move it by that share of the poster's width and height, x to the
  right and y downwards (screen convention), as the preview's CSS translate(x%, y%) does;
- the image is printed at full strength: opacity and blendMode in the alignment data are
  the preview's template overlay (how the frame shows over the image while aligning it,
  shared/alignment.ts), not the poster's, so they are not read here. Where the placed image
  leaves part of the poster uncovered, the empty backlit poster shows.

Extra argument: "posterTemplate": true renders only the poster frame, face on and
orthographic, with a transparent window where the poster is: the template image that
the alignment preview overlays on the user's image (web/public/previews/bus-stop-template.png).
Animation: a slow dolly towards the shelter.
"""

import math
import os
import sys

import bpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import building  # noqa: E402
import media  # noqa: E402
import protocol  # noqa: E402

GROUND = 0.15  # pavement top
POSTER_W, POSTER_H = 1.0, 1.5
POSTER_CENTRE = (1.05, 0.635, GROUND + 1.15)
EMPTY_POSTER = (0.72, 0.72, 0.7, 1)


def build(scene, args):
    template_only = bool(args.raw.get("posterTemplate"))
    image = None if template_only else media.load_image(media.require_input(args, "an image"), args.raw["imageLimits"])

    building.set_world((0.09, 0.055, 0.06, 1), 1.0, top_color=(0.012, 0.018, 0.05, 1))
    materials = make_materials()
    add_street(materials)
    add_shelter(materials)
    frame_parts = add_lightbox(materials)
    add_poster(image, args.alignment or {})
    add_bus_sign(materials)
    building.add_light("SUN", "Moon", (0, 0, 10), (2, 3, 0), 0.4, (0.6, 0.7, 1.0))
    building.add_light("AREA", "ShelterLamp", (0, 0, GROUND + 2.35), (0, 0, 0), 120, (1.0, 0.85, 0.65), size=2.5)
    building.add_light("POINT", "StreetLamp", (-4, -2.5, 4.5), (0, 0, 0), 300, (1.0, 0.75, 0.45), size=0.3)

    if template_only:
        frame_template_camera(scene, frame_parts)
        return None
    start_at, end_at, target = (-3.0, -7.8, 1.8), (-1.9, -6.0, 1.6), (0.6, 0.45, 1.35)
    camera = building.add_camera(start_at if args.animated else end_at, target, lens=40)
    if args.animated:
        building.key_transform(camera, scene.frame_start, location=start_at)
        building.key_transform(camera, scene.frame_end, location=end_at)
        # Re-aiming each frame keeps the shelter centred while the camera moves.
        track = camera.constraints.new("TRACK_TO")
        track.target = building.add_empty("CameraTarget", target)
        track.track_axis, track.up_axis = "TRACK_NEGATIVE_Z", "UP_Y"
    return None


def make_materials():
    new = building.principled_material
    return {
        "concrete": new("Concrete", (0.1, 0.1, 0.1, 1), roughness=0.85),
        "asphalt": new("Asphalt", (0.025, 0.025, 0.028, 1), roughness=0.6),
        "brick": new("Wall", (0.16, 0.08, 0.06, 1), roughness=0.9),
        "metal": new("Metal", (0.05, 0.055, 0.06, 1), roughness=0.35, metallic=0.9),
        "aluminium": new("Aluminium", (0.7, 0.72, 0.75, 1), roughness=0.3, metallic=1.0),
        "wood": new("Wood", (0.25, 0.12, 0.05, 1), roughness=0.6),
        "glass": glass_material(),
        "sign": new("Sign", (0.6, 0.02, 0.02, 1), roughness=0.4),
        "white": new("White", (0.9, 0.9, 0.9, 1), roughness=0.4, emission=(1, 1, 1, 1), emission_strength=0.5),
    }


def glass_material():
    material = building.principled_material("Glass", (0.85, 0.92, 0.95, 1), roughness=0.05)
    bsdf = material.node_tree.nodes["Principled BSDF"]
    bsdf.inputs["Transmission"].default_value = 1.0
    bsdf.inputs["IOR"].default_value = 1.5
    return material


def add_street(m):
    building.add_box("Pavement", (14, 5.5, GROUND), (0, 0.75, GROUND / 2), m["concrete"])
    building.add_box("Kerb", (14, 0.25, GROUND + 0.02), (0, -2.1, (GROUND + 0.02) / 2), m["concrete"])
    building.add_box("Road", (40, 14, 0.02), (0, -9, 0.0), m["asphalt"])
    building.add_box("Building", (30, 0.4, 8), (0, 3.7, 4), m["brick"])


def add_shelter(m):
    for x in (-1.7, 1.7):
        for y in (-0.6, 0.72):
            building.add_box("Post", (0.07, 0.07, 2.4), (x, y, GROUND + 1.2), m["metal"])
    building.add_box("Roof", (3.8, 1.75, 0.1), (0, 0.06, GROUND + 2.45), m["metal"])
    building.add_box("BackGlass", (2.0, 0.02, 2.0), (-0.65, 0.72, GROUND + 1.25), m["glass"])
    building.add_box("SideGlass", (0.02, 1.1, 2.0), (-1.7, 0.12, GROUND + 1.25), m["glass"])
    building.add_box("Bench", (1.6, 0.4, 0.05), (-0.65, 0.45, GROUND + 0.45), m["wood"])
    for x in (-1.3, 0.0):
        building.add_box("BenchLeg", (0.05, 0.35, 0.43), (x, 0.45, GROUND + 0.215), m["metal"])


def add_lightbox(m):
    """The poster's case and frame; returns the frame bars around the poster window."""
    x, y, z = POSTER_CENTRE
    building.add_box("PosterCase", (POSTER_W + 0.2, 0.16, POSTER_H + 0.3), (x, y + 0.085, z), m["metal"])
    lip, overlap, front = 0.06, 0.02, y - 0.01
    # The lip covers the poster's edge by `overlap`, as in a real snap frame.
    half_w, half_h = POSTER_W / 2, POSTER_H / 2
    bars = [
        building.add_box("FrameTop", (POSTER_W + 2 * lip, 0.02, lip), (x, front, z + half_h + lip / 2 - overlap), m["aluminium"]),
        building.add_box("FrameBottom", (POSTER_W + 2 * lip, 0.02, lip), (x, front, z - half_h - lip / 2 + overlap), m["aluminium"]),
        building.add_box("FrameLeft", (lip, 0.02, POSTER_H), (x - half_w - lip / 2 + overlap, front, z), m["aluminium"]),
        building.add_box("FrameRight", (lip, 0.02, POSTER_H), (x + half_w + lip / 2 - overlap, front, z), m["aluminium"]),
    ]
    return bars


def add_poster(image, alignment):
    poster = building.add_grid("Poster", POSTER_W, POSTER_H, 1, 1)
    poster.location = POSTER_CENTRE
    poster.rotation_euler = (math.radians(90), 0, 0)  # stand it up, facing the street (-Y)
    return building.assign_material(poster, poster_material(image, alignment))


def poster_material(image, alignment):
    material = building.principled_material("Poster", EMPTY_POSTER, roughness=0.3)
    nodes, links = material.node_tree.nodes, material.node_tree.links
    bsdf = nodes["Principled BSDF"]
    bsdf.inputs["Emission Strength"].default_value = 1.4  # backlit, as lightboxes are
    if image is None:
        bsdf.inputs["Emission"].default_value = EMPTY_POSTER
        return material

    placement = image_placement(image.size, alignment)
    coords = nodes.new("ShaderNodeTexCoord")
    mapping = nodes.new("ShaderNodeMapping")
    mapping.inputs["Location"].default_value = placement["location"]
    mapping.inputs["Scale"].default_value = placement["scale"]
    texture = nodes.new("ShaderNodeTexImage")
    texture.image = image
    texture.extension = "CLIP"  # outside the placed image: alpha 0, the empty poster shows
    # The image's own alpha is the only mix: where it is opaque the poster is the image itself.
    blend = nodes.new("ShaderNodeMixRGB")
    blend.blend_type = "MIX"
    blend.inputs["Color1"].default_value = EMPTY_POSTER
    links.new(coords.outputs["UV"], mapping.inputs["Vector"])
    links.new(mapping.outputs["Vector"], texture.inputs["Vector"])
    links.new(texture.outputs["Alpha"], blend.inputs["Fac"])
    links.new(texture.outputs["Color"], blend.inputs["Color2"])
    links.new(blend.outputs["Color"], bsdf.inputs["Base Color"])
    links.new(blend.outputs["Color"], bsdf.inputs["Emission"])
    return material


def image_placement(image_size, alignment):
    """Mapping node values that put the image on the poster's 0..1 UVs as the module
    docstring describes (scale and position only)."""
    width, height = image_size
    image_aspect, poster_aspect = width / height, POSTER_W / POSTER_H
    scale = number(alignment, "scale", 100, 10, 400) / 100
    # Image size as a fraction of the poster (contain fit, then the user's scale).
    if image_aspect > poster_aspect:
        size_u, size_v = scale, scale * poster_aspect / image_aspect
    else:
        size_u, size_v = scale * image_aspect / poster_aspect, scale
    centre_u = 0.5 + number(alignment, "x", 0, -100, 100) / 100
    centre_v = 0.5 - number(alignment, "y", 0, -100, 100) / 100  # UV v grows upwards, screen y down
    # Mapping (type Point) computes uv * Scale + Location; we need (uv - corner) / size.
    corner_u, corner_v = centre_u - size_u / 2, centre_v - size_v / 2
    return {
        "scale": (1 / size_u, 1 / size_v, 1),
        "location": (-corner_u / size_u, -corner_v / size_v, 0),
    }


def number(mapping, key, default, lo, hi):
    try:
        value = float(mapping.get(key, default))
    except (TypeError, ValueError):
        return default
    return min(hi, max(lo, value)) if math.isfinite(value) else default


def add_bus_sign(m):
    x, y = 2.2, -1.3
    bpy.ops.mesh.primitive_cylinder_add(vertices=24, radius=0.035, depth=2.5, location=(x, y, GROUND + 1.25))
    building.assign_material(bpy.context.active_object, m["metal"])
    bpy.ops.mesh.primitive_cylinder_add(vertices=64, radius=0.3, depth=0.03, location=(x, y, GROUND + 2.25),
                                        rotation=(math.radians(90), 0, 0))
    building.assign_material(bpy.context.active_object, m["sign"])
    label = building.add_text("SignLabel", "BUS", size=0.2, extrude=0.005)
    label.location = (x, y - 0.02, GROUND + 2.25)
    label.rotation_euler = (math.radians(90), 0, 0)
    building.assign_material(label, m["white"])


def frame_template_camera(scene, frame_parts):
    """Face-on orthographic view of exactly the poster window, transparent where the
    poster is, for the alignment preview's overlay."""
    x, y, z = POSTER_CENTRE
    camera = building.add_camera((x, y - 3, z), POSTER_CENTRE)
    camera.data.type = "ORTHO"
    # The poster fits the image exactly when the image is 2:3; other aspects add margins.
    aspect = scene.render.resolution_x / scene.render.resolution_y
    if aspect <= POSTER_W / POSTER_H:
        visible_w, visible_h = POSTER_W, POSTER_W / aspect
    else:
        visible_w, visible_h = POSTER_H * aspect, POSTER_H
    # With sensor fit AUTO the ortho scale spans the longer side of the image.
    camera.data.ortho_scale = max(visible_w, visible_h)
    for obj in scene.objects:
        if obj.type not in ("CAMERA", "LIGHT") and obj not in frame_parts:
            obj.visible_camera = False  # it still lights and shadows the frame as in the scene
    scene.render.film_transparent = True
    scene.render.image_settings.color_mode = "RGBA"


protocol.run(build)
