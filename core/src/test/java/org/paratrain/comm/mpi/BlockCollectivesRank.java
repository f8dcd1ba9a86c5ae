package org.paratrain.comm.mpi;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.paratrain.collective.AllreduceHalves;
import org.paratrain.collective.Chunks;
import org.paratrain.collective.Reduction;
import org.paratrain.collective.RingAllreduce;
import org.paratrain.comm.Communicator;

/**
 * A rank of {@link BlockCollectivesMpiTest}: runs the reduce-scatter and allgather of each
 * {@link AllreduceHalves} named on the command line on words and doubles, checks every rank's
 * results itself (words against their exact sum, doubles within the bound of any order of
 * p - 1 additions, every rank with the same bits), and prints on rank 0 one line a case,
 * {@code ok ...} or {@code bad ...}, with the number of ranks that found it wrong.
 */
public final class BlockCollectivesRank {
    private BlockCollectivesRank() { }

    /**
     * Runs on every rank of an MPI job.
     *
     * @param args the names of the halves ({@code native}, {@code ring}, {@code rabenseifner})
     */
    public static void main(String[] args) {
        MpiCommunicator comm = MpiCommunicator.world();
        try {
            List<String> lines = new ArrayList<>();
            for (String name : args) {
                lines.addAll(cases(comm, name));
            }
            if (comm.rank() == 0) {
                lines.forEach(System.out::println);
                System.out.println("done on " + comm.size() + " ranks (" + comm.implementation() + ") at thread level "
                    + comm.threadLevel());
            }
        } finally {
            MpiCommunicator.finalizeIfInitialized();
        }
    }

    /** {@return one line a case: words in units of 1 and 2 with and without a trailing word, then doubles} */
    static List<String> cases(Communicator comm, String name) {
        int p = comm.size();
        AllreduceHalves halves = AllreduceHalves.create(name);
        List<String> out = new ArrayList<>();
        // 2100 two-word values are 33 KB: the MPI backend's large paths, beyond its 16 KB native buffers.
        int[] lengths = {0, 1, Math.max(0, p - 1), p, p + 1, 1001, 2100};
        for (int unit : new int[] {1, 2}) {
            for (int values : lengths) {
                for (int extra : new int[] {0, 1}) {
                    Chunks chunks = new Chunks(values, unit, p, values * unit + extra);
                    out.add(line(comm, name + " words " + chunks, words(comm, halves, chunks)));
                }
            }
        }
        for (int length : new int[] {0, 1, Math.max(0, p - 1), p, 1001, 4099}) {
            out.add(line(comm, name + " doubles " + length, doubles(comm, halves, new Chunks(length, p))));
        }
        return out;
    }

    /** The ranks that found a case wrong, added up on every rank. */
    private static String line(Communicator comm, String what, boolean wrong) {
        long[] bad = {wrong ? 1 : 0};
        new RingAllreduce().allreduce(comm, bad, 0, 1, Reduction.WORD_SUM);
        return (bad[0] == 0 ? "ok " : "bad (" + bad[0] + " ranks) ") + what;
    }

    private static long word(int length, int rank, int i) {
        if (i < 2) {
            return i == 0 ? Long.MAX_VALUE - rank : Long.MIN_VALUE + rank;
        }
        return new SplittableRandom(length * 1_000_003L + rank * 65_537L + i).nextLong();
    }

    private static double value(int length, int rank, int i) {
        SplittableRandom rnd = new SplittableRandom(length * 7_919L + rank * 104_729L + i);
        return (rnd.nextDouble() - 0.5) * Math.pow(10, rnd.nextInt(-6, 6));
    }

    /** Whether this rank's chunk after the reduce-scatter, or its vector after the allgather, is wrong. */
    private static boolean words(Communicator comm, AllreduceHalves halves, Chunks chunks) {
        int n = chunks.length();
        long[] expected = new long[n];
        long[] buf = new long[n];
        for (int i = 0; i < n; i++) {
            buf[i] = word(n, comm.rank(), i);
            for (int r = 0; r < comm.size(); r++) {
                expected[i] += word(n, r, i);
            }
        }
        halves.reduceScatter().reduceScatter(comm, buf, 0, chunks, Reduction.WORD_SUM);
        int from = chunks.start(comm.rank());
        int to = chunks.start(comm.rank() + 1);
        boolean wrong = !Arrays.equals(buf, from, to, expected, from, to);
        halves.allgather().allgather(comm, buf, 0, chunks, Reduction.WORD_SUM);
        return wrong || !Arrays.equals(buf, expected);
    }

    /** Whether this rank's chunk errs beyond the bound, or its gathered vector differs from rank 0's. */
    private static boolean doubles(Communicator comm, AllreduceHalves halves, Chunks chunks) {
        int n = chunks.length();
        double[] buf = new double[n];
        for (int i = 0; i < n; i++) {
            buf[i] = value(n, comm.rank(), i);
        }
        halves.reduceScatter().reduceScatter(comm, buf, 0, chunks, Reduction.DOUBLE_SUM);
        boolean wrong = false;
        for (int i = chunks.start(comm.rank()); i < chunks.start(comm.rank() + 1); i++) {
            wrong |= !withinBound(buf[i], n, comm.size(), i);
        }
        halves.allgather().allgather(comm, buf, 0, chunks, Reduction.DOUBLE_SUM);
        double[] first = buf.clone();
        new RingAllreduce().allreduce(comm, first, 0, n, Reduction.DOUBLE_MAX);   // rank 0's bits, if all agree
        double[] least = buf.clone();
        for (int i = 0; i < n; i++) {
            least[i] = -least[i];
        }
        new RingAllreduce().allreduce(comm, least, 0, n, Reduction.DOUBLE_MAX);
        for (int i = 0; i < n; i++) {
            wrong |= Double.doubleToRawLongBits(first[i]) != Double.doubleToRawLongBits(-least[i]);
        }
        return wrong;
    }

    private static boolean withinBound(double got, int length, int p, int i) {
        BigDecimal exact = BigDecimal.ZERO;
        double magnitudes = 0;
        for (int r = 0; r < p; r++) {
            double x = value(length, r, i);
            exact = exact.add(new BigDecimal(x));
            magnitudes += Math.abs(x);
        }
        double u = Math.ulp(1.0) / 2;
        double bound = (p - 1) * u / (1 - (p - 1) * u) * magnitudes * (1 + 1e-12);
        return new BigDecimal(got).subtract(exact).abs().doubleValue() <= bound;
    }
}
