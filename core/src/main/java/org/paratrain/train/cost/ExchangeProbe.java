package org.paratrain.train.cost;

import java.util.ArrayList;
import java.util.List;
import org.paratrain.collective.Allreduce;
import org.paratrain.collective.Allreduces;
import org.paratrain.collective.CostModel;
import org.paratrain.comm.Communicator;
import org.paratrain.train.spec.ExchangeSpec;

/**
 * {@code --allreduce auto} on a job's own links: the ranks time every allreduce they could
 * train with, on their communicator and at the size of a step's exchange, and take the fastest.
 *
 * <p>A cost model fitted on one machine's shared memory knows nothing of the links between a
 * job's hosts, and a formula of one link's alpha and beta misses what the links really do (a
 * shaped link lets a short burst through at the wire's speed, TCP's windows, MPI's own protocol
 * switches). So the choice is measured where it will run: each candidate allreduce, in the
 * two-level form training uses when a process holds several ranks, is called on the step's
 * word count (the sum's words: {@link SumCost#words}): once untimed, once timed as its
 * warm-up, then {@value #CALLS} rounds that call every candidate once each (so that none is
 * timed only while the JIT is cold). Each call is timed as a training step meets its exchange:
 * alone, after {@value #IDLE_MILLIS} ms without traffic (a step's computation), until every rank
 * holds the sum (a barrier after the call, whose own time, measured alike, is taken off: a
 * rooted allreduce's root returns before its result has reached the others), per call the
 * least over the ranks (the rank that arrives last waits for no one, as the step's exchange is
 * measured), and of the calls the median (a step meets a typical call, not the best one). A
 * candidate whose warm-up (the better of two calls) took more than {@value #SLOW_FACTOR} times
 * the best one's and more than {@value #SLOW_MILLIS} ms (star on many processes, a large
 * vector) is not called again, so that the probe stays short: its warm-up is its figure. One
 * warm-up call alone decided it before: on the unshaped emulated link a call now and then takes
 * 4-16 ms instead of 1, and such a spike dropped the ring, the fastest there, with a figure of
 * 13-24 ms. The
 * paper's master-worker exchange is not a collective that can be called alone: it is priced by
 * {@link MasterWorkerCost} on the Hockney parameters fitted to the ring's times at
 * {@value #SHORT_WORDS} words and at the step's (at least {@value #LONG_WORDS}), which is also
 * the link's calibration the choice reports; with every rank in one process there is no link,
 * and master-worker is left out. The sum's own arithmetic (deposit, read-back) is the same for
 * every allreduce and does not enter the choice.
 *
 * <p>Every rank returns the same choice: the times are gathered by one exact sum (each rank
 * fills its own places of a zero vector), and each rank picks from the same figures. The
 * choice changes no result bits under the fixed-point sums, which are the same at any
 * algorithm; only the time differs.
 */
public final class ExchangeProbe {
    /** Timed calls a candidate; the median counts. */
    static final int CALLS = 7;
    /** Milliseconds without traffic before each timed call, as a step's exchange follows its computation. */
    static final int IDLE_MILLIS = 2;
    /** A candidate whose warm-up call took more than this many times the best one's is timed no further. */
    static final double SLOW_FACTOR = 4.0;
    /** A candidate slower than that is dropped only beyond this many milliseconds: its seven calls would cost a seventh of a second. */
    static final int SLOW_MILLIS = 20;
    /** Words of the short message the link's latency is read from. */
    static final int SHORT_WORDS = 1_000;
    /** Words of the long message its bandwidth is read from, at least (the step's when longer). */
    static final int LONG_WORDS = 65_536;
    /** The most words a step's exchange may have to be timed (128 MB a rank). */
    static final long MAX_WORDS = 1L << 24;

    private ExchangeProbe() { }

    /**
     * One candidate's measured (or, for master-worker, priced) time.
     *
     * @param exchange the candidate
     * @param seconds  seconds of one step's collective
     * @param measured whether timed on the job's links (false: priced by the fitted model)
     */
    public record Timing(ExchangeSpec exchange, double seconds, boolean measured) { }

    /**
     * What the probe found: every candidate's time, the fastest, and the link's fit.
     *
     * @param timings  every candidate's, in the order given
     * @param chosen   the fastest
     * @param link     alpha and beta fitted to the ring's times at {@value #SHORT_WORDS} words and at the step's
     *                 (at least {@value #LONG_WORDS}); zeros when the ranks are in one process
     * @param words    the 8-byte words a step's exchange sends
     * @param processes the processes the ranks are in (the link's endpoints)
     * @param seconds  how long the probe took, the slowest rank's
     */
    public record Result(List<Timing> timings, ExchangeSpec chosen, Allreduce.Machine link, long words,
                         int processes, double seconds) { }

    /**
     * {@return the exchanges {@code --allreduce auto} chooses among on {@code comm}: master-worker
     * and every allreduce, MPI's own on the MPI backend, all with {@code sum}}
     * @param comm the rank's communicator
     * @param sum  the sum every candidate keeps (null: the default)
     */
    public static List<ExchangeSpec> candidates(Communicator comm, ExchangeSpec.Sum sum) {
        List<ExchangeSpec> c = new ArrayList<>();
        c.add(ExchangeSpec.parse("master-worker", sum));
        // MPI's own allreduce: between processes too where a process holds several ranks (two-level).
        boolean mpi = comm.nativeCollectives().isPresent() || comm.backend().equals("mpi");
        for (String name : mpi ? Allreduces.names() : Allreduces.portableNames()) {
            c.add(ExchangeSpec.parse(name, sum));
        }
        return c;
    }

    /**
     * Times the candidates on every rank of {@code comm} (a collective: every rank calls it with
     * the same arguments) and picks the fastest.
     *
     * @param comm       the rank's communicator
     * @param candidates resolved exchanges, from {@link #candidates}
     * @param params     the model's parameters (the vector is they and the loss)
     * @param blocks     a step's blocks over all ranks
     * @return the same result on every rank
     */
    public static Result run(Communicator comm, List<ExchangeSpec> candidates, int params, int blocks) {
        long began = System.nanoTime();
        long words = checkedWords(candidates.get(0).sum(), params, blocks);
        int p = comm.size();
        int processes = comm.processGroup().map(g -> p / g.localSize()).orElse(p);
        int m = candidates.size();
        Allreduce[] algorithms = new Allreduce[m];
        for (int i = 0; i < m; i++) {
            ExchangeSpec e = candidates.get(i);
            algorithms[i] = e.scheme() == ExchangeSpec.Scheme.ALLREDUCE ? Allreduces.create(e.algorithm(), comm) : null;
        }
        double[] buf = new double[(int) words];
        // Warm-up: each allreduce three times, the better of the last two timed and agreed by all ranks (the
        // slowest's); one far slower than the best (star on many processes) is timed no further: that is its figure.
        double[] warm = new double[m];
        for (int i = 0; i < m; i++) {
            if (algorithms[i] != null) {
                algorithms[i].allreduce(comm, buf, 0, buf.length);
                warm[i] = Math.min(once(comm, algorithms[i], buf), once(comm, algorithms[i], buf));
            }
        }
        warm = slowest(comm, warm);
        double bestWarm = Double.POSITIVE_INFINITY;
        for (int i = 0; i < m; i++) {
            if (algorithms[i] != null) {
                bestWarm = Math.min(bestWarm, warm[i]);
            }
        }
        // Timed rounds, every kept candidate once a round: none is timed only while the JIT is cold. Then the
        // link's fit: the ring at a short and at a long size (the step's, or more for a small model).
        Allreduce ring = Allreduces.create("ring", comm);
        long longWords = Math.max(words, LONG_WORDS);
        double[] shortBuf = new double[SHORT_WORDS];
        double[] longBuf = longWords == words ? buf : new double[(int) longWords];     // zeros: one buffer will do
        ring.allreduce(comm, shortBuf, 0, shortBuf.length);
        ring.allreduce(comm, longBuf, 0, longBuf.length);
        // Call k of candidate i at [i * CALLS + k], of the fit's two sizes after them, then the barrier alone; negated.
        boolean[] kept = new boolean[m];
        for (int i = 0; i < m; i++) {
            // The same on every rank: the warm-up figures are agreed.
            kept[i] = algorithms[i] != null && (warm[i] <= SLOW_FACTOR * bestWarm || warm[i] <= SLOW_MILLIS * 1e-3);
        }
        double[] calls = new double[(m + 3) * CALLS];
        for (int k = 0; k < CALLS; k++) {
            for (int i = 0; i < m; i++) {
                if (kept[i]) {
                    calls[i * CALLS + k] = -alone(comm, algorithms[i], buf);
                }
            }
            calls[m * CALLS + k] = -alone(comm, ring, shortBuf);
            calls[(m + 1) * CALLS + k] = -alone(comm, ring, longBuf);
            calls[(m + 2) * CALLS + k] = -alone(comm, null, null);
        }
        // Per call the least over the ranks (the largest of the negated), then per candidate the median call, less
        // the closing barrier's median (at least a microsecond is left: a figure is a time).
        double[] least = slowest(comm, calls);
        double barrier = medianOfNegated(least, (m + 2) * CALLS);
        double[] figures = new double[m + 3];
        for (int i = 0; i < m + 2; i++) {
            figures[i] = i >= m || kept[i] ? Math.max(1e-6, medianOfNegated(least, i * CALLS) - barrier) : Double.NaN;
        }
        figures[m + 2] = slowest(comm, new double[] {(System.nanoTime() - began) * 1e-9})[0];
        Allreduce.Machine link = processes < 2 ? new Allreduce.Machine(0, 0, 0) : CostModel.fit(List.of(
            new CostModel.Measurement("ring", processes, SHORT_WORDS, figures[m]),
            new CostModel.Measurement("ring", processes, longWords, figures[m + 1])));
        List<Timing> timings = new ArrayList<>();
        ExchangeSpec chosen = null;
        double fastest = Double.POSITIVE_INFINITY;
        for (int i = 0; i < m; i++) {
            ExchangeSpec e = candidates.get(i);
            boolean timed = algorithms[i] != null;
            if (!timed && processes < 2) {
                continue;     // one process: no link to fit master-worker's messages to; its allreduces were timed
            }
            double s = !timed ? ExchangeCost.of(e, ConversionRates.NONE).stepSeconds(p, params, blocks, link)
                : Double.isFinite(figures[i]) ? figures[i] : warm[i];
            timings.add(new Timing(e, s, timed));
            if (s < fastest) {
                fastest = s;
                chosen = e;
            }
        }
        return new Result(List.copyOf(timings), chosen, link, words, processes, figures[m + 2]);
    }

    /**
     * {@return the 8-byte words of one step's exchange with {@code sum}, which the probe times}
     * @param sum    the sum (resolved)
     * @param params the model's parameters
     * @param blocks a step's blocks over all ranks
     * @throws IllegalArgumentException naming {@code --allreduce auto}, beyond {@value #MAX_WORDS} words
     */
    public static long checkedWords(ExchangeSpec.Sum sum, int params, int blocks) {
        long words = new SumCost(sum, ConversionRates.Conversion.FREE).words(params + 1L, blocks);
        if (words > MAX_WORDS) {
            throw new IllegalArgumentException("--allreduce auto: a step's exchange of " + words + " words is more "
                + "than the " + MAX_WORDS + " the ranks time to choose; name the allreduce");
        }
        return words;
    }

    /**
     * {@return for each figure, the largest over the ranks: each rank fills its own places of a
     * zero vector, one exact sum places them all, and every rank reads the same maxima}
     */
    private static double[] slowest(Communicator comm, double[] mine) {
        int p = comm.size();
        int m = mine.length;
        double[] all = new double[m * p];
        for (int i = 0; i < m; i++) {
            all[i * p + comm.rank()] = mine[i];
        }
        Allreduces.create(comm.nativeCollectives().isPresent() ? "native" : "star", comm)
            .allreduce(comm, all, 0, all.length);
        double[] out = new double[m];
        for (int i = 0; i < m; i++) {
            out[i] = Double.NEGATIVE_INFINITY;
            for (int r = 0; r < p; r++) {
                out[i] = Math.max(out[i], all[i * p + r]);
            }
        }
        return out;
    }

    /** {@return the median of the {@value #CALLS} negated seconds from {@code from}} */
    private static double medianOfNegated(double[] least, int from) {
        double[] each = new double[CALLS];
        for (int k = 0; k < CALLS; k++) {
            each[k] = -least[from + k];
        }
        java.util.Arrays.sort(each);
        return (each[(CALLS - 1) / 2] + each[CALLS / 2]) / 2;
    }

    /**
     * One call as a step's exchange meets it: the ranks brought together by a barrier, then
     * {@value #IDLE_MILLIS} ms without traffic; this rank's seconds from the call's start until
     * a barrier after it ends, when every rank holds the sum ({@code a} null: the barrier alone).
     */
    private static double alone(Communicator comm, Allreduce a, double[] buf) {
        comm.barrier();
        java.util.concurrent.locks.LockSupport.parkNanos(IDLE_MILLIS * 1_000_000L);
        double t0 = comm.wtime();
        if (a != null) {
            a.allreduce(comm, buf, 0, buf.length);
        }
        comm.barrier();
        return comm.wtime() - t0;
    }

    /** One call, the ranks started together by a barrier; this rank's seconds. */
    private static double once(Communicator comm, Allreduce a, double[] buf) {
        comm.barrier();
        double t0 = comm.wtime();
        a.allreduce(comm, buf, 0, buf.length);
        return comm.wtime() - t0;
    }
}
