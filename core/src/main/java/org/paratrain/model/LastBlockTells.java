package org.paratrain.model;

import java.util.Arrays;

/**
 * The loop of {@link Model#blocks(org.paratrain.data.Dataset, int, int, int, double[], double[], int,
 * int, double[], int, int, GradientReady)} for the networks: each block's row zeroed and its
 * gradient added by the network's pass, the last block's pass told {@code ready} (whose layers
 * are then final for every block of the call), the others not.
 */
final class LastBlockTells {
    private LastBlockTells() { }

    /** One block's pass: the loss of samples {@code [from, to)}, its gradient added at {@code at}. */
    @FunctionalInterface
    interface Pass {
        double lossAndGradient(int from, int to, int at, GradientReady tell);
    }

    static void blocks(int params, int from, int to, int size, double[] losses, int lossAt, int lossStride,
                       double[] grad, int gradAt, int gradStride, GradientReady ready, Pass pass) {
        int blocks = (int) (((long) to - from + size - 1) / size);
        for (int k = 0; k < blocks; k++) {
            int s = from + k * size;
            int e = (int) Math.min((long) s + size, to);
            int at = gradAt + k * gradStride;
            Arrays.fill(grad, at, at + params, 0.0);
            losses[lossAt + k * lossStride] = pass.lossAndGradient(s, e, at, k == blocks - 1 ? ready : null);
        }
    }
}
