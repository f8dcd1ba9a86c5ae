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
 * word count (the sum's words: {@link SumCost#words}), warm-up first, and the best of
 * {@value #CALLS} calls counts; a call's time is the slowest rank's. The paper's
 * master-worker exchange is not a collective that can be called alone: it is priced by
 * {@link MasterWorkerCost} on the Hockney parameters fitted to the ring's times at two sizes,
 * which is also the link's calibration the choice reports. The sum's own arithmetic (deposit,
 * read-back) is the same for every allreduce and does not enter the choice.
 *
 * <p>Every rank returns the same choice: the times are gathered by one exact sum (each rank
 * fills its own places of a zero vector), and each rank picks from the same figures. The
 * choice changes no result bits under the fixed-point sums, which are the same at any
 * algorithm; only the time differs.
 */
public final class ExchangeProbe {
    /** Timed calls a candidate; the fastest counts. */
    static final int CALLS = 5;
    /** Untimed calls a candidate first: connections, buffers, the JIT. */
    static final int WARM_UP = 2;
    /** Words of the short message the link's latency is read from. */
    static final int SHORT_WORDS = 1_000;

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
     * @param link     alpha and beta fitted to the ring's times at {@value #SHORT_WORDS} words and the step's
     * @param words    the 8-byte words a step's exchange sends
     * @param processes the processes the ranks are in (the link's endpoints)
     */
    public record Result(List<Timing> timings, ExchangeSpec chosen, Allreduce.Machine link, long words,
                         int processes) { }

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
        ExchangeSpec.Sum sum = candidates.get(0).sum();
        long n = params + 1L;
        long words = new SumCost(sum, ConversionRates.Conversion.FREE).words(n, blocks);
        if (words > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("a step's exchange of " + words + " words is too large to time");
        }
        int p = comm.size();
        int processes = comm.processGroup().map(g -> p / g.localSize()).orElse(p);
        // Each candidate's best, then the ring at the short size; each rank fills its own column.
        int m = candidates.size() + 1;
        double[] all = new double[m * p];
        double[] buf = new double[(int) words];
        for (int i = 0; i < candidates.size(); i++) {
            ExchangeSpec e = candidates.get(i);
            if (e.scheme() == ExchangeSpec.Scheme.ALLREDUCE) {
                all[i * p + comm.rank()] = best(comm, Allreduces.create(e.algorithm(), comm), buf);
            }
        }
        all[(m - 1) * p + comm.rank()] = best(comm, Allreduces.create("ring", comm),
            new double[(int) Math.min(SHORT_WORDS, words)]);
        org.paratrain.collective.Allreduces.create(comm.nativeCollectives().isPresent() ? "native" : "star", comm)
            .allreduce(comm, all, 0, all.length);
        double[] slowest = new double[m];
        for (int i = 0; i < m; i++) {
            for (int r = 0; r < p; r++) {
                slowest[i] = Math.max(slowest[i], all[i * p + r]);
            }
        }
        int ring = indexOf(candidates, "ring");
        Allreduce.Machine link = ring < 0 ? new Allreduce.Machine(0, 0, 0) : CostModel.fit(List.of(
            new CostModel.Measurement("ring", processes, Math.min(SHORT_WORDS, words), slowest[m - 1]),
            new CostModel.Measurement("ring", processes, words, slowest[ring])));
        List<Timing> timings = new ArrayList<>();
        ExchangeSpec chosen = null;
        double fastest = Double.POSITIVE_INFINITY;
        for (int i = 0; i < candidates.size(); i++) {
            ExchangeSpec e = candidates.get(i);
            boolean timed = e.scheme() == ExchangeSpec.Scheme.ALLREDUCE;
            double s = timed ? slowest[i]
                : ExchangeCost.of(e, ConversionRates.NONE).stepSeconds(p, params, blocks, link);
            timings.add(new Timing(e, s, timed));
            if (s < fastest) {
                fastest = s;
                chosen = e;
            }
        }
        return new Result(List.copyOf(timings), chosen, link, words, processes);
    }

    private static int indexOf(List<ExchangeSpec> candidates, String algorithm) {
        for (int i = 0; i < candidates.size(); i++) {
            if (candidates.get(i).scheme() == ExchangeSpec.Scheme.ALLREDUCE
                && candidates.get(i).algorithm().equals(algorithm)) {
                return i;
            }
        }
        return -1;
    }

    /** The fastest of {@value #CALLS} calls after {@value #WARM_UP} untimed, each started together. */
    private static double best(Communicator comm, Allreduce a, double[] buf) {
        for (int k = 0; k < WARM_UP; k++) {
            a.allreduce(comm, buf, 0, buf.length);
        }
        double best = Double.POSITIVE_INFINITY;
        for (int k = 0; k < CALLS; k++) {
            comm.barrier();
            double t0 = comm.wtime();
            a.allreduce(comm, buf, 0, buf.length);
            best = Math.min(best, comm.wtime() - t0);
        }
        return best;
    }
}
