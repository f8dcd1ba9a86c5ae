package org.paratrain.model;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.paratrain.data.HeapBudget;
import org.paratrain.model.ConvNet.Conv;
import org.paratrain.model.ConvNet.Dense;
import org.paratrain.model.ConvNet.Layer;
import org.paratrain.model.ConvNet.Pool;
import org.paratrain.model.ConvNet.Shape;
import org.paratrain.model.ConvNet.Stage;

/**
 * Where the layers of a {@link ConvNet} lie: each layer's input and output shapes, its patch
 * size and its parameters' offset, then the head's; and the seeded initialisation of those
 * parameters.
 *
 * <p>Apart from the network so that the size arithmetic, counted in longs and refused before
 * it outgrows an array, reads in one place, and the network class keeps its API and passes.
 * Building one checks every layer in order and names the first that does not fit.
 */
final class ConvLayout {
    /** The given layers, then the head: dense to the classes, no ReLU. */
    final Stage[] stages;
    /** Whether stage s applies a ReLU to its output: a hidden conv or dense layer not followed by batchnorm, or a batchnorm. */
    final boolean[] relu;
    final int parameters;
    /** Whether a stage is batch normalisation: training then sums statistics over the step's blocks. */
    final boolean normalises;
    private long p;             // parameters placed so far
    private long scratch;       // a sample's values in the largest chunk buffer: an output, or a convolution's patches
    private boolean flat;       // a dense layer has flattened the image
    private Layer previous;     // the layer placed last

    /**
     * Places the layers over images of this shape, then the head over K classes.
     *
     * @throws IllegalArgumentException naming the layer a shape does not fit, or if the
     *     parameters or a chunk's scratch would not fit an array
     */
    ConvLayout(Shape image, List<Layer> layers, int classes) {
        List<Stage> s = new ArrayList<>();
        Shape shape = image;
        for (Layer layer : layers) {
            Stage st = place(layer, shape);
            s.add(st);
            shape = st.out();
        }
        p += ((long) shape.size() + 1) * classes;
        if (p > HeapBudget.MAX_ARRAY) {
            throw new IllegalArgumentException("--layers: these layers make " + p + " parameters, more than an array "
                + "holds (" + HeapBudget.MAX_ARRAY + ")");
        }
        if (scratch * ConvNet.CHUNK > HeapBudget.MAX_ARRAY) {
            throw new IllegalArgumentException("--layers: these layers need " + scratch + " values of scratch a "
                + "sample, more than an array holds for " + ConvNet.CHUNK + " samples");
        }
        Stage head = new Stage(new Dense(classes), shape, new Shape(1, 1, classes),
            (int) (p - ((long) shape.size() + 1) * classes), 0);
        s.add(head);
        stages = s.toArray(new Stage[0]);
        parameters = (int) p;
        relu = new boolean[stages.length];
        for (int k = 0; k < stages.length - 1; k++) {
            Layer l = stages[k].layer();
            boolean normalised = stages[k + 1].layer() instanceof ConvNet.BatchNorm;
            relu[k] = l instanceof ConvNet.BatchNorm || ((l instanceof Conv || l instanceof Dense) && !normalised);
        }
        normalises = s.stream().anyMatch(st -> st.layer() instanceof ConvNet.BatchNorm);
    }

    /** The layer over an input of this shape, its parameters after those placed so far. */
    private Stage place(Layer layer, Shape shape) {
        Shape out;
        int patch = 0;
        switch (layer) {
            case Conv c -> {
                check(!flat, layer, "comes after a dense layer");
                check(c.kernel() <= Math.min(shape.height(), shape.width()), layer, "needs an input of at least "
                    + c.kernel() + "x" + c.kernel() + ", got " + shape);
                long cells = (long) c.kernel() * c.kernel() * shape.channels();
                long pixels = (long) (shape.height() - c.kernel() + 1) * (shape.width() - c.kernel() + 1);
                check(cells < HeapBudget.MAX_ARRAY && pixels * c.filters() <= HeapBudget.MAX_ARRAY, layer,
                    "makes outputs larger than an array holds");
                scratch = Math.max(scratch, pixels * (cells + 1));
                patch = (int) cells;
                out = new Shape(shape.height() - c.kernel() + 1, shape.width() - c.kernel() + 1, c.filters());
            }
            case Pool q -> {
                check(!flat, layer, "comes after a dense layer");
                check(q.size() <= Math.min(shape.height(), shape.width()), layer, "needs an input of at least "
                    + q.size() + "x" + q.size() + ", got " + shape);
                out = new Shape(shape.height() / q.size(), shape.width() / q.size(), shape.channels());
            }
            case Dense d -> {
                flat = true;
                out = new Shape(1, 1, d.width());
            }
            case ConvNet.Dropout r -> out = shape;
            case ConvNet.BatchNorm b -> {
                check(previous instanceof Conv || previous instanceof Dense, layer,
                    "must follow a conv or dense layer (it normalises that layer's outputs before its ReLU)");
                out = shape;
            }
        }
        previous = layer;
        Stage st = new Stage(layer, shape, out, (int) Math.min(p, Integer.MAX_VALUE), patch);
        p += layer instanceof Pool || layer instanceof ConvNet.Dropout ? 0
            : layer instanceof ConvNet.BatchNorm ? 4L * st.units() : ((long) st.fanIn() + 1) * st.units();
        scratch = Math.max(scratch, out.size());
        return st;
    }

    private static void check(boolean ok, Layer layer, String what) {
        if (!ok) {
            throw new IllegalArgumentException("--layers: " + layer.label() + " " + what);
        }
    }

    /**
     * He (normal) for the convolutions and hidden dense layers, Xavier (uniform) for the head,
     * biases 0; batch normalisation's {@code gamma} 1, {@code beta} 0, running mean 0 and
     * variance 1 (PyTorch's start).
     */
    void initialize(double[] params, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        Arrays.fill(params, 0.0);
        for (int s = 0; s < stages.length; s++) {
            Stage st = stages[s];
            if (st.layer() instanceof ConvNet.BatchNorm) {
                int c = st.units();
                Arrays.fill(params, st.offset(), st.offset() + c, 1.0);
                Arrays.fill(params, st.offset() + 3 * c, st.offset() + 4 * c, 1.0);
                continue;
            }
            if (st.layer() instanceof Pool || st.layer() instanceof ConvNet.Dropout) {
                continue;
            }
            int in = st.fanIn();
            int out = st.units();
            boolean head = s == stages.length - 1;
            double sd = Math.sqrt(2.0 / in);
            double limit = Math.sqrt(6.0 / (in + out));
            for (int k = 0; k < in * out; k++) {
                params[st.offset() + k] = head ? limit * (2 * rnd.nextDouble() - 1)
                    : sd * MultilayerPerceptron.gaussian(rnd);
            }
        }
    }

    /** {@return the weighted layers' parameter ranges in backward order (see {@link Model#backwardRanges})} */
    int[] backwardRanges() {
        List<int[]> r = new ArrayList<>();
        for (int s = stages.length - 1; s >= 0; s--) {
            Stage st = stages[s];
            if (st.layer() instanceof Conv || st.layer() instanceof Dense) {
                r.add(new int[] {st.offset(), st.offset() + (st.fanIn() + 1) * st.units()});
            }
        }
        int[] out = new int[2 * r.size()];
        for (int i = 0; i < r.size(); i++) {
            out[2 * i] = r.get(i)[0];
            out[2 * i + 1] = r.get(i)[1];
        }
        return out;
    }

    /**
     * {@return each weighted layer's backward share of a block's multiply-adds, in the order of
     * {@link #backwardRanges()} (see {@link Model#backwardShares})}
     */
    double[] backwardShares() {
        List<Double> backward = new ArrayList<>();
        double total = 0;
        for (int s = 0; s < stages.length; s++) {
            Stage st = stages[s];
            if (st.layer() instanceof Conv || st.layer() instanceof Dense) {
                double macs = (double) st.pixels() * st.fanIn() * st.units();
                double b = (s == 0 ? 1 : 2) * macs;     // the image itself needs no gradient
                backward.add(0, b);                     // backward order: the last layer's first
                total += macs + b;
            }
        }
        double[] shares = new double[backward.size()];
        for (int i = 0; i < shares.length; i++) {
            shares[i] = backward.get(i) / total;
        }
        return shares;
    }
}
