package org.paratrain.data;

/**
 * {@code make_classification}'s keywords, each defaulting as in scikit-learn: informative 2,
 * redundant 2, repeated 0, classes 2, clusters per class 2, weights none (equal shares), flip_y
 * 0.01, class_sep 1.0, hypercube true, shift 0.0, scale 1.0, shuffle true; made by
 * {@link MakeClassification#builder}. Apart from the record because its defaults are checked only
 * together with the keywords set ({@link #build}).
 */
public final class MakeClassificationBuilder {
    private final int samples;
    private final int features;
    private int informative = 2;
    private int redundant = 2;
    private int repeated;
    private int classes = 2;
    private int clustersPerClass = 2;
    private double[] weights;
    private double flipY = 0.01;
    private double classSep = 1.0;
    private boolean hypercube = true;
    private Double shift = 0.0;
    private Double scale = 1.0;
    private boolean shuffle = true;

    MakeClassificationBuilder(int samples, int features) {
        this.samples = samples;
        this.features = features;
    }

    /**
     * {@return this builder, with {@code n_informative}}
     * @param n features the classes are told apart by
     */
    public MakeClassificationBuilder informative(int n) {
        this.informative = n;
        return this;
    }

    /**
     * {@return this builder, with {@code n_redundant}}
     * @param n random linear combinations of the informative features
     */
    public MakeClassificationBuilder redundant(int n) {
        this.redundant = n;
        return this;
    }

    /**
     * {@return this builder, with {@code n_repeated}}
     * @param n copies of informative or redundant features
     */
    public MakeClassificationBuilder repeated(int n) {
        this.repeated = n;
        return this;
    }

    /**
     * {@return this builder, with {@code n_classes}}
     * @param n classes, at least 2
     */
    public MakeClassificationBuilder classes(int n) {
        this.classes = n;
        return this;
    }

    /**
     * {@return this builder, with {@code n_clusters_per_class}}
     * @param n clusters a class, at least 1
     */
    public MakeClassificationBuilder clustersPerClass(int n) {
        this.clustersPerClass = n;
        return this;
    }

    /**
     * {@return this builder, with {@code weights}}
     * @param shares each class's share of the samples (K or K-1 values), none for equal shares
     */
    public MakeClassificationBuilder weights(double... shares) {
        this.weights = shares == null || shares.length == 0 ? null : shares.clone();
        return this;
    }

    /**
     * {@return this builder, with {@code flip_y}}
     * @param fraction of labels replaced by random classes, in [0, 1]
     */
    public MakeClassificationBuilder flipY(double fraction) {
        this.flipY = fraction;
        return this;
    }

    /**
     * {@return this builder, with {@code class_sep}}
     * @param halfSide half the side of the hypercube
     */
    public MakeClassificationBuilder classSep(double halfSide) {
        this.classSep = halfSide;
        return this;
    }

    /**
     * {@return this builder, with {@code hypercube}}
     * @param vertices whether the clusters sit on the vertices (else on a random polytope)
     */
    public MakeClassificationBuilder hypercube(boolean vertices) {
        this.hypercube = vertices;
        return this;
    }

    /**
     * {@return this builder, with {@code shift}}
     * @param value added to every feature, or null (scikit-learn's None) for a random shift per feature
     */
    public MakeClassificationBuilder shift(Double value) {
        this.shift = value;
        return this;
    }

    /**
     * {@return this builder, with {@code scale}}
     * @param value multiplies every feature, or null (scikit-learn's None) for a random scale per feature
     */
    public MakeClassificationBuilder scale(Double value) {
        this.scale = value;
        return this;
    }

    /**
     * {@return this builder, with {@code shuffle}}
     * @param on whether samples and features are shuffled
     */
    public MakeClassificationBuilder shuffle(boolean on) {
        this.shuffle = on;
        return this;
    }

    /**
     * {@return the arguments, checked together}
     * @throws IllegalArgumentException where scikit-learn would refuse them
     */
    public MakeClassification build() {
        return new MakeClassification(samples, features, informative, redundant, repeated, classes,
            clustersPerClass, weights, flipY, classSep, hypercube, shift, scale, shuffle);
    }

    /**
     * Generates the data set as {@code make_classification(..., random_state=randomState)} does.
     *
     * @param randomState the seed scikit-learn's {@code random_state} takes (0 to 2^32 - 1)
     * @return the samples, labelled with class indices 0..K-1
     * @throws IllegalArgumentException where scikit-learn would refuse the arguments or the seed
     * @throws NotEnoughMemoryException if the heap cannot hold them
     */
    public Dataset generate(long randomState) {
        return build().generate(new NumpyRandomState(randomState));
    }
}
