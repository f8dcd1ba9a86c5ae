package org.paratrain.cli.experiment;

import org.paratrain.data.Dataset;
import org.paratrain.data.MakeRegression;
import org.paratrain.data.NumpyRandomState;
import org.paratrain.train.spec.TrainSpec;

/**
 * The paper's experiment: make_regression with 500 samples and 1 feature, no noise, a fixed
 * random_state; linear regression without intercept, summed squared error, weights from 0,
 * 300 epochs of full-batch gradient descent; node counts 1 to 32.
 */
public final class PaperSetup {
    /** Samples in the paper's data set. */
    public static final int SAMPLES = 500;
    /** The random_state paratrain fixes for the paper's data. */
    public static final long RANDOM_STATE = 42;
    /** The title of the paper paratrain's first experiment reproduces. */
    public static final String CITATION = "Zhu Jiayi, \u201c\u6a5f\u5668\u5b78\u7fd2\u548c\u6df1\u5ea6\u5b78"
        + "\u7fd2\u7684\u5e76\u884c\u8a13\u7df4\u65b9\u6cd5\u201d (Parallel training methods for machine learning and deep learning), "
        + "School of Computer Science and Engineering, Southwest Minzu University";
    /** The title the paper's sweep is reported under. */
    public static final String TITLE = "the paper's experiment (500 samples x 1 feature)";
    /** The paper's node counts. */
    public static final int[] NODES = {1, 2, 4, 8, 16, 32};

    private PaperSetup() { }

    /** How the paper's data is generated. */
    static MakeRegression generator() {
        return new MakeRegression(SAMPLES, 1, 1, 0.0, 0.0, true);
    }

    /** {@return the paper's data set: make_regression(500, 1 feature, no noise, random_state 42), bit for bit} */
    public static Dataset data() {
        return generator().generate(new NumpyRandomState(RANDOM_STATE)).data();
    }

    /** {@return the paper's training settings at one node: 300 epochs of gradient descent, lr 1e-4, summed loss} */
    public static TrainSpec config() {
        return TrainSpec.paper();
    }
}
