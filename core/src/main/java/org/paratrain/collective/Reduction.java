package org.paratrain.collective;

import org.paratrain.comm.Communicator;

/**
 * An element-wise operation on one primitive array type: what an {@link Allreduce} combines,
 * and how the arrays travel. The algorithms are written once against it, so every protocol
 * (star, tree, recursive doubling, ring, Rabenseifner, MPI's own) sums doubles, sums 64-bit
 * words and takes maxima with the same code, step for step.
 *
 * <p>Why a parameter and not {@code long[]} overloads of every algorithm: one copy of each
 * protocol instead of two, and a fixed-point sum needs two operations on words anyway (the sum
 * of the words and the maximum of the exponents that fix the grid). The cost is one virtual
 * call per message and per combined chunk, not per element: the loops stay monomorphic.
 *
 * <p>Every operation here is commutative and associative on its words (integer addition
 * modulo 2^64, maximum) or at least commutative (floating-point addition), which is what
 * the algorithms rely on for every rank to end with the same bits.
 *
 * @param <A> the array type: {@code double[]} or {@code long[]}
 */
public abstract sealed class Reduction<A> permits Reduction.OfDoubles, Reduction.OfWords {
    /** Floating-point sum of doubles: the gradient allreduce. */
    public static final Reduction<double[]> DOUBLE_SUM = new OfDoubles(Kind.SUM);
    /** Maximum of doubles ({@link Math#max}: a NaN anywhere gives NaN). */
    public static final Reduction<double[]> DOUBLE_MAX = new OfDoubles(Kind.MAX);
    /** Sum of 64-bit words modulo 2^64 (Java's {@code long} addition): exact and order-free. */
    public static final Reduction<long[]> WORD_SUM = new OfWords(Kind.SUM);
    /** Signed maximum of 64-bit words: exact and order-free. */
    public static final Reduction<long[]> WORD_MAX = new OfWords(Kind.MAX);

    /** The operation, whatever the element type. */
    public enum Kind {
        /** Addition. */
        SUM,
        /** Maximum. */
        MAX
    }

    private final Kind kind;

    private Reduction(Kind kind) {
        this.kind = kind;
    }

    /** {@return the operation} */
    public Kind kind() {
        return kind;
    }

    /** {@return true for 64-bit words, false for doubles} */
    public abstract boolean words();

    @Override
    public String toString() {
        return (words() ? "word " : "double ") + kind.name().toLowerCase(java.util.Locale.ROOT);
    }

    /** A receive buffer of at least {@code n} elements, kept in {@code s} for the next call. */
    abstract A scratch(Scratch s, int n);

    /** {@code into[at + i] = op(into[at + i], from[fromAt + i])} for {@code i < n}. */
    abstract void combine(A into, int at, A from, int fromAt, int n);

    abstract void send(Communicator c, A buf, int offset, int length, int dest, int tag);

    abstract int recv(Communicator c, A buf, int offset, int length, int source, int tag);

    abstract int sendRecv(Communicator c, A sendBuf, int sendOffset, int sendLength, int dest, int tag,
                          A recvBuf, int recvOffset, int recvLength, int source);

    static final class OfDoubles extends Reduction<double[]> {
        private OfDoubles(Kind kind) {
            super(kind);
        }

        @Override
        public boolean words() {
            return false;
        }

        @Override
        double[] scratch(Scratch s, int n) {
            return s.doubles(n);
        }

        @Override
        void combine(double[] into, int at, double[] from, int fromAt, int n) {
            if (kind() == Kind.SUM) {
                for (int i = 0; i < n; i++) {
                    into[at + i] += from[fromAt + i];
                }
            } else {
                for (int i = 0; i < n; i++) {
                    into[at + i] = Math.max(into[at + i], from[fromAt + i]);
                }
            }
        }

        @Override
        void send(Communicator c, double[] buf, int offset, int length, int dest, int tag) {
            c.send(buf, offset, length, dest, tag);
        }

        @Override
        int recv(Communicator c, double[] buf, int offset, int length, int source, int tag) {
            return c.recv(buf, offset, length, source, tag);
        }

        @Override
        int sendRecv(Communicator c, double[] sendBuf, int sendOffset, int sendLength, int dest, int tag,
                     double[] recvBuf, int recvOffset, int recvLength, int source) {
            return c.sendRecv(sendBuf, sendOffset, sendLength, dest, tag, recvBuf, recvOffset, recvLength, source, tag);
        }
    }

    static final class OfWords extends Reduction<long[]> {
        private OfWords(Kind kind) {
            super(kind);
        }

        @Override
        public boolean words() {
            return true;
        }

        @Override
        long[] scratch(Scratch s, int n) {
            return s.words(n);
        }

        @Override
        void combine(long[] into, int at, long[] from, int fromAt, int n) {
            if (kind() == Kind.SUM) {
                for (int i = 0; i < n; i++) {
                    into[at + i] += from[fromAt + i];
                }
            } else {
                for (int i = 0; i < n; i++) {
                    into[at + i] = Math.max(into[at + i], from[fromAt + i]);
                }
            }
        }

        @Override
        void send(Communicator c, long[] buf, int offset, int length, int dest, int tag) {
            c.send(buf, offset, length, dest, tag);
        }

        @Override
        int recv(Communicator c, long[] buf, int offset, int length, int source, int tag) {
            return c.recv(buf, offset, length, source, tag);
        }

        @Override
        int sendRecv(Communicator c, long[] sendBuf, int sendOffset, int sendLength, int dest, int tag,
                     long[] recvBuf, int recvOffset, int recvLength, int source) {
            return c.sendRecv(sendBuf, sendOffset, sendLength, dest, tag, recvBuf, recvOffset, recvLength, source, tag);
        }
    }
}
