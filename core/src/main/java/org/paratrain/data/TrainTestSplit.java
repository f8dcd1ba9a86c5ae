package org.paratrain.data;

/**
 * A seeded random split into training and test samples: numpy's legacy shuffle of the
 * sample indices (the same permutation as {@code RandomState(seed).permutation(n)}), the
 * first part for testing, as scikit-learn's {@code ShuffleSplit} takes it.
 *
 * @param train the training samples
 * @param test  the test samples
 */
public record TrainTestSplit(Dataset train, Dataset test) {

    /**
     * Splits off {@code ceil(fraction * n)} test samples.
     *
     * @param d        the samples
     * @param fraction the share held out for testing, in (0, 1)
     * @param seed     the seed of the permutation, as numpy's {@code RandomState(seed)}
     * @return the two parts, each with at least one sample
     * @throws IllegalArgumentException if the fraction is out of range or leaves a part empty
     */
    public static TrainTestSplit of(Dataset d, double fraction, long seed) {
        // Without classes the stratified split takes the permutation's first ceil(f n) as they come.
        return stratified(d, fraction, seed, false, "--test-fraction");
    }

    /**
     * Splits off {@code ceil(fraction * n)} held-out samples, for a classifier in each class's
     * proportion (stratified, as scikit-learn's {@code StratifiedShuffleSplit}): each class gives
     * {@code floor(fraction * n_c)}, and the samples still missing go to the classes with the
     * largest remainders, never a class's last training sample. Within each part the samples
     * keep the order of numpy's seeded permutation, so the split is the same at any node count.
     *
     * @param d        the samples; for a classifier, labels are class indices
     * @param fraction the share held out, in (0, 1)
     * @param seed     the seed of the permutation
     * @param byClass  whether to keep each class's proportion (the labels are classes)
     * @param option   the option that asked for it, for messages
     * @return the remaining samples ({@code train}) and the held-out ones ({@code test})
     * @throws IllegalArgumentException if the fraction is out of range or leaves a part empty
     */
    public static TrainTestSplit stratified(Dataset d, double fraction, long seed, boolean byClass, String option) {
        if (!(fraction > 0 && fraction < 1)) {
            throw new IllegalArgumentException(option + " must be in (0, 1), got " + fraction);
        }
        int n = d.samples();
        int held = (int) Math.ceil(fraction * n);
        if (held >= n) {
            throw new IllegalArgumentException(option + " " + fraction + " leaves no training samples of " + n);
        }
        int[] order = new int[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        new NumpyRandomState(seed).shuffle(order);
        boolean[] out = new boolean[n];
        if (byClass) {
            int classes = 0;
            for (double c : d.y()) {
                classes = Math.max(classes, (int) c + 1);
            }
            int[] count = new int[classes];
            for (double c : d.y()) {
                count[(int) c]++;
            }
            int[] take = new int[classes];
            int given = 0;
            for (int c = 0; c < classes; c++) {
                take[c] = (int) Math.floor(fraction * count[c]);
                given += take[c];
            }
            while (given < held) {
                int best = -1;
                for (int c = 0; c < classes; c++) {
                    if (take[c] < count[c] - 1 && (best < 0 || remainder(fraction, count[c], take[c])
                        > remainder(fraction, count[best], take[best]))) {
                        best = c;
                    }
                }
                if (best < 0) {
                    break;       // every class is down to its last training sample
                }
                take[best]++;
                given++;
            }
            for (int i : order) {
                int c = (int) d.y()[i];
                if (take[c] > 0) {
                    out[i] = true;
                    take[c]--;
                }
            }
        } else {
            for (int k = 0; k < held; k++) {
                out[order[k]] = true;
            }
        }
        boolean any = false;
        for (boolean b : out) {
            any |= b;
        }
        if (!any) {
            throw new IllegalArgumentException(option + " " + fraction + " holds out no sample of " + n + ": no class "
                + "has a sample to spare");
        }
        return new TrainTestSplit(part(d, order, out, false), part(d, order, out, true));
    }

    private static double remainder(double fraction, int count, int taken) {
        return fraction * count - taken;
    }

    /** The samples whose {@code out} flag is {@code held}, in the permutation's order. */
    private static Dataset part(Dataset d, int[] order, boolean[] out, boolean held) {
        int m = 0;
        for (boolean b : out) {
            m += b == held ? 1 : 0;
        }
        if (m == 0) {
            throw new IllegalArgumentException("the split leaves no " + (held ? "held-out" : "training")
                + " samples of " + d.samples());
        }
        int[] pick = new int[m];
        int k = 0;
        for (int i : order) {
            if (out[i] == held) {
                pick[k++] = i;
            }
        }
        return take(d, pick, 0, m);
    }

    private static Dataset take(Dataset d, int[] order, int from, int to) {
        return d.pick(order, from, to);
    }
}
