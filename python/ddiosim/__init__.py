"""ddiosim: the DDIO hit-rate engines of libddiosim from Python (docs/api.md).

    import ddiosim
    r = ddiosim.predict(machine="skylake-6140", rx_ring=512)
    print(r["pcie_write_hit_frac"]["estimate"])

Each function takes the long options of the matching `ddiosim` command as
keyword arguments (rx_ring for --rx-ring; True for a flag; a list for an
option given more than once; a dict for a machine or workload given inline)
and returns the command's JSON document as a dict.  An error raises
ddiosim.Error with the library's one-line message and its code (.code).

The library is, in this order: $DDIOSIM_LIB; the one installed with this
module (cmake --install writes its directory into _libdir.py); the one
ctypes.util.find_library("ddiosim") finds.  Standard library only.
"""

import ctypes
import ctypes.util
import json
import warnings
import os

__all__ = ["predict", "simulate", "cache_replay", "validate", "version", "api_version", "Error"]

API_VERSION = 1  # the DDIOSIM_API_VERSION this module speaks


class Error(Exception):
    """A request the library refused or could not run: str() is its message,
    .code its status (2 a bad request, 1 a run-time failure, ...: docs/api.md),
    .result validate's report when it came with the error (else None)."""

    def __init__(self, code, message, result=None):
        super().__init__(message)
        self.code = code
        self.result = result


def _candidates():
    env = os.environ.get("DDIOSIM_LIB")
    if env:
        return [env]
    found = []
    try:
        from . import _libdir  # written by cmake --install

        found.append(os.path.join(_libdir.LIBDIR, "libddiosim.so.%d" % API_VERSION))
    except ImportError:
        pass
    name = ctypes.util.find_library("ddiosim")
    if name:
        found.append(name)
    return found


def _load():
    tried = []
    for path in _candidates():
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
            continue
        sig = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p), ctypes.c_char_p, ctypes.c_size_t]
        for fn in ("ddiosim_predict", "ddiosim_simulate", "ddiosim_cache_replay", "ddiosim_validate"):
            getattr(lib, fn).argtypes = sig
            getattr(lib, fn).restype = ctypes.c_int
        lib.ddiosim_free.argtypes = [ctypes.c_void_p]
        lib.ddiosim_free.restype = None
        lib.ddiosim_version.restype = ctypes.c_char_p
        lib.ddiosim_api_version.restype = ctypes.c_int
        if lib.ddiosim_api_version() != API_VERSION:
            raise ImportError("%s speaks API version %d, this module %d"
                              % (path, lib.ddiosim_api_version(), API_VERSION))
        return lib
    raise ImportError("libddiosim not found (set DDIOSIM_LIB to its path); tried: %s"
                      % ("; ".join(tried) or "nothing"))


_lib = None


def _library():
    global _lib  # loaded once, on first use: importing needs no library
    if _lib is None:
        _lib = _load()
    return _lib


def _call(fn, options):
    lib = _library()
    request = json.dumps(options).encode()
    out = ctypes.c_void_p()
    err = ctypes.create_string_buffer(1024)
    rc = getattr(lib, fn)(request, ctypes.byref(out), err, len(err))
    result = None
    if out.value:
        try:
            result = json.loads(ctypes.string_at(out.value).decode())
        except ValueError as e:
            raise Error(1, "%s: the result is not JSON (%s)" % (fn, e), None) from None
        finally:
            lib.ddiosim_free(out)
    if rc != 0:
        raise Error(rc, err.value.decode(errors="replace"), result)
    for line in err.value.decode(errors="replace").splitlines():
        warnings.warn("ddiosim: " + line, stacklevel=3)   # what the CLI prints on stderr
    return result


def predict(**options):
    """`ddiosim predict` with these options: the Markov model's hit-rate bounds."""
    return _call("ddiosim_predict", options)


def simulate(**options):
    """`ddiosim simulate` with these options: the discrete-event simulator's run."""
    return _call("ddiosim_simulate", options)


def cache_replay(trace, **options):
    """`ddiosim cache-replay TRACE` with these options: one cache, a DineroIV-style trace."""
    return _call("ddiosim_cache_replay", dict(options, trace=trace))


def validate(**options):
    """`ddiosim validate` with these options: both engines against the measured experiments."""
    return _call("ddiosim_validate", options)


def version():
    """The library's version, "MAJOR.MINOR.PATCH"."""
    return _library().ddiosim_version().decode()


def api_version():
    """The library's DDIOSIM_API_VERSION."""
    return _library().ddiosim_api_version()
