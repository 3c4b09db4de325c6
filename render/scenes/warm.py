"""A warm scene server: one Blender that has loaded a scene script and rendered once, and then
renders each request in a child it forks, so a request pays neither Blender's start nor its
first render's set-up (render/warm-scene.ts drives it):

    blender -b --factory-startup -noaudio --python warm.py -- warm-up.json

warm-up.json holds the scene script's path ("script") and the arguments of a render with the
scene's defaults and no upload: the parent builds and renders that, and never opens a
customer's file. Then it speaks on file descriptor 3, its only channel:

    READY <pid> passes|no-passes       (parent) warmed up, waiting for requests; whether its children can
                                       write a band's passes (serial_exr), which a denoised still needs
    RENDER <json>                      (worker) {"id", "folder", "step": "render" | "save" | "levels", "denoise": bool,
                                       "denoisedFile": path (save only), "deadline": seconds, "user": [uid, gid] | null,
                                       "bands": n, "parts": [{"frames": [...], "socket": path}, ...] (frames only)}
    DONE <id> <status>                 (parent) ok | error <code> | timeout | signal <n>
    RESEED <json>                      (worker) {"id", "seed": hex}: after a restore from a snapshot, Python's and
                                       numpy's generators are seeded again from it; answered DONE <id> ok <digest of their states>

The parent never reads a customer's settings (their text, options, file names): a request names
only its folder and the worker's own choices. Each child reads the settings from request.json
in that folder (a fresh Blender's args.json) once it has taken the request's user, so no
customer's text ever reaches the parent's memory, where a later child could find it.

A denoised still takes two requests in one folder: the first renders its bands' noisy passes
(band-<i>.exr); the worker stitches and denoises them into a raw frame there; the second
("save", with "denoisedFile") saves that frame through the scene's view transform as the still.

Each request is rendered by a forked child, which first leaves everything of the parent's:
a session of its own (the parent kills it whole), the request's user when the parent is
root (before anything of the request is read), and the request's folder for its output,
its log (log.txt) and its control lines (control.txt, the protocol of render/blender.ts):
the parent's channel is closed in the child, so nothing the child runs can read the next
request or answer for the parent. The parent is not dumpable, so a child running as the
same user (where there is no second one) cannot trace it or read its memory. Past the
deadline the child's session is killed; after every child, its session is killed and, when
it ran as its own user, every process of that user, so nothing it started outlives it.
The parent exits on anything unexpected: the worker then starts a fresh one.

A forked child renders on one core: Blender's thread pool (TBB) does not follow a fork, its
workers stay in the parent. So a still may be asked in "bands": that many children render a
band of rows each, side by side, then one more child joins them into the still and its JPEG.
An audio scene's live strip first asks for its audio's "levels": one child reads the customer's
file and writes its loudness per video frame (levels.json) in the request's folder, from which
the worker picks the strip's frames (the parent never reads it); then the frames are asked.
A render's frames may be asked in "parts": a child each, side by side, rendering its frames as
a fresh Blender would, its control lines (PROGRESS, DENOISE and its answer, LIMIT) on the Unix
socket the worker listens on in the request's folder instead of control.txt. A step's LIMIT is
then kept by the child's own alarm (the worker cannot stop one child of a parent).
"""

import ctypes
import hashlib
import importlib.util
import json
import os
import random
import shutil
import signal
import socket
import stat
import sys
import tempfile
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bpy  # noqa: E402
import building  # noqa: E402
import numpy  # noqa: E402 - loaded once here, for the children that join a preview's bands (and reseeded after a restore)
import protocol  # noqa: E402

PR_SET_PDEATHSIG = 1
# This server's pid, set once it is warm: each child checks it is still its parent's.
SERVER_PID = None
PR_SET_DUMPABLE = 4
SWEEP_LIMIT_SECONDS = 2.0
# The machine's temporary folders every user may write in (with the worker's own, TMPDIR).
SHARED_TEMPORARY = ("/tmp", "/var/tmp", "/dev/shm")
# The users whose requests' leftovers this parent has removed after a request (render_in_child).
SWEPT_USERS = set()
# The request's settings in its folder, written by the worker (render/warm-scene.ts, SETTINGS_FILE): read by the children only.
SETTINGS_FILE = "request.json"
# The loudness a "levels" request's child writes in the request's folder (render/warm-scene.ts, LEVELS_FILE).
LEVELS_FILE = "levels.json"
EXIT_USER_ERROR = 2


def load_build(script):
    """The scene script's build function: its run(build) hands it over instead of rendering."""
    builds = []
    protocol.serve = builds.append
    spec = importlib.util.spec_from_file_location("scene", script)
    spec.loader.exec_module(importlib.util.module_from_spec(spec))
    protocol.serve = None
    if len(builds) != 1:
        raise RuntimeError(f"{script} did not end with protocol.run(build)")
    return builds[0]


def warm_up(raw, build):
    """Renders the scene's defaults once, so Cycles, its kernels and the fonts are loaded before
    the first fork. A scene that needs an upload renders an empty stage instead."""
    args = protocol.Args(raw)
    try:
        protocol.render_request(args, build)
    except protocol.UserError:
        scene = building.reset_scene()
        building.configure_render(scene, args)
        scene.camera = building.add_camera((0, -5, 1), (0, 0, 0))
        scene.render.filepath = os.path.join(args.output_dir, "stage.png")
        bpy.ops.render.render(write_still=True)
    # An empty file again: a render's persistent data keeps threads that a forked child would wait for.
    building.reset_scene()


def serial_exr():
    """Has OpenEXR write in the calling thread from now on: its thread pool's workers do not follow a
    fork (as Blender's do not), so a child writing a band's passes would wait for them for ever. The
    library's C++ namespace carries its version (libOpenEXR-3_1.so: Imf_3_1). False where this Blender
    has no OpenEXR library of its own to reach: its children then cannot write passes."""
    with open("/proc/self/maps") as maps:
        names = {os.path.basename(line.split()[-1]) for line in maps if "libOpenEXR-" in line}
    for name in names:
        version = name.split("libOpenEXR-", 1)[1].split(".so", 1)[0]
        space = f"Imf_{version}"
        try:
            set_count = getattr(ctypes.CDLL(None), f"_ZN{len(space)}{space}20setGlobalThreadCountEi")
        except AttributeError:
            continue
        set_count.argtypes = [ctypes.c_int]
        set_count(0)
        return True
    return False


def reseed(seed):
    """Seeds Python's and numpy's generators again from `seed` (render/worker.ts sends one after a restore from a
    snapshot: what they were seeded with from os.urandom when this process started is in every environment restored
    from that snapshot, and every child forked after it would draw the same numbers there). Answers a digest of
    their new states, never the states themselves."""
    random.seed(seed)
    states = [repr(random.getstate())]
    numpy.random.seed([int.from_bytes(seed[i : i + 4], "little") for i in range(0, len(seed), 4)])
    states.append(repr(numpy.random.get_state()))
    return hashlib.sha256("".join(states).encode()).hexdigest()[:32]


def serve(channel_in, channel_out, build):
    for line in channel_in:
        kind, _, body = line.strip().partition(" ")
        if kind == "RESEED":
            request = json.loads(body)
            channel_out.write(f"DONE {request['id']} ok {reseed(bytes.fromhex(request['seed']))}\n")
            channel_out.flush()
            continue
        if kind != "RENDER":
            raise RuntimeError(f"unexpected request {line[:80]!r}")
        # Only the folder and the worker's own choices: the customer's settings stay in the folder, for the children.
        request = json.loads(body)
        status = render_in_child(request, channel_in, build)
        channel_out.write(f"DONE {request['id']} {status}\n")
        channel_out.flush()


def render_in_child(request, channel_in, build):
    """Forks the request's children (its bands side by side, then the one that joins them; or
    one child), each under the request's deadline; answers the first status that is not ok."""
    user = request.get("user")
    bands = int(request.get("bands") or 1)
    deadline = time.monotonic() + float(request["deadline"])

    def forked(work, prefix="", control_socket=None):
        return lambda: child(request, channel_in, work, user, prefix, control_socket)

    def rendering(**changes):
        # The child's own part of the request (its frames, its band), over the settings it read.
        return lambda settings: protocol.render_request(protocol.Args(dict(settings, **changes)), build, empty=True)

    if user and user[0] not in SWEPT_USERS:
        # Also before this parent's first request of a user: a parent replaced mid-request (killed) never ran its
        # sweep of what that request's children left.
        remove_files_of(user[0])
    try:
        if request["step"] == "levels":
            return run_children([forked(measure_levels, "levels-")], deadline)
        if request.get("parts"):
            parts = [([int(frame) for frame in part["frames"]], part["socket"]) for part in request["parts"]]
            return run_children([forked(rendering(frames=frames), f"part-{i}-", path) for i, (frames, path) in enumerate(parts)], deadline)
        if request["step"] == "save":
            return run_children([forked(rendering(denoise=False, denoisedFile=request["denoisedFile"]), "save-")], deadline)
        if request.get("denoise"):
            # Each band's passes: the worker stitches and denoises them, then asks for the save (denoisedFile).
            return run_children([forked(rendering(band=[i, bands]), f"band-{i}-") for i in range(bands)], deadline)
        if bands < 2:
            return run_children([forked(rendering())], deadline)
        status = run_children([forked(rendering(band=[i, bands]), f"band-{i}-") for i in range(bands)], deadline)
        if status != "ok":
            return status
        return run_children([forked(lambda settings: protocol.join_bands(protocol.Args(settings), bands), "join-")], deadline)
    finally:
        if user:
            sweep_user(user[0])
            remove_files_of(user[0])
            remove_ipc_of(user[0])
            SWEPT_USERS.add(user[0])


def measure_levels(settings):
    """An audio scene's live strip (render/preview-step.ts): the request's audio measured per video frame, in a child,
    the only kind of process that reads a customer's file, as a render's children measure it (media.py). The levels go
    to LEVELS_FILE in the request's folder (not following a link planted there), for the worker alone: it picks the
    strip's frames from them and asks for those."""
    import media

    args = protocol.Args(settings)
    levels = media.loudness_per_frame(media.require_input(args, "an audio file"), args.fps, args.max_audio_seconds)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
    with os.fdopen(os.open(os.path.join(args.output_dir, LEVELS_FILE), flags, 0o600), "w") as out:
        json.dump([round(level, 4) for level in levels], out)


def run_children(starts, deadline):
    """Forks one child per start and waits for them all (killing every one past the deadline)."""
    sys.stdout.flush()
    sys.stderr.flush()
    pids = []
    for start in starts:
        pid = os.fork()
        if pid == 0:
            start()
        pids.append(pid)
    statuses = {}
    while len(statuses) < len(pids):
        for pid in pids:
            if pid in statuses:
                continue
            done, code = os.waitpid(pid, os.WNOHANG)
            if done:
                statuses[pid] = exit_status(code)
        if len(statuses) < len(pids):
            if time.monotonic() > deadline:
                for pid in pids:
                    kill_group(pid)
                for pid in pids:
                    if pid not in statuses:
                        os.waitpid(pid, 0)
                        statuses[pid] = "timeout"
            else:
                time.sleep(0.004)
    for pid in pids:
        kill_group(pid)
    return next((statuses[pid] for pid in pids if statuses[pid] != "ok"), "ok")


def exit_status(code):
    if os.WIFEXITED(code):
        return "ok" if os.WEXITSTATUS(code) == 0 else f"error {os.WEXITSTATUS(code)}"
    return f"signal {os.WTERMSIG(code)}"


def child(request, channel_in, work, user, prefix="", control_socket=None):
    """Never returns: does the request's work on its settings (read from the request's folder once
    it runs as the request's user) and exits with 0, 2 (the user's error) or 1. Its log goes to
    <prefix>log.txt in the request's folder, its control lines to <prefix>control.txt there, or to
    the worker's control_socket (a path in that folder), which also answers."""
    code = 1
    try:
        os.setsid()
        if user:
            os.setgroups([])
            os.setgid(user[1])
            os.setuid(user[0])
        # Set after the user changed (which clears it): a parent the worker kills (one that stopped answering) takes
        # its children with it, whoever their user. A parent already gone by now left this child to another.
        ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != SERVER_PID:
            os._exit(1)
        os.umask(0o077)
        folder = request["folder"]
        os.chdir(folder)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
        log = os.open(os.path.join(folder, f"{prefix}log.txt"), flags, 0o600)
        if control_socket:
            connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            connection.connect(control_socket)
            control = connection.detach()
            # No one stops this child but its parent: a step's limit is its own alarm (SIGALRM's default ends it).
            protocol.limit_by_alarm = True
        else:
            control = os.open(os.path.join(folder, f"{prefix}control.txt"), flags, 0o600)
        null = os.open(os.devnull, os.O_RDONLY)
        channel_in.close()
        os.dup2(null, 0)
        os.dup2(log, 1)
        os.dup2(log, 2)
        os.dup2(control, 3)
        for fd in (null, log, control):
            os.close(fd)
        try:
            work(read_settings(folder))
            code = 0
        except protocol.UserError as error:
            protocol.control("ERROR", error)
            code = EXIT_USER_ERROR
    except BaseException:  # noqa: BLE001 - the child reports through its exit code and log
        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def read_settings(folder):
    """The request's settings, read by a child (never the parent) without following a link in its folder."""
    handle = os.open(os.path.join(folder, SETTINGS_FILE), os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(handle, encoding="utf-8") as settings:
        return json.load(settings)


def kill_group(pid):
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def sweep_user(uid):
    """Kills every process of the request's user (only a child and what it started run as it)."""
    started = time.monotonic()
    while True:
        left = [pid for pid in processes() if owner(pid) == uid]
        if not left:
            return
        if time.monotonic() - started > SWEEP_LIMIT_SECONDS:
            raise RuntimeError(f"processes of uid {uid} outlived their request: {left}")
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.01)


def remove_files_of(uid):
    """Removes what the request's user left in the shared temporary folders (what it owns there, and in their
    folders anyone may write in): the next request, another customer's, runs as the same user. The request's own
    folder is the worker's (root's, not one anyone may write in): it is left to the worker."""
    for folder in {os.path.realpath(tempfile.gettempdir()), *SHARED_TEMPORARY}:
        remove_owned(uid, folder, 0)


def remove_owned(uid, folder, depth):
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        path = os.path.join(folder, name)
        try:
            info = os.lstat(path)
        except OSError:
            continue
        if info.st_uid == uid:
            # Neither follows a link: rmtree removes a folder's entries through its descriptors.
            if stat.S_ISDIR(info.st_mode):
                shutil.rmtree(path, ignore_errors=True)
            else:
                try:
                    os.unlink(path)
                except OSError:
                    pass
        elif stat.S_ISDIR(info.st_mode) and info.st_mode & 0o002 and depth < 8:
            remove_owned(uid, path, depth + 1)


IPC_RMID = 0


def remove_ipc_of(uid):
    """Removes the System V IPC objects (shared memory, message queues, semaphores) the request's user made or
    owns: they outlive their processes, in this server's own IPC namespace (render/tool-environment.ts, NAMESPACES),
    where the next request's child, of the same user, would find them."""
    libc = ctypes.CDLL(None, use_errno=True)
    removers = {
        "shm": lambda ipc_id: libc.shmctl(ipc_id, IPC_RMID, None),
        "msg": lambda ipc_id: libc.msgctl(ipc_id, IPC_RMID, None),
        "sem": lambda ipc_id: libc.semctl(ipc_id, 0, IPC_RMID),
    }
    for kind, remove in removers.items():
        try:
            with open(f"/proc/sysvipc/{kind}") as table:
                header, *rows = [line.split() for line in table if line.strip()]
        except (OSError, ValueError):
            continue
        owners = [header.index("uid"), header.index("cuid")]
        for row in rows:
            if any(int(row[column]) == uid for column in owners):
                remove(int(row[1]))


def processes():
    return [int(name) for name in os.listdir("/proc") if name.isdigit()]


def owner(pid):
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("State:") and line.split()[1] in ("Z", "X"):
                    return None
                if line.startswith("Uid:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def main():
    global SERVER_PID
    SERVER_PID = os.getpid()
    with open(protocol.args_file(), encoding="utf-8") as handle:
        raw = json.load(handle)
    build = load_build(raw.pop("script"))
    warm_up(raw, build)
    passes = serial_exr()
    # Not dumpable: a process of the same user (a child, where there is no second user) can neither trace this one nor read its memory.
    if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_DUMPABLE) failed")
    channel_in = os.fdopen(os.dup(3), "r")
    channel_out = os.fdopen(3, "w", closefd=False)
    channel_out.write(f"READY {os.getpid()} {'passes' if passes else 'no-passes'}\n")
    channel_out.flush()
    serve(channel_in, channel_out, build)


try:
    main()
except BaseException:  # noqa: BLE001 - any failure ends the server; the worker starts another
    traceback.print_exc()
    sys.stderr.flush()
    os._exit(1)
os._exit(0)
