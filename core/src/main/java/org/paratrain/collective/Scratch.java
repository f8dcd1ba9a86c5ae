package org.paratrain.collective;

/** Receive buffers, one per element type, that grow to the largest size asked for and are then reused. */
final class Scratch {
    private double[] doubles = new double[0];
    private long[] words = new long[0];

    double[] doubles(int n) {
        if (doubles.length < n) {
            doubles = new double[n];
        }
        return doubles;
    }

    long[] words(int n) {
        if (words.length < n) {
            words = new long[n];
        }
        return words;
    }
}
