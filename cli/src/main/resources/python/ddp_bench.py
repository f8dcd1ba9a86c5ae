"""PyTorch DistributedDataParallel reference for `paratrain bench dl`.

Trains the network paratrain trains (the 784-256-10 MLP, or the CNN
conv:32:3,pool:2,conv:64:3,pool:2,dense:128 with a 10-class head) with Adam
(lr 1e-3) on a global batch split evenly over W worker processes (gloo, one
thread each), and prints the samples per second of the timed steps.

Usage: ddp_bench.py MODEL PRECISION WORKERS BATCH STEPS [IMAGES LABELS]
  MODEL      mlp or cnn
  PRECISION  float32 or float64
  IMAGES, LABELS  Fashion-MNIST IDX files (gzipped); random images without them

Prints `samples_per_s X` and `torch VERSION` on success.

Across hosts (`paratrain bench network`): with DDP_BENCH_INIT=tcp://ADDR:PORT (rank 0's host),
this process starts the global ranks DDP_BENCH_FIRST .. DDP_BENCH_FIRST + WORKERS - 1 of a job
of DDP_BENCH_WORLD, and the one holding rank 0 prints; gloo uses GLOO_SOCKET_IFNAME's interface.
"""
import gzip
import os
import socket
import sys
import time


def load(images, labels, n):
    import numpy as np
    with gzip.open(images, "rb") as f:
        x = np.frombuffer(f.read(), dtype=np.uint8, offset=16)
    with gzip.open(labels, "rb") as f:
        y = np.frombuffer(f.read(), dtype=np.uint8, offset=8)
    return x[: n * 784].reshape(n, 1, 28, 28) / 255.0, y[:n].astype(np.int64)


def network(kind):
    import torch.nn as nn
    if kind == "mlp":
        return nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))
    return nn.Sequential(
        nn.Conv2d(1, 32, 3), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(1600, 128), nn.ReLU(), nn.Linear(128, 10))


def worker(rank, world, init, kind, precision, batch, steps, files, out):
    os.environ["OMP_NUM_THREADS"] = "1"
    import numpy as np
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP
    torch.set_num_threads(1)
    torch.manual_seed(1)
    dtype = torch.float64 if precision == "float64" else torch.float32
    import datetime
    dist.init_process_group("gloo", init_method=init, rank=rank, world_size=world,
                            timeout=datetime.timedelta(seconds=120))
    local = batch // world
    n = batch * (steps + 3)
    if files:
        x, y = load(files[0], files[1], n)
    else:
        rnd = np.random.default_rng(2)
        x, y = rnd.random((n, 1, 28, 28)), rnd.integers(0, 10, n)
    x = torch.tensor(x, dtype=dtype)
    y = torch.tensor(y, dtype=torch.int64)
    model = network(kind).to(dtype)
    # DDP at 1 worker too (its hooks cost time even there), unless DDP_BENCH_WRAP=0 asks for the plain
    # model, as one process training alone would run it.
    ddp = DDP(model) if os.environ.get("DDP_BENCH_WRAP", "1") == "1" else model
    opt = torch.optim.Adam(ddp.parameters(), lr=1e-3)
    loss_fn = torch.nn.CrossEntropyLoss()

    def step(s):
        lo = s * batch + rank * local
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(ddp(x[lo:lo + local]), y[lo:lo + local])
        loss.backward()
        opt.step()

    for s in range(3):          # warm-up: allocator, gloo connections, first-call paths
        step(s)
    dist.barrier()
    t0 = time.perf_counter()
    for s in range(3, 3 + steps):
        step(s)
    dist.barrier()
    seconds = time.perf_counter() - t0
    if rank == 0:
        out.put(steps * batch / seconds)
    dist.destroy_process_group()


def main():
    kind, precision, workers, batch, steps = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    files = sys.argv[6:8] if len(sys.argv) >= 8 else None
    import torch
    import torch.multiprocessing as mp
    init = os.environ.get("DDP_BENCH_INIT")
    world = int(os.environ.get("DDP_BENCH_WORLD", workers))
    first = int(os.environ.get("DDP_BENCH_FIRST", 0))
    if init is None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            init = "tcp://127.0.0.1:%d" % s.getsockname()[1]
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    procs = [ctx.Process(target=worker, args=(r, world, init, kind, precision, batch, steps, files, out))
             for r in range(first, first + workers)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    if any(p.exitcode != 0 for p in procs):
        sys.exit("a worker failed")
    if first == 0:
        print("samples_per_s %.1f" % out.get())
    print("torch %s" % torch.__version__)


if __name__ == "__main__":
    main()
