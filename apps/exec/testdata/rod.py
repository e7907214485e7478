"""rod.py N - the tutorial's rod (-u'' = 1, Jacobi) computing its halos in
the shared window: send_buffer and receive_buffer are the window itself, so
GRID_Send and GRID_Receive copy nothing (TestRunPythonWindow)."""
import sys

import numpy as np

import gridhpc

sub = gridhpc.Subtask()
n = int(sys.argv[1])
h = 1.0 / (n + 1)
m = sub.hi - sub.lo
u = np.zeros(m + 2)
out = {q: sub.send_buffer(q) for q in sub.neighbours}
inb = {q: sub.receive_buffer(q) for q in sub.neighbours}


def send():
    for q in sub.neighbours:
        out[q][0] = u[1] if q < sub.rank else u[m]
        sub.send(q, out[q])


send()
while True:
    for q in sub.neighbours:
        sub.receive(q, inb[q])
        if q < sub.rank:
            u[0] = inb[q][0]
        else:
            u[m + 1] = inb[q][0]
    v = (u[:-2] + u[2:] + h * h) / 2
    sigma = float(np.max(np.abs(v - u[1:-1])))
    u[1:-1] = v
    send()
    if not sub.iterate(sigma):
        break
sub.result(np.ascontiguousarray(u[1:-1]))
sub.finalize()
