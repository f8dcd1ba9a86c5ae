package org.paratrain.train.cost;

/** The counts every scheme's formula starts from, checked once. */
final class Shapes {
    private Shapes() { }

    /** Throws unless {@code p >= 1}, {@code params >= 0} and {@code blocks >= 1}. */
    static void check(int p, int params, int blocks) {
        if (p < 1 || params < 0 || blocks < 1) {
            throw new IllegalArgumentException("a step's cost needs p >= 1, params >= 0 and blocks >= 1, got p " + p
                + ", params " + params + ", blocks " + blocks);
        }
    }

    /** {@code ceil(blocks / p)}: the blocks of the busiest rank (ranks beyond the blocks own none). */
    static int busiest(int blocks, int p) {
        return (int) (((long) blocks + p - 1) / p);
    }
}
