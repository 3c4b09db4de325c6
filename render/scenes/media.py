"""The user's media as a scene script reads it: the uploaded file, images, and audio
measured per video frame."""

import math
import os
import shutil
import subprocess

import bpy

from protocol import UserError, log, memory_limit

IMAGE_ERROR = "The uploaded file is not a readable image."
AUDIO_ERROR = "The uploaded file is not a readable audio file."


def require_input(args, what):
    if not args.input_file:
        raise UserError(f"This scene needs {what}.")
    if not os.path.isfile(args.input_file):
        raise UserError("The uploaded file could not be found on the render machine.")
    return args.input_file


# Address space the decode may add: an image at the caps as 8-bit RGBA, its float copy and the decoder's own.
BYTES_PER_PIXEL_DECODED = 24
DECODER_SLACK_BYTES = 256 * 1024 * 1024


def load_image(path, limits):
    """Loads and checks an image by content, whatever its file name says. It is decoded here, under a
    memory limit sized to the caps (limits: the worker's imageLimits, the API's), and its decoded size
    is checked against them: the API read a header, and a crafted file may declare one size there and
    decode to another."""
    max_pixels, max_side = limits["maxPixels"], limits["maxSide"]
    try:
        image = bpy.data.images.load(path, check_existing=False)
    except RuntimeError:
        raise UserError(IMAGE_ERROR)
    try:
        # Blender loads lazily: reading the size decodes the pixels (a 0x0 image when it cannot).
        with memory_limit(max_pixels * BYTES_PER_PIXEL_DECODED + DECODER_SLACK_BYTES):
            width, height = image.size
            decoded = image.has_data
    except MemoryError:
        raise UserError(IMAGE_ERROR)
    if width <= 0 or height <= 0 or not decoded:
        raise UserError(IMAGE_ERROR)
    if width * height > max_pixels or max(width, height) > max_side:
        raise UserError(
            f"The uploaded image is {width:,} x {height:,} pixels. Images may have at most "
            f"{max_pixels // 1_000_000:,} megapixels and {max_side:,} pixels a side: please upload a smaller one."
        )
    log(f"image {width}x{height}")
    return image


# The rate the audio is measured at: enough for the spectrum's top band (10 kHz).
AUDIO_RATE = 22050


def load_audio_levels(path, fps, max_seconds, bands=0):
    """Decodes the audio, at most its first max_seconds, and measures it per video frame (1/fps s windows).

    Returns (loudness, spectrum): loudness is a list of RMS levels scaled so that the loud
    parts of the track reach about 1; spectrum (when bands > 0) is a list of per-frame
    lists of band levels on a log frequency scale, scaled the same way per band.
    """
    import numpy as np  # Debian's python3-numpy; Blender's own Python has it via that package

    rate = AUDIO_RATE
    frames = _audio_windows(path, rate, fps, max_seconds)
    count, window = frames.shape
    loudness = _normalise(_rms(frames))
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


def loudness_per_frame(path, fps, max_seconds):
    """The audio's RMS level per video frame (as load_audio_levels measures it) relative to its loudest frame's, neither
    clipped nor smoothed: where the track's loudest moments are, in order (an audio scene's live strip shows them:
    render/scenes/warm.py, measure_levels). Index i is the audio's i-th 1/fps s."""
    rms = _rms(_audio_windows(path, AUDIO_RATE, fps, max_seconds))
    return (rms / float(rms.max())).tolist()


def _audio_windows(path, rate, fps, max_seconds):
    """The decoded audio (at most its first max_seconds) cut in 1/fps s windows, one row per video frame, the last
    padded with silence; the user's error when it is not audio, too short for one frame, or silent."""
    import numpy as np

    samples = _decode_audio(path, rate, max_seconds)
    log(f"audio {samples.size / rate:.2f} s")
    if samples.size < rate // fps:
        raise UserError(AUDIO_ERROR)
    if float(np.max(np.abs(samples))) < 1e-4:
        raise UserError("The uploaded audio is silent.")
    window = rate // fps
    count = int(math.ceil(samples.size / window))
    padded = np.zeros(count * window, dtype=np.float32)
    padded[:samples.size] = samples
    log(f"audio {samples.size / rate:.2f}s, {count} frames")
    return padded.reshape(count, window)


def _rms(frames):
    import numpy as np

    return np.sqrt(np.mean(frames ** 2, axis=1))


def _normalise(values):
    import numpy as np

    # The 95th percentile, not the maximum, so one click does not flatten the whole track.
    reference = float(np.percentile(values, 95)) or float(np.max(values)) or 1.0
    return np.clip(values / reference, 0.0, 1.25)


# The demuxer for each audio extension an upload may have, so ffmpeg never guesses the format
# from the content: a playlist disguised as audio would otherwise make it open other files.
_AUDIO_DEMUXERS = {".mp3": "mp3", ".wav": "wav"}


def _decode_audio(path, rate, max_seconds):
    """Mono float32 PCM, decoded by ffmpeg with only the file protocol and the demuxer the
    extension names, and no more than max_seconds of it: a header may claim less than the
    file holds."""
    import numpy as np

    ffmpeg = shutil.which("ffmpeg")
    demuxer = _AUDIO_DEMUXERS.get(os.path.splitext(path)[1].lower())
    if not ffmpeg:
        raise RuntimeError("ffmpeg is not installed on this machine: install it with `apt-get install -y ffmpeg`")
    if not demuxer:
        raise UserError(AUDIO_ERROR)
    result = subprocess.run(
        [ffmpeg, "-v", "error", "-nostdin", "-protocol_whitelist", "file", "-f", demuxer,
         "-i", "file:" + os.path.abspath(path), "-t", f"{max_seconds:.3f}", "-vn", "-ac", "1", "-ar", str(rate), "-f", "f32le", "pipe:1"],
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

