"""Reference for `paratrain bench mlp`: one training step of a 784-256-10 ReLU MLP with a softmax
cross-entropy head and Adam, batch 256, in numpy (whatever BLAS numpy links, OpenBLAS on Debian).
Prints the best time of a step in milliseconds over the repetitions as `step_ms <t>`, then the
OpenBLAS kernel numpy's products run (`corename <name>`) and numpy's version."""
import ctypes
import sys
import time

import numpy as np

batch, inputs, hidden, classes = 256, 784, 256, 10
reps = int(sys.argv[1]) if len(sys.argv) > 1 else 50
rng = np.random.default_rng(1)
X = rng.random((batch, inputs))
y = rng.integers(0, classes, batch)
W1 = rng.normal(0, np.sqrt(2 / inputs), (inputs, hidden)); b1 = np.zeros(hidden)
W2 = rng.uniform(-1, 1, (hidden, classes)) * np.sqrt(6 / (hidden + classes)); b2 = np.zeros(classes)
params = [W1, b1, W2, b2]
m = [np.zeros_like(p) for p in params]
v = [np.zeros_like(p) for p in params]
onehot = np.eye(classes)[y]


def step(t):
    Z1 = X @ W1 + b1
    A1 = np.maximum(Z1, 0)
    Z2 = A1 @ W2 + b2
    Z2 = Z2 - Z2.max(axis=1, keepdims=True)
    E = np.exp(Z2)
    S = E.sum(axis=1, keepdims=True)
    loss = (np.log(S).ravel() - Z2[np.arange(batch), y]).sum()
    dZ2 = E / S - onehot
    grads = [None, None, A1.T @ dZ2, dZ2.sum(axis=0)]
    dZ1 = (dZ2 @ W2.T) * (Z1 > 0)
    grads[0] = X.T @ dZ1
    grads[1] = dZ1.sum(axis=0)
    for p, g, mi, vi in zip(params, grads, m, v):
        mi *= 0.9; mi += 0.1 * g
        vi *= 0.999; vi += 0.001 * g * g
        p -= 1e-3 * (mi / (1 - 0.9 ** t)) / (np.sqrt(vi / (1 - 0.999 ** t)) + 1e-8)
    return loss


best = float("inf")
for t in range(1, reps + 1):
    t0 = time.perf_counter()
    step(t)
    best = min(best, time.perf_counter() - t0)
print("step_ms %.4f" % (best * 1e3))


def corename():
    """The kernel of the BLAS numpy loaded (Debian's OpenBLAS or a wheel's scipy_openblas)."""
    for path in sorted({l.split()[-1] for l in open("/proc/self/maps") if "blas" in l.lower() and ".so" in l}):
        lib = ctypes.CDLL(path)
        for name in ("openblas_get_corename", "scipy_openblas_get_corename64_", "openblas_get_corename64_"):
            f = getattr(lib, name, None)
            if f is not None:
                f.restype = ctypes.c_char_p
                return f().decode()
    return "unknown"


print("corename %s" % corename())
print("numpy %s" % np.__version__)
