"""Predicts with a paratrain model.json in numpy alone: python3 predict_numpy.py MODEL CSV [EXPECTED]."""
import csv, json, sys
import numpy as np

def predict(m, X):
    """Class names (classifiers) or values (regressions) for raw rows X, as paratrain predict gives them."""
    assert m["format"] == "paratrain-model" and m["version"] == 1, "not a paratrain model file of version 1"
    if m.get("standardizer"):
        X = (X - np.array(m["standardizer"]["mean"])) / np.array(m["standardizer"]["scale"])
    p, F, K, kind = np.array(m["params"]), m["features"], m["classes"], m["model"]
    if kind in ("linear", "logistic"):                  # F weights, then the bias if any
        z = X @ p[:F] + (p[F] if m["intercept"] else 0.0)
        out = z if kind == "linear" else (z > 0).astype(int)
    elif kind == "softmax":                             # K x F weights, class by class, then K biases
        z = X @ p[:K * F].reshape(K, F).T + (p[K * F:] if m["intercept"] else 0.0)
        out = np.argmax(z, axis=1)
    elif kind in ("mlp", "mlp-regression"):             # each layer: in x out weights, then out biases
        act = {"relu": lambda z: np.maximum(z, 0), "tanh": np.tanh, "sigmoid": lambda z: 1 / (1 + np.exp(-z))}
        sizes = [F] + [int(w) for w in m["layers"].split(",") if w] + [K if kind == "mlp" else 1]
        a, at = X, 0
        for i, (n, k) in enumerate(zip(sizes, sizes[1:])):
            a = a @ p[at:at + n * k].reshape(n, k) + p[at + n * k:at + n * k + k]
            at += n * k + k
            a = act[m["activation"]](a) if i < len(sizes) - 2 else a
        out = np.argmax(a, axis=1) if kind == "mlp" else a[:, 0]
    else:
        raise SystemExit("this loader reads linear, logistic, softmax and MLP models, not " + kind)
    names = m.get("class_names")
    return [names[c] for c in out] if names and kind not in ("linear", "mlp-regression") else list(out)

model = json.load(open(sys.argv[1]))
with open(sys.argv[2], newline="") as f:
    rows = list(csv.DictReader(f))
X = np.array([[float(r[name]) for name in model["feature_names"]] for r in rows])  # columns by name
got = [str(v) for v in predict(model, X)]
if len(sys.argv) > 3:                                   # the same predictions as paratrain predict's
    want = open(sys.argv[3]).read().split()
    assert got == want, "differs from %s at %d rows" % (sys.argv[3], sum(a != b for a, b in zip(got, want)))
print("%d predictions, e.g. %s" % (len(got), ", ".join(got[:3])))
