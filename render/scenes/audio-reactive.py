"""Scene 3, Audio Reactive: a ring of glowing bars that dance to the user's audio.

Each bar shows one frequency band (low to high around each half of the ring, mirrored),
a chrome core swells with the overall loudness and the glow follows it too. One video
frame per 1/30 s of audio. Options: intensity (how far the bars jump).
"""

import colorsys
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import building  # noqa: E402
import media  # noqa: E402
import protocol  # noqa: E402

BANDS = 24
RING_RADIUS = 3.0
BAR_BASE = 0.08
BAR_MAX = 1.8
SECONDS_PER_TURN = 24


def build(scene, args):
    loudness, spectrum = media.load_audio_levels(media.require_input(args, "an audio file"), args.fps, args.max_audio_seconds, bands=BANDS)
    loudness = media.meter(loudness)
    bands = [media.meter([row[b] for row in spectrum]) for b in range(BANDS)]
    frames, indexes, still_frame = media.audio_timeline(scene, args, loudness)
    level = [media.level_at(loudness, i) for i in indexes]

    building.set_world((0.002, 0.002, 0.004, 1), 1.0)
    building.as_ground(building.add_box("Floor", (40, 40, 0.1), (0, 0, -0.05),
                                     building.principled_material("Floor", (0.01, 0.01, 0.012, 1), roughness=0.18)))
    building.add_camera((0, -10.5, 6.0), (0, 0, 0.5), lens=35)
    building.add_light("AREA", "Top", (0, -2, 7), (0, 0, 0), 300, (0.9, 0.92, 1.0), size=6)

    ring = building.add_empty("Ring")
    glow = bar_material()
    height_scale = BAR_MAX * args.option("intensity")
    for i in range(2 * BANDS):
        band = i if i < BANDS else 2 * BANDS - 1 - i  # mirrored: a symmetric ring
        angle = 2 * math.pi * i / (2 * BANDS) - math.pi / 2  # lowest band at the front
        bar = building.add_box(f"Bar{i:02d}", (0.2, 0.32, 1.0), (0, 0, 0), glow, bottom_origin=True)
        bar.location = (RING_RADIUS * math.cos(angle), RING_RADIUS * math.sin(angle), 0)
        bar.rotation_euler = (0, 0, angle)
        bar.color = colorsys.hsv_to_rgb(0.55 + 0.35 * band / BANDS, 0.85, 1.0) + (1.0,)
        bar.parent = ring
        heights = [BAR_BASE + height_scale * media.level_at(bands[band], j) for j in indexes]
        building.set_keys(bar, "scale", frames, heights, index=2)

    core = building.add_uv_sphere("Core", 0.9, (0, 0, 1.0), segments=64, rings=32)
    building.assign_material(core, building.principled_material("Chrome", (0.9, 0.9, 0.95, 1),
                                                            roughness=0.08, metallic=1.0))
    for axis in range(3):
        building.set_keys(core, "scale", frames, [0.75 + 0.45 * args.option("intensity") * v for v in level], index=axis)

    strength = glow.node_tree.nodes["Principled BSDF"].inputs["Emission Strength"]
    building.set_keys(glow.node_tree, strength.path_from_id("default_value"), frames,
                    [0.6 + 1.8 * v for v in level])
    turns = [(f - scene.frame_start) / (args.fps * SECONDS_PER_TURN) * 2 * math.pi for f in frames]
    building.set_keys(ring, "rotation_euler", frames, turns, index=2)
    return still_frame


def bar_material():
    """One material for every bar: each bar's own colour comes from its object colour."""
    material = building.principled_material("BarGlow", (1, 1, 1, 1), roughness=0.35,
                                          emission=(1, 1, 1, 1), emission_strength=1.0)
    nodes, links = material.node_tree.nodes, material.node_tree.links
    info = nodes.new("ShaderNodeObjectInfo")
    bsdf = nodes["Principled BSDF"]
    links.new(info.outputs["Color"], bsdf.inputs["Base Color"])
    links.new(info.outputs["Color"], bsdf.inputs["Emission"])
    return material


protocol.run(build)
