package org.paratrain.export;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.paratrain.model.ConvNet;
import org.paratrain.model.MultilayerPerceptron;
import org.paratrain.train.spec.ModelSpec;

/**
 * A model kind's parameters as the {@code state_dict} of the equivalent PyTorch
 * {@code torch.nn.Sequential}: the modules in order, and for each tensor its name
 * ({@code INDEX.weight}, {@code INDEX.bias}, the index of its module), its shape, and where
 * each of its values (row-major) sits in paratrain's flat parameters. Export gathers through
 * that map and import scatters through it, so the two are each other's inverse by construction;
 * the constructor checks that the map visits every parameter exactly once.
 *
 * <p>The layouts (paratrain's in {@code docs/model-format.md}):
 * <ul>
 *   <li>linear and logistic: {@code Linear(d, 1)}, weight {@code [1, d]}, bias {@code [1]} only
 *       with an intercept ({@code bias=False} without); logistic then {@code Sigmoid};
 *   <li>softmax: {@code Linear(d, K)}, W as stored ({@code [K, d]}), then {@code Softmax(dim=1)};
 *   <li>MLP: per layer {@code Linear(in, out)} whose weight {@code [out, in]} is paratrain's
 *       {@code in x out} matrix transposed, the activation between layers, {@code Softmax(dim=1)}
 *       after a classifier's last;
 *   <li>CNN, on NCHW images {@code [N, C, H, W]}: {@code Conv2d(c, f, k)} with weight
 *       {@code [f, c, k, k]} from paratrain's {@code (k k c) x f} filter matrix (rows
 *       {@code (dy k + dx) c + channel}), then {@code ReLU}; {@code MaxPool2d(p)};
 *       {@code Flatten()} before the first dense layer, whose columns are permuted from
 *       paratrain's channels-last order {@code (y W + x) C + channel} to PyTorch's NCHW flatten
 *       order {@code channel H W + y W + x}; dense layers as the MLP's with {@code ReLU}; the
 *       head and {@code Softmax(dim=1)}.
 * </ul>
 */
final class TorchLayout {
    /**
     * One tensor of the state_dict.
     *
     * @param name  {@code INDEX.weight} or {@code INDEX.bias}
     * @param shape its dimensions, PyTorch's order
     * @param index for each value in row-major order, its position in paratrain's parameters
     */
    record Entry(String name, long[] shape, int[] index) {
        /** {@return the shape as PyTorch prints a size, {@code [16, 4]}} */
        String shapeText() {
            return Arrays.toString(shape);
        }
    }

    private final List<Entry> tensors = new ArrayList<>();
    /** Each batch normalisation module's {@code INDEX.num_batches_tracked}: an int64 scalar PyTorch keeps beside the values. */
    private final List<String> counters = new ArrayList<>();
    private final List<String> modules = new ArrayList<>();
    private final String kind;
    private final int parameters;

    private TorchLayout(String kind, int parameters) {
        this.kind = kind;
        this.parameters = parameters;
    }

    /**
     * {@return the layout of {@code spec}'s model for {@code features} inputs and {@code classes} classes}
     * @throws IllegalStateException if the layout does not place each parameter exactly once
     */
    static TorchLayout of(ModelSpec spec, int features, int classes) {
        TorchLayout t = new TorchLayout(spec.kind(), spec.newModel(features, classes).parameterCount());
        switch (spec) {
            case ModelSpec.Linear l -> t.linearHead(features, l.intercept(), null);
            case ModelSpec.Logistic l -> t.linearHead(features, l.intercept(), "torch.nn.Sigmoid()");
            case ModelSpec.Softmax s -> t.softmax(features, classes, s.intercept());
            case ModelSpec.Mlp m -> t.mlp(features, classes, m);
            case ModelSpec.Cnn c -> t.cnn(c.shape(features), classes, c);
        }
        t.checkCoverage();
        return t;
    }

    /** {@return the tensors, in the state_dict's order} */
    List<Entry> tensors() {
        return tensors;
    }

    /**
     * {@return the names of the batch normalisation modules' {@code num_batches_tracked} counters,
     * which PyTorch's {@code state_dict} holds (an int64 scalar each) and paratrain has no use
     * for: its momentum is fixed, so the count never enters its arithmetic. Exported as 0 so that
     * {@code load_state_dict(strict=True)} finds every key; ignored on import.}
     */
    List<String> counters() {
        return counters;
    }

    /** {@return the model's kind} */
    String kind() {
        return kind;
    }

    /** {@return the number of paratrain parameters the tensors hold} */
    int parameters() {
        return parameters;
    }

    /** {@return the {@code torch.nn.Sequential} as Python code, its dtype set by {@code .to(dtype)}} */
    String code(String dtype) {
        StringBuilder sb = new StringBuilder("torch.nn.Sequential(\n");
        for (String m : modules) {
            sb.append("    ").append(m).append(",\n");
        }
        return sb.append(").to(torch.").append(dtype).append(')').toString();
    }

    /** {@return the values of tensor {@code e}, row-major, from paratrain's {@code params}} */
    static double[] gather(Entry e, double[] params) {
        double[] v = new double[e.index().length];
        for (int i = 0; i < v.length; i++) {
            v[i] = params[e.index()[i]];
        }
        return v;
    }

    /** Puts tensor {@code e}'s row-major {@code values} into their places in {@code params}. */
    static void scatter(Entry e, double[] values, double[] params) {
        for (int i = 0; i < values.length; i++) {
            params[e.index()[i]] = values[i];
        }
    }

    /** A regression's or logistic regression's one output: {@code w_0 .. w_(d-1)}, then b. */
    private void linearHead(int d, boolean intercept, String head) {
        int at = module("torch.nn.Linear(" + d + ", 1" + (intercept ? "" : ", bias=False") + ")");
        add(at + ".weight", new long[] {1, d}, range(0, d));
        if (intercept) {
            add(at + ".bias", new long[] {1}, range(d, 1));
        }
        if (head != null) {
            module(head);
        }
    }

    /** W class by class ({@code [K, d]} as stored), then the K biases. */
    private void softmax(int d, int k, boolean intercept) {
        int at = module("torch.nn.Linear(" + d + ", " + k + (intercept ? "" : ", bias=False") + ")");
        add(at + ".weight", new long[] {k, d}, range(0, k * d));
        if (intercept) {
            add(at + ".bias", new long[] {k}, range(k * d, k));
        }
        module("torch.nn.Softmax(dim=1)");
    }

    private void mlp(int features, int classes, ModelSpec.Mlp spec) {
        boolean classifier = spec.head() == MultilayerPerceptron.Head.SOFTMAX;
        List<Integer> widths = new ArrayList<>(List.of(features));
        widths.addAll(spec.hidden());
        widths.add(classifier ? classes : 1);
        int at = 0;
        for (int l = 1; l < widths.size(); l++) {
            at = dense(at, widths.get(l - 1), widths.get(l), null);
            if (l < widths.size() - 1) {
                module(activation(spec.activation()));
                if (spec.dropout().get(l - 1) != 0.0) {
                    module("torch.nn.Dropout(" + spec.dropout().get(l - 1) + ")");    // identity in eval()
                }
            }
        }
        if (classifier) {
            module("torch.nn.Softmax(dim=1)");
        }
    }

    private void cnn(ConvNet.Shape shape, int classes, ModelSpec.Cnn spec) {
        ConvNet.Shape s = shape;
        boolean image = true;       // whether the values are still an image (not yet flattened)
        int at = 0;
        List<ConvNet.Layer> layers = spec.layers();
        for (int l = 0; l < layers.size(); l++) {
            ConvNet.Layer layer = layers.get(l);
            // A layer followed by batchnorm has its ReLU after the normalisation.
            boolean normalised = l + 1 < layers.size() && layers.get(l + 1) instanceof ConvNet.BatchNorm;
            switch (layer) {
                case ConvNet.Conv c -> {
                    at = conv(at, s.channels(), c);
                    if (!normalised) {
                        module("torch.nn.ReLU()");
                    }
                    s = new ConvNet.Shape(s.height() - c.kernel() + 1, s.width() - c.kernel() + 1, c.filters());
                }
                case ConvNet.Pool p -> {
                    module("torch.nn.MaxPool2d(" + p.size() + ")");
                    s = new ConvNet.Shape(s.height() / p.size(), s.width() / p.size(), s.channels());
                }
                case ConvNet.Dense d -> {
                    at = dense(at, s.size(), d.width(), image ? s : null);
                    image = false;
                    if (!normalised) {
                        module("torch.nn.ReLU()");
                    }
                    s = new ConvNet.Shape(1, 1, d.width());
                }
                case ConvNet.BatchNorm b -> {
                    at = batchNorm(at, s.channels(), image);
                    module("torch.nn.ReLU()");
                }
                // Identity in eval(); a module of its own, so the later modules keep PyTorch's numbering.
                case ConvNet.Dropout r -> module("torch.nn.Dropout(" + r.rate() + ")");
            }
        }
        dense(at, s.size(), classes, image ? s : null);
        module("torch.nn.Softmax(dim=1)");
    }

    /**
     * A dense layer stored from {@code at} as an {@code in x out} matrix row by row, then the
     * {@code out} biases, as {@code Linear(in, out)}: weight {@code [out, in]}. {@code image},
     * when not null, is the shape of the image it follows: a {@code Flatten()} goes first, and
     * PyTorch's column {@code channel H W + y W + x} takes paratrain's row {@code (y W + x) C + channel}.
     *
     * @return the offset after the layer's parameters
     */
    private int dense(int at, int in, int out, ConvNet.Shape image) {
        if (image != null) {
            module("torch.nn.Flatten()");
        }
        int m = module("torch.nn.Linear(" + in + ", " + out + ")");
        int[] w = new int[in * out];
        for (int o = 0; o < out; o++) {
            for (int t = 0; t < in; t++) {
                w[o * in + t] = at + row(t, image) * out + o;
            }
        }
        add(m + ".weight", new long[] {out, in}, w);
        add(m + ".bias", new long[] {out}, range(at + in * out, out));
        return at + in * out + out;
    }

    /** paratrain's row (channels last) of PyTorch's flattened column {@code t} (NCHW), or {@code t} itself. */
    private static int row(int t, ConvNet.Shape image) {
        if (image == null) {
            return t;
        }
        int plane = image.height() * image.width();
        int channel = t / plane;
        int pixel = t % plane;          // y W + x
        return pixel * image.channels() + channel;
    }

    /**
     * Batch normalisation of {@code c} channels: {@code BatchNorm2d(c)} on an image,
     * {@code BatchNorm1d(c)} after a dense layer; weight (gamma), bias (beta), running mean and
     * running variance, c values each, as paratrain stores them; and PyTorch's
     * {@code num_batches_tracked} counter ({@link #counters}).
     */
    private int batchNorm(int at, int c, boolean image) {
        int m = module("torch.nn.BatchNorm" + (image ? "2d(" : "1d(") + c + ")");
        add(m + ".weight", new long[] {c}, range(at, c));
        add(m + ".bias", new long[] {c}, range(at + c, c));
        add(m + ".running_mean", new long[] {c}, range(at + 2 * c, c));
        add(m + ".running_var", new long[] {c}, range(at + 3 * c, c));
        counters.add(m + ".num_batches_tracked");
        return at + 4 * c;
    }

    /** A convolution: filter matrix {@code (k k c) x f} from {@code at}, then f biases, as {@code [f, c, k, k]}. */
    private int conv(int at, int c, ConvNet.Conv conv) {
        int k = conv.kernel();
        int f = conv.filters();
        int m = module("torch.nn.Conv2d(" + c + ", " + f + ", kernel_size=" + k + ")");
        int[] w = new int[f * c * k * k];
        for (int filter = 0; filter < f; filter++) {
            for (int channel = 0; channel < c; channel++) {
                for (int dy = 0; dy < k; dy++) {
                    for (int dx = 0; dx < k; dx++) {
                        w[((filter * c + channel) * k + dy) * k + dx] = at + ((dy * k + dx) * c + channel) * f + filter;
                    }
                }
            }
        }
        add(m + ".weight", new long[] {f, c, k, k}, w);
        add(m + ".bias", new long[] {f}, range(at + k * k * c * f, f));
        return at + (k * k * c + 1) * f;
    }

    private static String activation(MultilayerPerceptron.Activation a) {
        return "torch.nn." + switch (a) {
            case RELU -> "ReLU";
            case TANH -> "Tanh";
            case SIGMOID -> "Sigmoid";
        } + "()";
    }

    /** Appends a module; {@return its index in the Sequential} */
    private int module(String code) {
        modules.add(code);
        return modules.size() - 1;
    }

    private void add(String name, long[] shape, int[] index) {
        tensors.add(new Entry(name, shape, index));
    }

    private static int[] range(int from, int n) {
        int[] r = new int[n];
        for (int i = 0; i < n; i++) {
            r[i] = from + i;
        }
        return r;
    }

    /** Every parameter in exactly one tensor value: what makes export and import each other's inverse. */
    private void checkCoverage() {
        boolean[] seen = new boolean[parameters];
        long placed = 0;
        for (Entry e : tensors) {
            for (int i : e.index()) {
                if (i < 0 || i >= parameters || seen[i]) {
                    throw new IllegalStateException("the " + kind + "'s PyTorch layout places parameter " + i
                        + (i < 0 || i >= parameters ? ", outside its " + parameters : " twice"));
                }
                seen[i] = true;
                placed++;
            }
        }
        if (placed != parameters) {
            throw new IllegalStateException(String.format(Locale.ROOT, "the %s's PyTorch layout places %d of its %d "
                + "parameters", kind, placed, parameters));
        }
    }
}
