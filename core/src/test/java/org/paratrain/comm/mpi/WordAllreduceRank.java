package org.paratrain.comm.mpi;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.paratrain.collective.Allreduce;
import org.paratrain.collective.Allreduces;
import org.paratrain.collective.Reduction;
import org.paratrain.collective.sum.FixedFormat;
import org.paratrain.collective.sum.FixedSum;
import org.paratrain.comm.Communicator;

/**
 * A rank of {@link WordAllreduceMpiTest}: runs every word allreduce case with the algorithms
 * named on the command line and prints, on rank 0, one line per case with a digest of the
 * result, which the test compares with the same cases run on the local backend.
 */
public final class WordAllreduceRank {
    private WordAllreduceRank() { }

    /**
     * Runs on every rank of an MPI job.
     *
     * @param args the algorithm names, {@code native} among them
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
                System.out.println("done on " + comm.size() + " ranks (" + comm.implementation() + ")");
            }
        } finally {
            MpiCommunicator.finalizeIfInitialized();
        }
    }

    /** Rank r's word i of case {@code seed}: random over the whole range, the extremes first. */
    static long word(int seed, int rank, int i) {
        if (i < 2) {
            return i == 0 ? Long.MAX_VALUE - rank : Long.MIN_VALUE + rank;
        }
        return new SplittableRandom(seed * 7919L + rank * 104_729L + i).nextLong();
    }

    /**
     * {@return one line per case, {@code "<sum|max> <length> <digest>"} and
     * {@code "fixed:<k> <digest>"}, without the algorithm's name, so that any two runs compare}
     */
    static List<String> cases(Communicator comm, String name) {
        int p = comm.size();
        Allreduce algorithm = Allreduces.create(name);
        List<String> out = new ArrayList<>();
        for (Reduction<long[]> op : List.of(Reduction.WORD_SUM, Reduction.WORD_MAX)) {
            // 5000 words are 40 KB: the MPI backend's large-message paths, beyond its 16 KB native buffers.
            for (int length : new int[] {0, 1, Math.max(0, p - 1), p, 1000, 5000}) {
                long[] buf = new long[length];
                for (int i = 0; i < length; i++) {
                    buf[i] = word(length, comm.rank(), i);
                }
                algorithm.allreduce(comm, buf, 0, length, op);
                out.add(op.kind().name().toLowerCase(java.util.Locale.ROOT) + " " + length + " "
                    + Long.toHexString(Arrays.hashCode(buf)));
            }
        }
        for (FixedFormat f : FixedFormat.values()) {
            out.add(f.label() + " " + Long.toHexString(Arrays.hashCode(fixedSum(comm, f, algorithm))));
        }
        return out;
    }

    /** A step of 12 blocks of 3000 values spread over the ranks: agreed, deposited, reduced; the words. */
    static long[] fixedSum(Communicator comm, FixedFormat format, Allreduce algorithm) {
        int blocks = 12;
        FixedSum sum = new FixedSum(format, 1, 2999);
        sum.begin(blocks);
        int first = blocks * comm.rank() / comm.size();
        int end = blocks * (comm.rank() + 1) / comm.size();
        double[][] mine = new double[end - first][];
        for (int b = first; b < end; b++) {
            SplittableRandom rnd = new SplittableRandom(b);
            double[] v = new double[3000];
            for (int i = 0; i < v.length; i++) {
                v[i] = (rnd.nextDouble() - 0.5) * Math.scalb(1.0, rnd.nextInt(-30, 30));
            }
            mine[b - first] = v;
            sum.observe(0, v, 0, 3000);
        }
        sum.agree(comm, algorithm);
        for (double[] v : mine) {
            sum.deposit(0, v, 0, 3000);
            sum.endBlock();
        }
        sum.reduce(comm, algorithm);
        double[] values = new double[3000];
        sum.get(0, values, 0, 3000);
        long[] bits = new long[3000];
        for (int i = 0; i < 3000; i++) {
            bits[i] = Double.doubleToRawLongBits(values[i]);
        }
        return bits;
    }
}
