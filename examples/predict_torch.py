"""Predicts with a paratrain safetensors export in PyTorch: python3 predict_torch.py MODEL.safetensors CSV [EXPECTED].

Reads the file with struct, json and torch alone (no safetensors package), builds the torch.nn.Sequential
that its metadata describes, loads the tensors with load_state_dict(strict=True), scales the CSV's columns as
training did, and prints (or checks against EXPECTED, the output of paratrain predict) the predictions.
"""
import csv, json, struct, sys
import torch
from torch import nn

DTYPES = {"F64": torch.float64, "F32": torch.float32}


def load(path):
    """The tensors and the __metadata__ of a safetensors file."""
    with open(path, "rb") as f:
        data = f.read()
    n, = struct.unpack("<Q", data[:8])                  # the header's length, little-endian
    header = json.loads(data[8:8 + n])
    meta = header.pop("__metadata__", {})
    tensors = {}
    for name, t in header.items():                      # offsets are relative to the data after the header
        begin, end = t["data_offsets"]
        raw = bytearray(data[8 + n + begin:8 + n + end])
        tensors[name] = torch.frombuffer(raw, dtype=DTYPES[t["dtype"]]).reshape(t["shape"])
    return tensors, meta


def sequential(m):
    """The network the metadata describes, as docs/export.md shows it for each kind."""
    kind, f, k = m["paratrain_model"], int(m["features"]), int(m.get("classes", 0))
    bias = m["intercept"] == "true"
    act = {"relu": nn.ReLU, "tanh": nn.Tanh, "sigmoid": nn.Sigmoid}.get(m.get("activation"))
    if kind in ("linear", "logistic", "softmax"):
        head = {"linear": [], "logistic": [nn.Sigmoid()], "softmax": [nn.Softmax(dim=1)]}[kind]
        return nn.Sequential(nn.Linear(f, k if kind == "softmax" else 1, bias=bias), *head)
    layers = []
    if kind in ("mlp", "mlp-regression"):
        sizes, after = [f], {}                                 # after: a hidden layer's dropout rate
        for part in (p for p in m["layers"].split(",") if p):  # "256,dropout:0.5,128"
            if part.startswith("dropout:"):
                after[len(sizes) - 2] = float(part.split(":")[1])
            else:
                sizes.append(int(part))
        sizes.append(k if kind == "mlp" else 1)
        for i in range(len(sizes) - 1):
            layers += [nn.Linear(sizes[i], sizes[i + 1])] + ([act()] if i < len(sizes) - 2 else [])
            layers += [nn.Dropout(after[i])] if i in after else []
        return nn.Sequential(*layers, *([nn.Softmax(dim=1)] if kind == "mlp" else []))
    h, w, c = (int(v) for v in m["image_shape"].split("x"))    # cnn: NCHW images in
    size = None                                                # the width of the last dense layer, once flat
    for layer in m["layers"].split(",") + ["head"]:
        name, *a = layer.split(":")
        if name == "conv":
            layers += [nn.Conv2d(c, int(a[0]), kernel_size=int(a[1])), nn.ReLU()]
            c, h, w = int(a[0]), h - int(a[1]) + 1, w - int(a[1]) + 1
        elif name == "dropout":                                # the identity in eval()
            layers.append(nn.Dropout(float(a[0])))
        elif name == "pool":
            layers.append(nn.MaxPool2d(int(a[0])))
            h, w = h // int(a[0]), w // int(a[0])
        else:
            out = k if name == "head" else int(a[0])
            layers += ([nn.Flatten(), nn.Linear(h * w * c, out)] if size is None else [nn.Linear(size, out)])
            layers.append(nn.Softmax(dim=1) if name == "head" else nn.ReLU())
            size = out
    return nn.Sequential(*layers)


def scaled(m, x):
    """The rows as the model saw them in training: pixels / 255 for IDX images, then (x - mean) / scale."""
    if "pixel_scale" in m:
        x = x / float(m["pixel_scale"])
    if "standardizer_mean" in m:
        mean = torch.tensor(json.loads(m["standardizer_mean"]), dtype=torch.float64)
        x = (x - mean) / torch.tensor(json.loads(m["standardizer_scale"]), dtype=torch.float64)
    if m["paratrain_model"] == "cnn":                   # rows hold height x width x channels: to NCHW
        h, w, c = (int(v) for v in m["image_shape"].split("x"))
        x = x.reshape(-1, h, w, c).permute(0, 3, 1, 2)
    return x


tensors, meta = load(sys.argv[1])
dtype = torch.float64 if meta["precision"] == "float64" else torch.float32
model = sequential(meta).to(dtype).eval()              # eval(): dropout off, as in paratrain's predictions
model.load_state_dict(tensors, strict=True)             # every tensor there, no other, each of its shape
with open(sys.argv[2], newline="") as f:
    rows = list(csv.DictReader(f))
names = json.loads(meta["feature_names"])
x = torch.tensor([[float(r[n]) for n in names] for r in rows], dtype=torch.float64)   # columns by name
with torch.no_grad():
    y = model(scaled(meta, x).to(dtype))
kind = meta["paratrain_model"]
if kind in ("linear", "mlp-regression"):
    got = ["%r" % v for v in y[:, 0].tolist()]
else:
    classes = (y[:, 0] > 0.5).long() if kind == "logistic" else y.argmax(dim=1)
    labels = json.loads(meta["class_names"])
    got = [labels[c] for c in classes.tolist()]
if len(sys.argv) > 3:                                   # the same predictions as paratrain predict's
    want = open(sys.argv[3]).read().split()
    assert len(got) == len(want), "%d predictions, %s has %d" % (len(got), sys.argv[3], len(want))
    if kind in ("linear", "mlp-regression"):            # values: as close as the precision allows, for their size
        scale = max(abs(float(b)) for b in want) or 1.0
        worst = max(abs(float(a) - float(b)) for a, b in zip(got, want)) / scale
        assert worst < (1e-9 if dtype == torch.float64 else 1e-5), "differs from %s by %.1e" % (sys.argv[3], worst)
    else:
        assert got == want, "differs from %s at %d rows" % (sys.argv[3], sum(a != b for a, b in zip(got, want)))
print("%d predictions, e.g. %s" % (len(got), ", ".join(got[:3])))
