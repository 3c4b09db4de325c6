"""Scene 5, Image Balls: glossy balls wrapped in the user's image, in a coloured studio.

Options: backgroundColor #rrggbb (backdrop and ambient light).
Animation: the balls drop in one after another, bounce, spin and settle; a still shows
the settled cluster.
"""

import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import building  # noqa: E402
import media  # noqa: E402
import protocol  # noqa: E402

# (x, y, radius): a loose cluster, big balls at the back so none hides another.
BALLS = [
    (-2.7, 0.9, 0.75), (-1.3, -0.2, 0.9), (0.4, 1.0, 1.15), (2.0, -0.1, 0.85),
    (3.2, 1.2, 0.65), (-0.4, -1.5, 0.55), (1.0, -1.7, 0.5),
]
DROP_HEIGHT = 3.2  # above the resting point: the balls fall in from the top of the frame
DROP_INTERVAL = 0.18  # seconds between one ball's release and the next
SPIN_PER_SECOND = math.radians(240)


def build(scene, args):
    image = media.load_image(media.require_input(args, "an image"), args.raw["imageLimits"])
    background = args.option_color("backgroundColor")

    building.set_world(background, 0.6)  # the room's colour also tints the balls' reflections
    building.add_cyclorama(building.principled_material("Backdrop", background, roughness=0.7))
    building.add_camera((0, -10.5, 2.6), (0.2, 0, 1.0), lens=40)
    building.add_light("AREA", "Key", (-3, -5, 6), (0, 0, 0.5), 900, (1.0, 0.97, 0.93), size=4)
    building.add_light("AREA", "Rim", (3, 4, 4), (0, 0, 0.5), 500, (1, 1, 1), size=3)

    material = building.image_material("Ball", image, roughness=0.25, clearcoat=1.0, glow=0.05)
    for index, (x, y, radius) in enumerate(BALLS):
        ball = building.add_uv_sphere(f"Ball{index}", radius, (x, y, radius), segments=64, rings=32)
        building.assign_material(ball, material)
        # Each ball shows another part of the image.
        ball.rotation_euler = (math.radians(15 * index), 0, math.radians(47 * index))
        if not args.animated:
            continue  # a still shows the settled cluster
        drop = DropAndBounce(radius, DROP_HEIGHT, start=DROP_INTERVAL * index)
        frames = list(range(scene.frame_start, scene.frame_end + 1))
        times = [(frame - scene.frame_start) / args.fps for frame in frames]
        building.set_keys(ball, "location", frames, [drop.height_at(t) for t in times], index=2)
        direction = 1 if index % 2 else -1
        for axis in (0, 2):
            spins = [ball.rotation_euler[axis] + direction * drop.spin_at(t) for t in times]
            building.set_keys(ball, "rotation_euler", frames, spins, index=axis)
    return None


class DropAndBounce:
    """A ball released `height` above its resting point at `start` seconds: it falls under
    gravity and bounces, losing speed at each impact, until it settles."""

    GRAVITY = 9.81
    RESTITUTION = 0.55  # share of the speed kept at each bounce
    REST_SPEED = 0.05

    def __init__(self, radius, height, start):
        self.radius, self.height, self.start = radius, max(height, 0.0), start

    def height_at(self, seconds):
        t = seconds - self.start
        g = self.GRAVITY
        if t <= 0:
            return self.radius + self.height
        fall = math.sqrt(2 * self.height / g)
        if t < fall:
            return self.radius + self.height - 0.5 * g * t * t
        t -= fall
        speed = self.RESTITUTION * math.sqrt(2 * g * self.height)
        while speed > self.REST_SPEED:
            hop = 2 * speed / g
            if t < hop:
                return self.radius + speed * t - 0.5 * g * t * t
            t -= hop
            speed *= self.RESTITUTION
        return self.radius

    def spin_at(self, seconds, settle=1.5):
        """Spin angle: fast while falling, dying away as the ball settles."""
        t = max(0.0, seconds - self.start)
        return SPIN_PER_SECOND * settle * (1 - math.exp(-t / settle))


protocol.run(build)
