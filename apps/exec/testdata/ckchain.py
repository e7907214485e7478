"""ckchain.py - testdata/ckchain.c in Python (TestRunRecoversExecPython):
Jacobi for -u'' = 1 on a chain of items points, one value per item and
per message, which registers its state with checkpoint_register and so
survives a lost node. It swaps two arrays each iteration and registers
both and a counter of its own (a 1-element float64 array: only such arrays
register); a restarted copy swaps them back by the parity resumed() gives.
The result is u, its last value on the last rank replaced by the counter."""
import numpy as np

import gridhpc

sub = gridhpc.Subtask()
n = sub.hi - sub.lo
u, v = np.zeros(n + 2), np.zeros(n + 2)
count = np.zeros(1)
for a in (u, v, count):
    sub.checkpoint_register(a)
lower, upper = sub.lo > 0, sub.rank + 1 < sub.ranks


def send():
    if lower:
        sub.send(sub.rank - 1, u[1:2])
    if upper:
        sub.send(sub.rank + 1, u[n:n + 1])


send()
if sub.resumed() % 2:
    u, v = v, u
while True:
    if lower:
        sub.receive(sub.rank - 1, u[0:1])
    if upper:
        sub.receive(sub.rank + 1, u[n + 1:n + 2])
    v[1:-1] = (u[:-2] + u[2:] + 1.0) / 2.0
    sigma = float(np.max(np.abs(v[1:-1] - u[1:-1])))
    u, v = v, u
    count[0] += 1
    send()
    if not sub.iterate(sigma):
        break
if not upper:
    u[n] = count[0]
sub.result(np.ascontiguousarray(u[1:-1]))
sub.finalize()
