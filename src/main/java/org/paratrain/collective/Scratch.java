package org.paratrain.collective;

/** A receive buffer that grows to the largest size asked for and is then reused. */
final class Scratch {
    private double[] buf = new double[0];

    double[] atLeast(int n) {
        if (buf.length < n) {
            buf = new double[n];
        }
        return buf;
    }

    static void add(double[] into, int at, double[] from, int fromAt, int n) {
        for (int i = 0; i < n; i++) {
            into[at + i] += from[fromAt + i];
        }
    }
}
