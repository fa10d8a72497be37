"""Process tuning for a long-running table: single-threaded BLAS, and glibc malloc that
gives large blocks back (the memory budget, docs/kiosk.md). Used by the kiosk before
numpy, OpenCV or Kivy load, and by the recognition process when it starts."""

from __future__ import annotations

import ctypes
import functools
import os

#: Environment the kiosk wants before numpy loads: OpenBLAS otherwise starts a thread (and
#: its buffers) per core for matrices of a few hundred numbers, which also runs the
#: recognition's small steps 2.6 times slower.
THREAD_ENV = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
#: glibc malloc: at most this many arenas (by default up to 8 per core, one per thread
#: that allocates: the camera thread, OpenCV's workers and Kivy's each hold freed memory).
MALLOC_ARENA_MAX = 2
#: glibc malloc: blocks of this size or more get their own mapping, returned to the system
#: when freed. glibc's default threshold grows up to 32 MB after the first large block is
#: freed, after which frame-sized arrays (a 1280x720 frame is 2.7 MB) come from arenas
#: that keep the memory: the kiosk measured 50 MB more with the camera running.
MALLOC_MMAP_THRESHOLD = 1 << 20
#: glibc malloc: the heap's free top is given back only beyond this. At glibc's default
#: (128 kB) the recognition's blocks of a few hundred kB were given back and faulted in
#: again every frame: with the two settings above and not this one, a cold frame of 12
#: cards took 27.6 to 28.0 ms against 24.6 to 25.3 with it, one changed card 113 frames/s
#: against 153 (`python -m benchmarks.bench_vision --speed`, 1280x720, twice each).
MALLOC_TRIM_THRESHOLD = 32 << 20
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD, _M_ARENA_MAX = -1, -3, -8  # mallopt() parameters of glibc's malloc.h


def tune_process(env: dict[str, str] | None = None) -> dict[str, str]:
    """Set the process up for a long-running kiosk with a camera thread, before numpy,
    OpenCV or Kivy load: single-threaded BLAS, and glibc malloc that gives large blocks
    back and keeps few arenas (the memory budget, docs/kiosk.md). A value already set in
    the environment (by the systemd unit, or by hand) is kept. Returns what it set;
    elsewhere than glibc only the environment is set."""
    env = os.environ if env is None else env
    done: dict[str, str] = {}
    for name, value in THREAD_ENV.items():
        if name not in env:
            env[name] = done[name] = value
    libc = _glibc()
    if libc is not None:
        wanted = {"MALLOC_ARENA_MAX": (_M_ARENA_MAX, MALLOC_ARENA_MAX),
                  "MALLOC_MMAP_THRESHOLD_": (_M_MMAP_THRESHOLD, MALLOC_MMAP_THRESHOLD),
                  "MALLOC_TRIM_THRESHOLD_": (_M_TRIM_THRESHOLD, MALLOC_TRIM_THRESHOLD)}
        for name, (param, value) in wanted.items():
            if name not in env and libc.mallopt(param, value) == 1:
                done[name] = str(value)
    return done


def release_memory() -> bool:
    """Give memory freed inside malloc's arenas back to the system (glibc's malloc_trim);
    worth it after a burst of set-up, such as a camera opening. False where not glibc."""
    libc = _glibc()
    if libc is None:
        return False
    libc.malloc_trim(0)
    return True


@functools.lru_cache(maxsize=1)
def _glibc() -> ctypes.CDLL | None:
    """The C library when it is glibc (it has mallopt and malloc_trim), else None."""
    try:
        libc = ctypes.CDLL(None)  # the process's own symbols, the C library's among them
    except OSError:
        return None
    if not (hasattr(libc, "mallopt") and hasattr(libc, "malloc_trim")):
        return None
    libc.mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    libc.malloc_trim.argtypes = [ctypes.c_size_t]
    return libc
