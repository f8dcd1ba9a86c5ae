package org.paratrain.train.spec;

/**
 * What a run does when not told: the paper's settings for its linear regression, and for
 * every other model (classifiers and networks) settings that train without tuning, shared by
 * the command line and the Java API so that both give the same bits for the same call.
 *
 * <p>For those: Adam at 1e-3 on the mean loss (Keras's and PyTorch users' habit), mini-batches
 * of 32 (Keras's default), and as many epochs as make about {@value #STEPS} steps, at least
 * {@value #MIN_EPOCHS} and at most {@value #MAX_EPOCHS}: 300 epochs of 3 steps leave iris's
 * softmax 10 points short of scikit-learn's, while 300 epochs of Fashion-MNIST's 1,875 steps
 * would take hours.
 */
public final class Defaults {
    /** Mini-batch size of classifiers and networks. */
    public static final int BATCH = 32;
    /** Steps the default epoch count aims at. */
    public static final int STEPS = 3000;
    /** Fewest default epochs. */
    public static final int MIN_EPOCHS = 10;
    /** Most default epochs. */
    public static final int MAX_EPOCHS = 1000;
    /** Epochs of the paper's run. */
    public static final int PAPER_EPOCHS = 300;

    /** Hidden width of an MLP given no layers: scikit-learn's MLPClassifier's one layer of 100. */
    public static final String HIDDEN = "100";

    private Defaults() { }

    /**
     * {@return the hidden layers of a model named on the command line: as given, or one layer of
     * {@value #HIDDEN} units for an MLP given none}
     * @param kind   the model's name ({@code mlp}, {@code mlp-regression}, ...)
     * @param layers the layers given, or blank
     */
    public static String hiddenLayers(String kind, String layers) {
        boolean mlp = kind.equals("mlp") || kind.equals("mlp-regression");
        return mlp && (layers == null || layers.isBlank()) ? HIDDEN : layers;
    }

    /**
     * {@return whether a model keeps the paper's defaults (gradient descent at 1e-4, summed loss, full batch, 300 epochs)}
     * @param model the model
     */
    public static boolean paper(ModelSpec model) {
        return model instanceof ModelSpec.Linear;
    }

    /**
     * {@return the mini-batch size: 0 (full batch) for the paper's model or data no larger than a batch, else 32}
     * @param model   the model
     * @param samples training samples
     */
    public static int batchSize(ModelSpec model, int samples) {
        return paper(model) || samples <= BATCH ? 0 : BATCH;
    }

    /**
     * {@return the number of epochs: the paper's 300, or about {@value #STEPS} steps' worth}
     * @param model     the model
     * @param samples   training samples
     * @param batchSize the mini-batch size, 0 for full batch
     */
    public static int epochs(ModelSpec model, int samples, int batchSize) {
        if (paper(model)) {
            return PAPER_EPOCHS;
        }
        int steps = batchSize == 0 ? 1 : Math.max(1, samples / batchSize);
        return Math.max(MIN_EPOCHS, Math.min(MAX_EPOCHS, (STEPS + steps - 1) / steps));
    }
}
