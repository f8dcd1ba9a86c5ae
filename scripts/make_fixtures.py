#!/usr/bin/python3
"""Writes the scikit-learn / numpy reference fixtures that paratrain's tests compare against.

Run with Debian's python3 after `apt-get install python3-sklearn`:
    /usr/bin/python3 scripts/make_fixtures.py core/src/test/resources/fixtures
Numbers are written with repr(), the shortest text that reads back to the same bits.
"""
import json
import os
import sys

import numpy as np
import sklearn
from sklearn.datasets import make_classification, make_regression

REGRESSION_CASES = [
    dict(n_samples=500, n_features=1, noise=0.0, random_state=42),
    dict(n_samples=500, n_features=1, noise=20.0, bias=3.5, random_state=0),
    dict(n_samples=101, n_features=5, n_informative=3, noise=1.0, random_state=7),
    dict(n_samples=50, n_features=10, n_informative=10, noise=0.5, bias=-2.0,
         random_state=123, shuffle=False),
    dict(n_samples=37, n_features=3, noise=10.0, random_state=2**32 - 1),
    dict(n_samples=1, n_features=1, noise=1.0, random_state=5),
    dict(n_samples=64, n_features=4, n_informative=0, noise=2.0, random_state=11),
]

# make_classification's main arguments, including the paths where numpy's BLAS sums in an
# order of its own: a redundant column alone (matrix x vector), 16+ informative features
# whose last columns OpenBLAS sums in 8 lanes, more than 30 informative features (random
# leading bits), weights, a random polytope, random shift and scale, no shuffle.
CLASSIFICATION_CASES = [
    dict(random_state=0),
    dict(n_samples=150, n_features=4, n_informative=3, n_redundant=1, n_classes=3,
         n_clusters_per_class=1, random_state=42),
    dict(n_samples=120, n_features=10, n_informative=4, n_redundant=3, n_repeated=2, n_classes=4,
         weights=[0.1, 0.2, 0.3], flip_y=0.1, class_sep=2.0, random_state=7),
    dict(n_samples=90, n_features=8, n_informative=5, n_redundant=2, hypercube=False,
         shift=None, scale=None, random_state=2**32 - 1),
    dict(n_samples=60, n_features=25, n_informative=18, n_redundant=4, n_classes=5,
         n_clusters_per_class=3, flip_y=0.0, random_state=11, shuffle=False),
    dict(n_samples=40, n_features=36, n_informative=33, n_redundant=2, n_classes=3, random_state=5),
    dict(n_samples=7, n_features=3, n_informative=2, n_redundant=0, n_classes=2,
         n_clusters_per_class=2, flip_y=0.5, shift=-1.5, scale=3.0, random_state=1),
    dict(n_samples=1000, n_features=6, n_informative=2, n_redundant=2, n_repeated=1,
         class_sep=0.5, weights=[0.9], random_state=123),
    # One redundant column of 4 informative ones: a matrix x vector product whose rows have no
    # tail past their groups of four (it once read past the row).
    dict(n_samples=60, n_features=6, n_informative=4, n_redundant=1, random_state=5),
]


def floats(a):
    return [float(v) for v in np.ravel(a)]


def regression(out):
    cases = []
    for args in REGRESSION_CASES:
        X, y, coef = make_regression(coef=True, **args)
        cases.append(dict(args=args, X=floats(X), y=floats(y), coef=floats(np.atleast_1d(coef))))
    write(out, "make_regression.json", dict(sklearn=sklearn.__version__,
                                            numpy=np.__version__, cases=cases))


def classification(out):
    cases = []
    for args in CLASSIFICATION_CASES:
        X, y = make_classification(**args)
        cases.append(dict(args=args, X=floats(X), y=[int(v) for v in y]))
    write(out, "make_classification.json", dict(sklearn=sklearn.__version__,
                                                numpy=np.__version__, cases=cases))


def iris_csv(out):
    """Iris as Python's csv module writes it with every field quoted, species as names."""
    import csv
    from sklearn.datasets import load_iris
    iris = load_iris()
    path = os.path.join(out, "iris.csv")
    with open(path + ".tmp", "w", newline="") as f:
        w = csv.writer(f, quoting=csv.QUOTE_ALL)
        w.writerow(list(iris.feature_names) + ["species"])
        for row, k in zip(iris.data, iris.target):
            w.writerow([repr(float(v)) for v in row] + [iris.target_names[k]])
    os.replace(path + ".tmp", path)


def iris_arrays(out):
    """Iris as numpy and scikit-learn save it: an .npz (compressed), an .npy pair, and a LibSVM file
    (one-based, with scikit-learn's comment), the same float64 values as iris.csv, species as 0, 1, 2."""
    from sklearn.datasets import dump_svmlight_file, load_iris
    iris = load_iris()
    np.savez_compressed(os.path.join(out, "iris.npz"), X=iris.data, y=iris.target)
    np.save(os.path.join(out, "iris-X.npy"), iris.data)
    np.save(os.path.join(out, "iris-y.npy"), iris.target)
    dump_svmlight_file(iris.data, iris.target, os.path.join(out, "iris.svm"), zero_based=False,
                       comment="Iris: sepal length, sepal width, petal length, petal width (cm); "
                               "0 setosa, 1 versicolor, 2 virginica")


def metrics(out):
    """scikit-learn's classification metrics on made-up labels, predictions and scores (with ties)."""
    from sklearn.metrics import (accuracy_score, confusion_matrix, precision_recall_fscore_support,
                                 roc_auc_score)
    rs = np.random.RandomState(3)
    cases = []
    for k, n in [(3, 40), (4, 25), (2, 60), (2, 7)]:
        y = rs.randint(k, size=n)
        pred = np.where(rs.uniform(size=n) < 0.7, y, rs.randint(k, size=n))
        if k == 4:
            pred[pred == 3] = 2          # a class never predicted: precision 0 by convention
        p, r, f, s = precision_recall_fscore_support(y, pred, labels=list(range(k)), zero_division=0)
        mp, mr, mf, _ = precision_recall_fscore_support(y, pred, average="macro", zero_division=0)
        case = dict(classes=k, y=[int(v) for v in y], pred=[int(v) for v in pred],
                    accuracy=accuracy_score(y, pred), precision=floats(p), recall=floats(r), f1=floats(f),
                    support=[int(v) for v in s], macro_precision=mp, macro_recall=mr, macro_f1=mf,
                    confusion=confusion_matrix(y, pred, labels=list(range(k))).tolist())
        if k == 2:
            score = np.round(rs.uniform(size=n) * 0.6 + 0.4 * y, 1)   # rounded: many ties
            case.update(score=floats(score), roc_auc=roc_auc_score(y, score))
        cases.append(case)
    write(out, "metrics.json", dict(sklearn=sklearn.__version__, cases=cases))


def random_state(out):
    seeds = []
    for seed in [0, 1, 42, 2**32 - 1, [1, 2, 3], [0], [2**32 - 1] * 700]:
        rs = np.random.RandomState(seed)
        sample = floats(rs.random_sample(700))
        gauss = floats(rs.standard_normal(1001))
        normal = floats(rs.normal(3.0, 2.5, size=5))
        perm = np.arange(1000)
        rs.shuffle(perm)
        small = np.arange(3)
        rs.shuffle(small)
        seeds.append(dict(seed=seed, random_sample=sample, gauss=gauss, normal=normal,
                          shuffle1000=[int(v) for v in perm], shuffle3=[int(v) for v in small]))
    write(out, "random_state.json", dict(numpy=np.__version__, seeds=seeds))


def real_datasets(out):
    from sklearn.datasets import load_breast_cancer, load_diabetes
    for name, loader in [("breast_cancer", load_breast_cancer), ("diabetes", load_diabetes)]:
        X, y = loader(return_X_y=True)
        write(out, name + ".json", dict(sklearn=sklearn.__version__, samples=int(X.shape[0]),
                                        features=int(X.shape[1]), X=floats(X), y=floats(y)))


def write(out, name, obj):
    path = os.path.join(out, name)
    with open(path + ".tmp", "w") as f:
        json.dump(obj, f)
    os.replace(path + ".tmp", path)


if __name__ == "__main__":
    target = sys.argv[1] if len(sys.argv) > 1 else "core/src/test/resources/fixtures"
    regression(target)
    classification(target)
    iris_csv(target)
    iris_arrays(target)
    metrics(target)
    random_state(target)
    real_datasets(target)
