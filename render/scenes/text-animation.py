"""Scene 1, Text Animation: the user's text as extruded 3D letters in a studio.

Options: backgroundStyle cold|hot (lighting and backdrop palette), textColor #rrggbb.
Animation: the text flies in spinning, then sways.
"""

import math
import os
import sys
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import building  # noqa: E402
import protocol  # noqa: E402

DEFAULT_TEXT = "Hello"
TEXT_CENTRE = (0.0, 0.0, 1.1)

# Colours are linear RGB. The world and backdrop carry the mood; the rim lights make the
# letter edges glow in the style's colours.
STYLES = {
    "cold": {
        "horizon": (0.006, 0.025, 0.06, 1), "sky": (0.01, 0.06, 0.14, 1),
        "backdrop": (0.03, 0.1, 0.18, 1),
        "key": (0.7, 0.85, 1.0), "rim_left": (0.1, 0.85, 1.0), "rim_right": (0.15, 0.3, 1.0),
    },
    "hot": {
        "horizon": (0.07, 0.012, 0.003, 1), "sky": (0.16, 0.03, 0.005, 1),
        "backdrop": (0.22, 0.05, 0.012, 1),
        "key": (1.0, 0.78, 0.55), "rim_left": (1.0, 0.45, 0.05), "rim_right": (1.0, 0.08, 0.03),
    },
}


def build(scene, args):
    style = STYLES[args.style()]
    text_color = args.option_color("textColor")

    building.set_world(style["horizon"], 1.0, top_color=style["sky"])
    building.add_cyclorama(building.principled_material("Backdrop", style["backdrop"], roughness=0.55))
    camera = building.add_camera((0, -9, 1.6), TEXT_CENTRE, lens=50)
    building.add_light("AREA", "Key", (-4, -6, 5), TEXT_CENTRE, 900, style["key"], size=4)
    building.add_light("AREA", "RimLeft", (-4.5, 3, 3), TEXT_CENTRE, 1500, style["rim_left"], size=2)
    building.add_light("AREA", "RimRight", (4.5, 3, 2.5), TEXT_CENTRE, 1500, style["rim_right"], size=2)

    rig = building.add_empty("TextRig", TEXT_CENTRE)
    text = building.add_text("Text", wrap(args.custom_text.strip() or DEFAULT_TEXT, scene), size=1.0,
                           extrude=0.16, bevel=0.015)
    text.data.resolution_u = 6  # smooth enough at 4K, half the default's geometry
    text.rotation_euler = (math.radians(90), 0, 0)  # stand the letters up, facing the camera
    text.parent = rig
    text_material = building.principled_material(
        "Text", text_color, roughness=0.3, metallic=0.35, clearcoat=0.5,
        # A little self-glow keeps the picked colour recognisable under coloured lights.
        emission=text_color, emission_strength=0.2)
    building.assign_material(text, text_material)
    fit_text(text, camera)

    if args.animated:
        animate_fly_in(scene, rig)
    else:
        rig.rotation_euler = (0, 0, math.radians(-14))
    return None


def wrap(body, scene):
    """Breaks long single-line text into lines that suit the frame's shape, so it is not
    shrunk to a thin strip (a vertical 1080x1920 frame gets short lines)."""
    if "\n" in body:
        return body  # the user chose the lines
    portrait = scene.render.resolution_x < scene.render.resolution_y
    width = max([10 if portrait else 22] + [len(word) for word in body.split()])
    return "\n".join(textwrap.wrap(body, width)) or body


def fit_text(text, camera):
    """Scales the text so any length fits the frame, whatever the aspect ratio."""
    dims = building.object_dimensions(text)
    distance = (camera.location - text.parent.location).length
    view_w, view_h = building.view_size_at(camera, distance)
    factor = min(0.78 * view_w / max(dims.x, 1e-3), 0.42 * view_h / max(dims.y, 1e-3))
    text.scale = (factor, factor, factor)


def animate_fly_in(scene, rig):
    """Fly in from behind and above while spinning (first 40%), then a slow sway. The
    start stays in front of the backdrop wall (y=6), which would hide the text."""
    start, end = scene.frame_start, scene.frame_end
    landed = start + max(1, round(0.4 * (end - start)))
    x, y, z = TEXT_CENTRE
    building.key_transform(rig, start, location=(x, y + 4, z + 1.2),
                         rotation=(0, 0, math.radians(-200)), scale=(0.3, 0.3, 0.3))
    building.key_transform(rig, landed, location=TEXT_CENTRE,
                         rotation=(0, 0, math.radians(-10)), scale=(1, 1, 1))
    if end > landed:
        building.key_transform(rig, end, rotation=(0, 0, math.radians(10)))


protocol.run(build)
