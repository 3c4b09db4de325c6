"""Scene 7, Audio Reactive with dark drop: a glossy sphere that churns with the audio.

The surface is displaced by moving noise whose depth follows the loudness; rim lights and
a fresnel glow in the style's colour pulse with it. Just before the track's drop (its
biggest jump in loudness) the lights black out, and the drop hits with a flash.
Options: backgroundStyle cold|hot, sphereColor #rrggbb, intensity (how far the surface
deforms).
"""

import math
import os
import sys

import bpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import building  # noqa: E402
import media  # noqa: E402
import protocol  # noqa: E402

CENTRE = (0.0, 0.0, 1.35)
RADIUS = 1.1
BLACKOUT_SECONDS = 0.5
FLASH_SECONDS = 1.0

STYLES = {
    "cold": {"accent": (0.05, 0.4, 1.0, 1), "world": (0.001, 0.003, 0.008, 1), "key": (0.75, 0.85, 1.0)},
    "hot": {"accent": (1.0, 0.2, 0.02, 1), "world": (0.008, 0.002, 0.0005, 1), "key": (1.0, 0.82, 0.65)},
}


def build(scene, args):
    style = STYLES[args.style()]
    sphere_color = args.option_color("sphereColor")
    raw, _ = media.load_audio_levels(media.require_input(args, "an audio file"), args.fps, args.max_audio_seconds)
    loudness = media.meter(raw, release=0.88)
    light_gain = drop_light_gain(raw, args.fps)
    frames, indexes, still_frame = media.audio_timeline(scene, args, loudness)
    level = [media.level_at(loudness, i) for i in indexes]
    gain = [light_gain[i] if i < len(light_gain) else 1.0 for i in indexes]

    building.set_world(style["world"], 1.0)
    building.as_ground(building.add_box("Floor", (40, 40, 0.1), (0, 0, -0.05),
                                     building.principled_material("Floor", (0.004, 0.004, 0.005, 1), roughness=0.12)))
    building.add_camera((0, -7.5, 1.9), CENTRE, lens=50)
    key = building.add_light("AREA", "Key", (-3, -4, 5), CENTRE, 250, style["key"], size=3)
    rims = [building.add_light("AREA", f"Rim{side}", (3.5 * side, 3, 3.5), CENTRE, 400,
                             style["accent"][:3], size=1.5) for side in (-1, 1)]

    sphere, material = add_sphere(sphere_color, style["accent"], args)
    displace = sphere.modifiers["Churn"]
    building.set_keys(sphere, displace.path_from_id("strength"), frames, [(0.02 + 0.16 * v) * args.option("intensity") for v in level])
    strength = material.node_tree.nodes["Principled BSDF"].inputs["Emission Strength"]
    building.set_keys(material.node_tree, strength.path_from_id("default_value"), frames,
                    [(0.2 + 1.5 * v) * g for v, g in zip(level, gain)])
    building.set_keys(key.data, "energy", frames, [250 * min(1.0, g) for g in gain])
    for rim in rims:
        building.set_keys(rim.data, "energy", frames, [(150 + 700 * v) * g for v, g in zip(level, gain)])
    # The noise drifts steadily, so even quiet passages breathe.
    drift = displace.texture_coords_object
    building.set_keys(drift, "location", frames, [0.02 * (f - scene.frame_start) for f in frames], index=2)
    building.set_keys(drift, "rotation_euler", frames, [0.01 * (f - scene.frame_start) for f in frames], index=0)
    return still_frame


def add_sphere(color, accent, args):
    segments = 96 if args.is_test else 192
    sphere = building.add_uv_sphere("Sphere", RADIUS, CENTRE, segments=segments, rings=segments // 2)
    noise = bpy.data.textures.new("Churn", "CLOUDS")
    noise.noise_scale = 0.9
    noise.noise_depth = 2
    displace = sphere.modifiers.new("Churn", "DISPLACE")
    displace.texture = noise
    displace.texture_coords = "OBJECT"
    displace.texture_coords_object = building.add_empty("NoiseDrift", CENTRE)
    displace.mid_level = 0.5

    material = building.principled_material("Sphere", color, roughness=0.22, metallic=0.6, clearcoat=1.0,
                                          emission=accent, emission_strength=0.3)
    nodes, links = material.node_tree.nodes, material.node_tree.links
    # The glow sits on the silhouette (fresnel), like light wrapping round the edges.
    fresnel = nodes.new("ShaderNodeLayerWeight")
    fresnel.inputs["Blend"].default_value = 0.5
    edge = nodes.new("ShaderNodeMath")
    edge.operation = "POWER"
    edge.inputs[1].default_value = 3.0  # keeps the glow on the rim, the body shows its colour
    tint = nodes.new("ShaderNodeMixRGB")
    tint.inputs["Color1"].default_value = (0, 0, 0, 1)
    tint.inputs["Color2"].default_value = accent
    links.new(fresnel.outputs["Facing"], edge.inputs[0])
    links.new(edge.outputs["Value"], tint.inputs["Fac"])
    links.new(tint.outputs["Color"], nodes["Principled BSDF"].inputs["Emission"])
    building.assign_material(sphere, material)
    return sphere, material


def drop_light_gain(loudness, fps):
    """Per audio frame light multiplier: 1 normally, near 0 in the blackout before the drop,
    up to 2.5 at the drop fading back to 1. Tracks shorter than 3 s have no drop."""
    gain = [1.0] * len(loudness)
    if len(loudness) < 3 * fps:
        return gain
    before, after = int(1.5 * fps), int(0.5 * fps)

    def mean(values):
        return sum(values) / max(1, len(values))

    candidates = range(before, len(loudness) - after)
    drop = max(candidates, key=lambda i: mean(loudness[i:i + after]) - mean(loudness[i - before:i]))
    protocol.log(f"drop at {drop / fps:.2f}s")
    for i in range(max(0, drop - int(BLACKOUT_SECONDS * fps)), drop):
        gain[i] = 0.05
    flash = int(FLASH_SECONDS * fps)
    for k in range(min(flash, len(loudness) - drop)):
        gain[drop + k] = 1.0 + 1.5 * (1 - k / flash)
    return gain


protocol.run(build)
