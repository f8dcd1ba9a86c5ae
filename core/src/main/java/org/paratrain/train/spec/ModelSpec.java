package org.paratrain.train.spec;

import java.util.List;
import org.paratrain.data.Dataset;
import org.paratrain.model.ConvNet;
import org.paratrain.model.LinearRegression;
import org.paratrain.model.LogisticRegression;
import org.paratrain.model.Model;
import org.paratrain.model.MultilayerPerceptron;
import org.paratrain.model.MultilayerPerceptron.Activation;
import org.paratrain.model.MultilayerPerceptron.Head;
import org.paratrain.model.SoftmaxRegression;

/**
 * Which model is trained: its kind and shape, but not its size in features, which the data
 * decides. {@link #newModel} builds it; {@link #classes} checks labels against it.
 */
public sealed interface ModelSpec {

    /** {@return the kind, as in model files and on the command line ({@code mlp})} */
    String kind();

    /** {@return whether the model has a bias term (every network layer has biases)} */
    boolean intercept();

    /** {@return the number of classes given, 0 where counted from the labels or not a classifier} */
    int classes();

    /**
     * {@return how the parameters start, in words, for the records}
     * @param seed the run's seed, which seeds a network's initialisation
     */
    default String initialWeights(long seed) {
        return "zeros";   // the linear models' start; the networks say how their seed draws theirs
    }

    /**
     * The model for data with {@code features} features and {@code classes} classes (as
     * {@link #classes(Dataset)} returned).
     *
     * @param features inputs per sample
     * @param classes  number of classes of a classifier, ignored otherwise
     * @return a fresh model
     */
    Model newModel(int features, int classes);

    /**
     * {@return the number of parameters of this model for {@code features} inputs and
     * {@code classes} classes, counted in {@code long}: a shape too large for one array is
     * refused by the caller, not overflowed}
     * @param features inputs per sample
     * @param classes  classes of a classifier (ignored otherwise)
     */
    default long parameterCount(int features, int classes) {
        return ModelSpecs.parameterCount(this, features, classes);
    }

    /**
     * {@return this model trained in {@code precision}: float32 is for the networks, whose
     * matrix products it speeds up; the linear models keep float64}
     * @param precision the arithmetic of the forward and backward passes
     * @throws SpecException for float32 with a model other than an MLP
     */
    default ModelSpec withPrecision(MultilayerPerceptron.Precision precision) {
        SpecException.check(precision == MultilayerPerceptron.Precision.FLOAT64, "precision",
            "float32 is for the networks (mlp, mlp-regression, cnn), got model " + kind());
        return this;
    }

    /** {@return the arithmetic of training: float64, or float32 for a network that asked for it} */
    default MultilayerPerceptron.Precision precision() {
        return MultilayerPerceptron.Precision.FLOAT64;
    }

    /** {@return whether labels are class indices} */
    default boolean classifier() {
        return false;
    }

    /**
     * Checks that the labels suit this model and returns the number of classes: 0 for a
     * regression, 2 for logistic, the given number or else 1 + the largest label.
     *
     * @param data training data
     * @return the number of classes, 0 for a regression
     * @throws IllegalArgumentException naming the first sample whose label is not a class
     */
    default int classes(Dataset data) {
        return ModelSpecs.labels(this, data);
    }

    /**
     * Least squares, {@code y = w.x (+ b)}: the paper's model.
     *
     * @param intercept whether to learn a bias term
     */
    record Linear(boolean intercept) implements ModelSpec {
        @Override
        public String kind() {
            return "linear";
        }

        @Override
        public int classes() {
            return 0;
        }

        @Override
        public Model newModel(int features, int classes) {
            return new LinearRegression(features, intercept);
        }
    }

    /**
     * Binary logistic regression, labels 0 and 1.
     *
     * @param intercept whether to learn a bias term
     */
    record Logistic(boolean intercept) implements ModelSpec {
        @Override
        public String kind() {
            return "logistic";
        }

        @Override
        public int classes() {
            return 2;
        }

        @Override
        public boolean classifier() {
            return true;
        }

        @Override
        public Model newModel(int features, int classes) {
            return new LogisticRegression(features, intercept);
        }
    }

    /**
     * Multinomial logistic regression, labels 0..K-1.
     *
     * @param classes   K, or 0 to count the classes from the labels
     * @param intercept whether to learn a bias per class
     */
    record Softmax(int classes, boolean intercept) implements ModelSpec {
        /** Checks the number of classes. */
        public Softmax {
            ModelSpecs.checkClasses(classes);
        }

        @Override
        public String kind() {
            return "softmax";
        }

        @Override
        public boolean classifier() {
            return true;
        }

        @Override
        public Model newModel(int features, int classes) {
            return new SoftmaxRegression(features, classes, intercept);
        }
    }

    /**
     * A multilayer perceptron: fully connected hidden layers with biases, and a softmax
     * (classes) or squared-error (regression) head.
     *
     * @param hidden     hidden-layer widths, input side first; may be empty
     * @param activation hidden-layer nonlinearity, which also picks the initialisation
     * @param head       the output layer and its loss
     * @param classes    K for a softmax head, or 0 to count; 0 for a squared-error head
     * @param precision  the arithmetic of the forward and backward passes (float64 by default)
     * @param dropout    the dropout rate after each hidden layer, in [0, 1) (0: none); as many as
     *                   {@code hidden}, or null for none
     */
    record Mlp(List<Integer> hidden, Activation activation, Head head, int classes,
               MultilayerPerceptron.Precision precision, List<Double> dropout) implements ModelSpec {
        /**
         * A network trained in double precision.
         *
         * @param hidden     the hidden layers' widths
         * @param activation their nonlinearity
         * @param head       the output layer and its loss
         * @param classes    K for the softmax head (0 to count them), 0 for the squared-error head
         */
        public Mlp(List<Integer> hidden, Activation activation, Head head, int classes) {
            this(hidden, activation, head, classes, MultilayerPerceptron.Precision.FLOAT64);
        }

        /**
         * A network without dropout.
         *
         * @param hidden     the hidden layers' widths
         * @param activation their nonlinearity
         * @param head       the output layer and its loss
         * @param classes    K for the softmax head (0 to count them), 0 for the squared-error head
         * @param precision  the arithmetic of the passes
         */
        public Mlp(List<Integer> hidden, Activation activation, Head head, int classes,
                   MultilayerPerceptron.Precision precision) {
            this(hidden, activation, head, classes, precision, null);
        }

        /** Checks the widths, the rates and the classes, and keeps unmodifiable copies of the lists. */
        public Mlp {
            hidden = ModelSpecs.checkMlp(hidden, activation, head, classes, precision);
            dropout = ModelSpecs.checkDropout(hidden, dropout);
        }

        @Override
        public String kind() {
            return head == Head.SOFTMAX ? "mlp" : "mlp-regression";
        }

        @Override
        public boolean intercept() {
            return true;
        }

        @Override
        public boolean classifier() {
            return head == Head.SOFTMAX;
        }

        /**
         * {@return the hidden layers as the command line writes them: the widths, each followed by
         * its dropout when it has one ({@code 256,dropout:0.5,128})}
         */
        public String layers() {
            List<String> parts = new java.util.ArrayList<>();
            for (int l = 0; l < hidden.size(); l++) {
                parts.add(String.valueOf(hidden.get(l)));
                if (dropout.get(l) != 0.0) {
                    parts.add("dropout:" + dropout.get(l));
                }
            }
            return String.join(",", parts);
        }

        @Override
        public String initialWeights(long seed) {
            String first = activation == Activation.RELU ? "he-normal" : "xavier-uniform";
            return first + " hidden layers, xavier-uniform output, zero biases, seed " + seed;
        }

        @Override
        public Model newModel(int features, int classes) {
            int[] widths = hidden.stream().mapToInt(Integer::intValue).toArray();
            double[] rates = dropout.stream().mapToDouble(Double::doubleValue).toArray();
            return head == Head.SOFTMAX
                ? new MultilayerPerceptron(features, widths, classes, activation, head, precision, rates)
                : new MultilayerPerceptron(features, widths, 1, activation, Head.SQUARED, precision, rates);
        }

        @Override
        public ModelSpec withPrecision(MultilayerPerceptron.Precision p) {
            return new Mlp(hidden, activation, head, classes, p, dropout);
        }

        /**
         * {@return this network with these dropout rates after its hidden layers}
         * @param rates one rate a hidden layer, in [0, 1)
         */
        public Mlp withDropout(List<Double> rates) {
            return new Mlp(hidden, activation, head, classes, precision, rates);
        }
    }

    /**
     * A convolutional network over images: convolutions, max pooling and dense layers with
     * ReLU, and a dense softmax cross-entropy head.
     *
     * @param layers    the layers, input side first ({@code conv:32:3,pool:2,dense:128})
     * @param image     the images' shape, or null for square single-channel images (the side is
     *                  the square root of the features: 784 is 28x28x1)
     * @param classes   K, or 0 to count the classes from the labels
     * @param precision the arithmetic of the training passes (float64 by default)
     */
    record Cnn(List<ConvNet.Layer> layers, ConvNet.Shape image, int classes,
               MultilayerPerceptron.Precision precision) implements ModelSpec {
        /**
         * A network trained in double precision.
         *
         * @param layers  the layers, input side first
         * @param image   the images' shape, or null for square single-channel images
         * @param classes K, or 0 to count them
         */
        public Cnn(List<ConvNet.Layer> layers, ConvNet.Shape image, int classes) {
            this(layers, image, classes, MultilayerPerceptron.Precision.FLOAT64);
        }

        /** Checks the layers and the classes, and keeps an unmodifiable copy of the layers. */
        public Cnn {
            layers = ModelSpecs.checkCnn(layers, classes, precision);
        }

        @Override
        public String kind() {
            return "cnn";
        }

        @Override
        public boolean intercept() {
            return true;
        }

        @Override
        public boolean classifier() {
            return true;
        }

        /** {@return whether a layer is batchnorm: a step's blocks then sum statistics over every rank} */
        public boolean normalises() {
            return layers.stream().anyMatch(l -> l instanceof ConvNet.BatchNorm);
        }

        /** {@return the layers as the command line writes them ({@code conv:32:3,pool:2,dense:128})} */
        public String label() {
            return String.join(",", layers.stream().map(ConvNet.Layer::label).toList());
        }

        /**
         * {@return the images' shape for data of {@code features} values a sample: the one given,
         * or a square of one channel}
         * @param features the data's values per sample
         * @throws SpecException if they do not make an image of that shape
         */
        public ConvNet.Shape shape(int features) {
            return ModelSpecs.imageShape(image, features);
        }

        @Override
        public String initialWeights(long seed) {
            return "he-normal convolutions and hidden layers, xavier-uniform output, zero biases, seed " + seed;
        }

        @Override
        public Model newModel(int features, int classes) {
            return ModelSpecs.convNet(this, features, classes);
        }

        @Override
        public ModelSpec withPrecision(MultilayerPerceptron.Precision p) {
            return new Cnn(layers, image, classes, p);
        }
    }
}
