"""gridhpc - Python binding of gridhpc.h (ctypes) for programs that gridtui
runs with app = "exec".

The library is libgridhpc.so, built from gridhpc.c:

    cc -O2 -shared -fPIC -D_GNU_SOURCE -o libgridhpc.so gridhpc.c

and found through GRIDHPC_LIB (its path), else beside this file. Messages
and results are NumPy arrays of float64, C-contiguous, passed by address:
nothing is copied on the Python side (a non-contiguous array or another
dtype is refused, never silently copied); the library copies once between
the array and the window it shares with the worker, and not at all for the
arrays send_buffer and receive_buffer return, which are the window itself.

    sub = gridhpc.Subtask()            # GRID_Init
    sub.send(q, u[1])                  # GRID_Send, DATA_FLAG
    while True:
        sub.receive(q, u[0])           # GRID_Receive into the ghost plane
        sigma = ...                    # one sweep
        sub.send(q, u[1])
        if not sub.iterate(sigma):     # GRID_Iterate: False when the run ends
            break
    sub.result(u[1:-1])                # GRID_Result
    sub.finalize()
"""
import ctypes
import os

import numpy as np

DATA_FLAG, CTRL_FLAG, NOWAIT_FLAG = 1, 2, 4


class _Subtask(ctypes.Structure):
    _fields_ = [
        ("rank", ctypes.c_uint32), ("ranks", ctypes.c_uint32), ("cores", ctypes.c_uint32),
        ("nneighbours", ctypes.c_uint32),
        ("lo", ctypes.c_uint64), ("hi", ctypes.c_uint64), ("unit", ctypes.c_uint64),
        ("result_size", ctypes.c_uint64), ("eps", ctypes.c_double),
        ("neighbours", ctypes.POINTER(ctypes.c_uint64)), ("halo_size", ctypes.POINTER(ctypes.c_uint64)),
        ("params", ctypes.c_char_p), ("priv", ctypes.c_void_p),
    ]


def _load():
    path = os.environ.get("GRIDHPC_LIB") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "libgridhpc.so")
    lib = ctypes.CDLL(path)
    P = ctypes.POINTER(_Subtask)
    sig = {
        "GRID_Init": [P],
        "GRID_Send": [P, ctypes.c_uint32, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int],
        "GRID_Receive": [P, ctypes.c_uint32, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int],
        "GRID_Wait": [P, ctypes.POINTER(ctypes.c_uint32), ctypes.POINTER(ctypes.c_int)],
        "GRID_Iterate": [P, ctypes.c_double],
        "GRID_Result": [P, ctypes.c_void_p, ctypes.c_size_t],
        "GRID_Finalize": [P],
        "GRID_Abort": [P, ctypes.c_char_p],
        "GRID_CheckpointRegister": [P, ctypes.c_void_p, ctypes.c_size_t],
    }
    for name, args in sig.items():
        f = getattr(lib, name)
        f.argtypes, f.restype = args, ctypes.c_int
    for name in ("GRID_SendBuffer", "GRID_ReceiveBuffer"):
        f = getattr(lib, name)
        f.argtypes, f.restype = [P, ctypes.c_uint32], ctypes.POINTER(ctypes.c_double)
    lib.GRID_Resumed.argtypes, lib.GRID_Resumed.restype = [P], ctypes.c_longlong
    lib.GRID_Param.argtypes, lib.GRID_Param.restype = [P, ctypes.c_char_p], ctypes.c_char_p
    lib.GRID_Strerror.argtypes, lib.GRID_Strerror.restype = [ctypes.c_int], ctypes.c_char_p
    return lib


_lib = _load()


class Error(Exception):
    """A GRID_* call failed; code is its negative return code."""

    def __init__(self, call, code):
        super().__init__("%s: %s" % (call, _lib.GRID_Strerror(code).decode()))
        self.code = code


def _check(call, rc):
    if rc < 0:
        raise Error(call, rc)
    return rc


def _buffer(a):
    """The address and size of a float64 C-contiguous array (no copy)."""
    if not isinstance(a, np.ndarray) or a.dtype != np.float64 or not a.flags.c_contiguous:
        raise TypeError("gridhpc: want a C-contiguous float64 NumPy array (no copy is made)")
    return a.ctypes.data, a.nbytes


class Subtask:
    """This node's sub-task (GRID_Init) and the operations on it."""

    def __init__(self):
        self._s = _Subtask()
        _check("GRID_Init", _lib.GRID_Init(ctypes.byref(self._s)))
        s = self._s
        self.rank, self.ranks, self.cores = s.rank, s.ranks, s.cores
        self.lo, self.hi, self.unit, self.result_size, self.eps = s.lo, s.hi, s.unit, s.result_size, s.eps
        self.neighbours = [s.neighbours[i] for i in range(s.nneighbours)]
        self.halo_size = [s.halo_size[i] for i in range(s.nneighbours)]
        self.params = (s.params or b"").decode()

    def send(self, dest, a, flags=DATA_FLAG):
        addr, n = _buffer(a)
        _check("GRID_Send", _lib.GRID_Send(ctypes.byref(self._s), dest, addr, n, flags))

    def receive(self, source, a, flags=DATA_FLAG):
        addr, n = _buffer(a)
        return _check("GRID_Receive", _lib.GRID_Receive(ctypes.byref(self._s), source, addr, n, flags))

    def wait(self):
        """Returns (rank, flags) of a neighbour with new values, or None."""
        r, f = ctypes.c_uint32(), ctypes.c_int()
        rc = _lib.GRID_Wait(ctypes.byref(self._s), ctypes.byref(r), ctypes.byref(f))
        if rc == -8:  # GRID_ENOMSG
            return None
        _check("GRID_Wait", rc)
        return r.value, f.value

    def send_buffer(self, dest):
        """The window's send buffer for neighbour dest, as a float64 array."""
        return self._window(_lib.GRID_SendBuffer, dest)

    def receive_buffer(self, source):
        """The window's receive buffer for neighbour source, as a float64 array."""
        return self._window(_lib.GRID_ReceiveBuffer, source)

    def _window(self, f, q):
        i = self.neighbours.index(q)
        return np.ctypeslib.as_array(f(ctypes.byref(self._s), q), shape=(self.halo_size[i] // 8,))

    def checkpoint_register(self, a):
        """Registers a float64 array as part of the program's state
        (GRID_CheckpointRegister): before the loop, in the same order on
        every start; the array must stay alive and in place for the run,
        updated in place. Only C-contiguous float64 NumPy arrays register:
        a counter is a 1-element array (np.zeros(1))."""
        addr, n = _buffer(a)
        _check("GRID_CheckpointRegister", _lib.GRID_CheckpointRegister(ctypes.byref(self._s), addr, n))

    def resumed(self):
        """The iteration the registered arrays were restored at, 0 on a
        fresh start (GRID_Resumed): after the first sends, before the loop."""
        return _check("GRID_Resumed", _lib.GRID_Resumed(ctypes.byref(self._s)))

    def iterate(self, sigma):
        return _check("GRID_Iterate", _lib.GRID_Iterate(ctypes.byref(self._s), float(sigma))) > 0

    def result(self, a):
        addr, n = _buffer(a)
        _check("GRID_Result", _lib.GRID_Result(ctypes.byref(self._s), addr, n // 8))

    def finalize(self):
        _lib.GRID_Finalize(ctypes.byref(self._s))

    def abort(self, reason):
        _lib.GRID_Abort(ctypes.byref(self._s), reason.encode())

    def param(self, key, default=None):
        v = _lib.GRID_Param(ctypes.byref(self._s), key.encode())
        return default if v is None else v.decode()
