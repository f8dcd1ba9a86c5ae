package org.paratrain.comm.local;

import java.util.Arrays;

/**
 * The two kinds of payload a {@link Channel} carries, {@code double[]} and {@code long[]}:
 * copies of either, and the error of a receive of the other kind.
 */
final class Payloads {
    private Payloads() { }

    /** Copies a payload of either kind; the casts let the JIT copy without a type check per call. */
    static void copy(Object from, int fromOffset, Object to, int toOffset, int length) {
        if (to instanceof double[] d) {
            System.arraycopy((double[]) from, fromOffset, d, toOffset, length);
        } else {
            System.arraycopy((long[]) from, fromOffset, (long[]) to, toOffset, length);
        }
    }

    /** {@return a new array of the payload's kind holding {@code length} values from {@code fromOffset}} */
    static Object copyOf(Object from, int fromOffset, int length) {
        return from instanceof double[] d ? Arrays.copyOfRange(d, fromOffset, fromOffset + length)
            : Arrays.copyOfRange((long[]) from, fromOffset, fromOffset + length);
    }

    /** A receive of doubles matched a message of words, or the other way round: a program error. */
    static IllegalStateException mismatch(int tag, boolean words) {
        return new IllegalStateException("the message with tag " + tag + " carries " + (words ? "64-bit words"
            : "doubles") + " but was received as " + (words ? "doubles" : "64-bit words"));
    }
}
