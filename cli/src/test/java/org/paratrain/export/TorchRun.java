package org.paratrain.export;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.paratrain.PythonReference;

/**
 * Safetensors exports run by PyTorch, the consumer's own library: a Python script (struct, json
 * and torch, no safetensors package) reads each file's bytes, builds the
 * {@code torch.nn.Sequential} from the architecture the metadata names (independently of the
 * metadata's {@code torch_sequential} code, which it evaluates only to check that it prints as
 * the same network), loads the tensors with {@code load_state_dict(strict=True)}, applies the
 * input scaling the metadata gives, and runs the network on the raw rows. All exports of a
 * call run in one Python process: importing torch takes seconds.
 */
final class TorchRun {
    /** The script, run in the directory of the files; it reads the stems from {@code stems.txt}. */
    static final String SCRIPT = """
        import json, struct, torch
        nn = torch.nn
        torch.set_num_threads(1)
        DTYPES = {"F64": torch.float64, "F32": torch.float32, "I64": torch.int64}

        def load(path):
            data = open(path, "rb").read()
            n, = struct.unpack("<Q", data[:8])
            assert (8 + n) % 8 == 0 and data[8:9] == b"{", "header length %d" % n
            header = json.loads(data[8:8 + n].decode("utf-8"))
            meta = header.pop("__metadata__")
            tensors = {}
            for name, t in header.items():
                begin, end = t["data_offsets"]
                raw = bytearray(data[8 + n + begin:8 + n + end])
                tensors[name] = torch.frombuffer(raw, dtype=DTYPES[t["dtype"]]).reshape(t["shape"])
            return tensors, meta

        def build(m):
            kind, f, k = m["paratrain_model"], int(m["features"]), int(m.get("classes", 0))
            bias = m["intercept"] == "true"
            act = {"relu": nn.ReLU, "tanh": nn.Tanh, "sigmoid": nn.Sigmoid}
            if kind == "linear":
                return nn.Sequential(nn.Linear(f, 1, bias=bias))
            if kind == "logistic":
                return nn.Sequential(nn.Linear(f, 1, bias=bias), nn.Sigmoid())
            if kind == "softmax":
                return nn.Sequential(nn.Linear(f, k, bias=bias), nn.Softmax(dim=1))
            mods = []
            if kind in ("mlp", "mlp-regression"):
                parts = [p for p in m["layers"].split(",") if p]
                sizes = [f] + [int(p) for p in parts if not p.startswith("dropout:")] + [k if kind == "mlp" else 1]
                rates, n = {}, 0
                for p in parts:
                    if p.startswith("dropout:"):
                        rates[n - 1] = float(p.split(":")[1])
                    else:
                        n += 1
                for i in range(len(sizes) - 1):
                    mods.append(nn.Linear(sizes[i], sizes[i + 1]))
                    if i < len(sizes) - 2:
                        mods.append(act[m["activation"]]())
                        if i in rates:
                            mods.append(nn.Dropout(rates[i]))
                return nn.Sequential(*mods, *([nn.Softmax(dim=1)] if kind == "mlp" else []))
            h, w, c = (int(v) for v in m["image_shape"].split("x"))
            image, size = True, None
            layers = m["layers"].split(",") + ["head"]
            for i, layer in enumerate(layers):
                name, *a = layer.split(":")
                relu = [] if layers[i + 1 if i + 1 < len(layers) else i] == "batchnorm" else [nn.ReLU()]
                if name == "conv":
                    mods += [nn.Conv2d(c, int(a[0]), kernel_size=int(a[1]))] + relu
                    c, h, w = int(a[0]), h - int(a[1]) + 1, w - int(a[1]) + 1
                elif name == "batchnorm":
                    mods += [nn.BatchNorm2d(c) if image else nn.BatchNorm1d(size), nn.ReLU()]
                elif name == "dropout":
                    mods.append(nn.Dropout(float(a[0])))
                elif name == "pool":
                    mods.append(nn.MaxPool2d(int(a[0])))
                    h, w = h // int(a[0]), w // int(a[0])
                else:
                    width = k if name == "head" else int(a[0])
                    mods += ([nn.Flatten()] if image else []) + [nn.Linear(h * w * c if image else size, width)]
                    mods += [nn.Softmax(dim=1)] if name == "head" else relu
                    image, size = False, width
            return nn.Sequential(*mods)

        for stem in open("stems.txt").read().split():
            tensors, m = load(stem + ".safetensors")
            dtype = torch.float64 if m["precision"] == "float64" else torch.float32
            model = build(m).to(dtype).eval()   # eval(): Dropout is the identity, as paratrain predicts
            coded = eval(m["torch_sequential"], {"torch": torch})
            assert repr(model) == repr(coded), "%s: torch_sequential %r, the architecture %r" % (stem, coded, model)
            assert all(p.dtype == dtype for p in coded.parameters()), stem + ": torch_sequential's dtype"
            assert all(t.dtype == (torch.int64 if k.endswith(".num_batches_tracked") else dtype)
                       for k, t in tensors.items()), stem + ": the tensors' dtype"
            model.load_state_dict(tensors, strict=True)
            coded.load_state_dict(tensors, strict=True)
            x = torch.frombuffer(bytearray(open(stem + ".rows", "rb").read()), dtype=torch.float64)
            x = x.reshape(-1, int(m["features"]))
            if "pixel_scale" in m:
                x = x / float(m["pixel_scale"])
            if "standardizer_mean" in m:
                mean = torch.tensor(json.loads(m["standardizer_mean"]), dtype=torch.float64)
                x = (x - mean) / torch.tensor(json.loads(m["standardizer_scale"]), dtype=torch.float64)
            if m["paratrain_model"] == "cnn":
                h, w, c = (int(v) for v in m["image_shape"].split("x"))
                x = x.reshape(-1, h, w, c).permute(0, 3, 1, 2)
            with torch.no_grad():
                y = model(x.to(dtype)).to(torch.float64).flatten().tolist()
            open(stem + ".out", "wb").write(struct.pack("<%dd" % len(y), *y))
        """;

    private TorchRun() { }

    /**
     * An export to run.
     *
     * @param stem  the files' name without extension, one a job
     * @param bytes the safetensors file
     * @param rows  raw rows, one after another, as the model file's features
     */
    record Job(String stem, byte[] bytes, double[] rows) { }

    /** {@return each job's outputs, flat, widened to doubles: [N, K] probabilities, or [N, 1] values} */
    static List<double[]> run(Path dir, List<Job> jobs) throws IOException {
        PythonReference.needTorch();
        List<String> stems = new ArrayList<>();
        for (Job j : jobs) {
            Files.write(dir.resolve(j.stem() + ".safetensors"), j.bytes());
            ByteBuffer b = ByteBuffer.allocate(j.rows().length * 8).order(ByteOrder.LITTLE_ENDIAN);
            b.asDoubleBuffer().put(j.rows());
            Files.write(dir.resolve(j.stem() + ".rows"), b.array());
            stems.add(j.stem());
        }
        Files.writeString(dir.resolve("stems.txt"), String.join("\n", stems) + "\n");
        PythonReference.run(dir, SCRIPT);
        List<double[]> out = new ArrayList<>();
        for (Job j : jobs) {
            out.add(PythonReference.float64(dir.resolve(j.stem() + ".out")));
        }
        return out;
    }

    /**
     * {@return what paratrain's outputs a torch network's correspond to}: logistic regression's
     * network gives the probability of class 1 alone, the second of paratrain's two.
     */
    static Comparison.Reference comparable(Comparison.Reference ref, boolean logistic) {
        if (!logistic) {
            return ref;
        }
        double[] p1 = new double[ref.classes().length];
        for (int i = 0; i < p1.length; i++) {
            p1[i] = ref.values()[2 * i + 1];
        }
        return new Comparison.Reference(ref.classes(), p1);
    }

    /** {@return each row's label from torch's outputs: the first largest probability, or p > 1/2 for logistic} */
    static long[] labels(double[] out, int rows, boolean logistic) {
        long[] labels = new long[rows];
        int width = out.length / rows;
        for (int i = 0; i < rows; i++) {
            if (logistic) {
                labels[i] = out[i] > 0.5 ? 1 : 0;
                continue;
            }
            int best = 0;
            for (int k = 1; k < width; k++) {
                best = out[i * width + k] > out[i * width + best] ? k : best;
            }
            labels[i] = best;
        }
        return labels;
    }
}
