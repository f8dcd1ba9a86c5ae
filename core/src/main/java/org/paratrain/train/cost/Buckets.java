package org.paratrain.train.cost;

/**
 * How a gradient is cut into buckets sent during the backward pass: the layers in backward
 * order (the output layer's first), cut after each layer that brings a bucket to at least
 * {@code bucket} parameters; what is left below the last cut goes at the end, with the loss and
 * the check words. One plan for the exchange that sends them ({@code OverlappedSum}) and for
 * the cost that prices them ({@link OverlapCost}), so the two cannot disagree.
 *
 * @param lo    each early bucket's first parameter, in send order
 * @param hi    each early bucket's end (exclusive), in send order; {@code hi[0]} is the parameter count
 * @param layer for each early bucket, the index (in backward order) of its lowest layer: the
 *              bucket is whole when that layer's gradient is
 */
public record Buckets(int[] lo, int[] hi, int[] layer) {

    /**
     * {@return the plan, or null where there is nothing to overlap: no layers told, layers that
     * do not cover the parameters contiguously from the top down, or no cut (one bucket)}
     * @param params the parameter count
     * @param ranges a model's {@code backwardRanges()}: {@code [from0, to0, from1, to1, ...]}
     * @param bucket the least parameters an early bucket, at least 1
     */
    public static Buckets plan(int params, int[] ranges, int bucket) {
        if (ranges == null || ranges.length < 4 || bucket < 1) {
            return null;
        }
        int top = params;
        int start = params;
        java.util.List<int[]> cuts = new java.util.ArrayList<>();
        for (int i = 0; i < ranges.length; i += 2) {
            if (ranges[i + 1] != top || ranges[i] > ranges[i + 1]) {
                return null;                // not contiguous from the top: send it whole
            }
            top = ranges[i];
            if (start - top >= bucket && top > 0) {
                cuts.add(new int[] {top, start, i / 2});
                start = top;
            }
        }
        if (top != 0 || cuts.isEmpty()) {
            return null;
        }
        return new Buckets(cuts.stream().mapToInt(b -> b[0]).toArray(), cuts.stream().mapToInt(b -> b[1]).toArray(),
            cuts.stream().mapToInt(b -> b[2]).toArray());
    }

    /** {@return the early buckets: every bucket but the last, which goes with the check words} */
    public int early() {
        return lo.length;
    }

    /** {@return the parameters left for the last bucket: those below the last cut} */
    public int rest() {
        return lo[lo.length - 1];
    }
}
