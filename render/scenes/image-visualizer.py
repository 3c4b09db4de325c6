"""Scene 2, Image Visualizer: the user's image as a 3D relief slab.

The image is both the colour and the height map of a finely divided plane (bright parts
rise), given thickness like a cast tile and shown in a dark studio. Animation: the camera orbits in an arc in front of the relief.
"""

import math
import os
import sys

import bpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import building  # noqa: E402
import media  # noqa: E402
import protocol  # noqa: E402

MAX_WIDTH, MAX_HEIGHT = 3.6, 2.8
PLINTH_HEIGHT = 0.2
LEAN_DEGREES = 10
ORBIT_DEGREES = 70


def build(scene, args):
    image = media.load_image(media.require_input(args, "an image"), args.raw["imageLimits"])
    width, height = image.size
    aspect = width / height
    size_x = min(MAX_WIDTH, MAX_HEIGHT * aspect)
    size_y = size_x / aspect

    building.set_world((0.01, 0.01, 0.012, 1), 1.0, top_color=(0.03, 0.03, 0.04, 1))
    building.add_cyclorama(building.principled_material("Floor", (0.05, 0.05, 0.055, 1), roughness=0.35))
    stone = building.principled_material("Plinth", (0.02, 0.02, 0.022, 1), roughness=0.25)
    building.add_box("Plinth", (size_x + 0.4, 0.8, PLINTH_HEIGHT), (0, 0.1, PLINTH_HEIGHT / 2), stone)
    relief = add_relief(image, size_x, size_y, args)
    # Leaning back a little catches the key light on the relief's slopes.
    relief.rotation_euler = (math.radians(90 - LEAN_DEGREES), 0, 0)
    relief.location = (0, 0, PLINTH_HEIGHT + size_y / 2 * math.cos(math.radians(LEAN_DEGREES)))
    centre = tuple(relief.location)

    pivot = building.add_empty("CameraPivot", centre)
    building.add_camera((0, -10, centre[2] + 0.8), centre, lens=45, parent=pivot)
    building.add_light("AREA", "Key", (-4, -4, 5), centre, 700, (1.0, 0.95, 0.9), size=3)
    building.add_light("AREA", "Fill", (4, -5, 2), centre, 250, (0.85, 0.9, 1.0), size=4)
    building.add_light("AREA", "Rim", (0, 3, 5), centre, 500, (1, 1, 1), size=3)

    if args.animated:
        half = math.radians(ORBIT_DEGREES / 2)
        building.key_transform(pivot, scene.frame_start, rotation=(0, 0, -half))
        building.key_transform(pivot, scene.frame_end, rotation=(0, 0, half))
    else:
        pivot.rotation_euler = (0, 0, math.radians(-18))
    return None


def add_relief(image, size_x, size_y, args):
    # About 2 cm per quad on the long side: fine enough for detail, ~60k faces at most.
    cuts = 128 if args.is_test else 220
    cuts_x = max(8, round(cuts * size_x / MAX_WIDTH))
    cuts_y = max(8, round(cuts * size_y / MAX_WIDTH))
    relief = building.add_grid("Relief", size_x, size_y, cuts_x, cuts_y)

    texture = bpy.data.textures.new("ReliefHeight", "IMAGE")
    texture.image = image
    displace = relief.modifiers.new("Relief", "DISPLACE")
    displace.texture = texture
    displace.texture_coords = "UV"
    displace.mid_level = 0.0
    displace.strength = 0.35
    # Photos are noisy height maps: smoothing turns pixel noise into soft sculpted slopes.
    smooth = relief.modifiers.new("Soften", "SMOOTH")
    smooth.factor = 0.8
    smooth.iterations = 3
    solidify = relief.modifiers.new("Thickness", "SOLIDIFY")
    solidify.thickness = 0.12
    solidify.offset = -1.0

    building.assign_material(relief, building.image_material("Relief", image, roughness=0.45, glow=0.15))
    return relief


protocol.run(build)
