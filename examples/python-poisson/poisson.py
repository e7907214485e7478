"""The pinned Poisson problem in Python with NumPy on gridtui (app = "exec").

The same 1-D slab decomposition and arithmetic as examples/c-poisson (and
gridtui's apps/poisson): NumPy's element-wise operations in the reference's
order give its values bit for bit. GRID_Receive writes the neighbours'
planes straight into the ghost planes u[0] and u[-1]; GRID_Send and
GRID_Result read the array's memory: no copies.

Usage (started by a gridtui worker; see job.toml): python3 poisson.py N
"""
import sys

import numpy as np

import gridhpc


def main():
    sub = gridhpc.Subtask()
    n = int(sys.argv[1])
    if sub.unit != n * n or sub.hi > n:
        sub.abort("n = %d does not fit the job (unit %d)" % (n, sub.unit))
        sys.exit(1)
    lo, hi = sub.lo, sub.hi
    h = 1.0 / (n + 1)

    def bump(x):
        return x * (1 - x)

    fx = bump(np.arange(lo + 1, hi + 1, dtype=np.float64) * h)[:, None, None]
    fy = bump(np.arange(1, n + 1, dtype=np.float64) * h)[None, :, None]
    fz = bump(np.arange(1, n + 1, dtype=np.float64) * h)[None, None, :]
    hhf = (h * h) * (2.0 * ((fy * fz + fx * fz) + fx * fy))

    u = np.zeros((hi - lo + 2, n, n))
    nxt = np.zeros_like(u)
    ym, yp, zm, zp = (np.zeros((hi - lo, n, n)) for _ in range(4))
    down = sub.rank - 1 if lo > 0 else None
    up = sub.rank + 1 if hi < n else None

    def send():
        if down is not None:
            sub.send(down, u[1])
        if up is not None:
            sub.send(up, u[-2])

    send()
    while True:
        if down is not None:
            sub.receive(down, u[0])
        if up is not None:
            sub.receive(up, u[-1])
        c = u[1:-1]
        ym[:, 1:, :] = c[:, :-1, :]
        yp[:, :-1, :] = c[:, 1:, :]
        zm[:, :, 1:] = c[:, :, :-1]
        zp[:, :, :-1] = c[:, :, 1:]
        v = (((((u[:-2] + u[2:]) + ym) + yp) + zm) + zp + hhf) / 6.0
        sigma = float(np.max(np.abs(v - c)))
        nxt[1:-1] = v
        u, nxt = nxt, u
        send()
        if not sub.iterate(sigma):
            break
    sub.result(u[1:-1])
    sub.finalize()


if __name__ == "__main__":
    main()
