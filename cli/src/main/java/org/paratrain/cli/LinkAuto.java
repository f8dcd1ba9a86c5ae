package org.paratrain.cli;

import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import org.paratrain.data.BlockSharding;
import org.paratrain.train.Backend;
import org.paratrain.train.cost.ExchangeProbe;
import org.paratrain.train.spec.TrainSpec;

/**
 * {@code --allreduce auto} on MPI, decided by the job's ranks on their own links: every
 * candidate exchange timed at the size of a step's ({@link ExchangeProbe}), the fastest
 * taken. A cost model fitted on one machine's shared memory cannot know the links between
 * hosts; the ranks can measure them in well under a second.
 */
public final class LinkAuto {
    private LinkAuto() { }

    /**
     * {@return {@code spec} with its exchange chosen by the ranks, every rank the same; rank 0 of
     * the job prints the figures it chose from}
     * @param spec     a spec whose exchange is auto
     * @param features features a sample
     * @param classes  classes (0 for a regression)
     * @param samples  samples in the whole training data
     * @param out      where the job's rank 0 says what it chose
     */
    static TrainSpec resolve(TrainSpec spec, int features, int classes, int samples, PrintWriter out) {
        ExchangeProbe.Result r = probe(spec, features, classes, samples);
        if (Backend.mpiRankFromEnvironment() == 0) {
            out.println(report(r));
            out.flush();
        }
        return spec.withExchange(r.chosen());
    }

    /**
     * {@return what this process's ranks measured, the same on every rank of the job}; called by
     * every rank (a collective), it aborts the job if the probe fails on this one
     * @param spec     a spec whose exchange is auto
     * @param features features a sample
     * @param classes  classes (0 for a regression)
     * @param samples  samples in the whole training data
     */
    public static ExchangeProbe.Result probe(TrainSpec spec, int features, int classes, int samples) {
        int params = spec.model().newModel(features, classes).parameterCount();
        int blocks = step(spec, samples).blocks();
        try {
            return Backend.onMpiRanks(comm -> ExchangeProbe.run(comm,
                ExchangeProbe.candidates(comm, spec.exchange().sum()), params, blocks)).get(0);
        } catch (RuntimeException | Error e) {
            Backend.abortMpiJob(e);     // the other ranks would wait in the probe's next call until their timeout
            throw e;
        }
    }

    /**
     * Refuses, before any rank starts, a step's exchange too large for the ranks to time.
     *
     * @param spec     a spec whose exchange is auto
     * @param features features a sample
     * @param classes  classes (0 for a regression)
     * @param samples  samples in the whole training data
     * @throws IllegalArgumentException naming {@code --allreduce auto}
     */
    static void check(TrainSpec spec, int features, int classes, int samples) {
        ExchangeProbe.checkedWords(spec.exchange().sum(), spec.model().newModel(features, classes).parameterCount(),
            step(spec, samples).blocks());
    }

    /** The blocks of one step, as training cuts them. */
    private static BlockSharding step(TrainSpec spec, int samples) {
        int batch = spec.run().batchSize() == 0 ? samples : Math.min(samples, spec.run().batchSize());
        return BlockSharding.forStep(batch, spec.run().batchSize(), spec.run().blockSize());
    }

    /** {@return the choice and the figures behind it, one line} */
    static String report(ExchangeProbe.Result r) {
        String fit = r.processes() < 2 ? "" : String.format(Locale.ROOT, "; link fit: alpha %.1f us, beta %.3f ns a byte",
            1e6 * r.link().alpha(), 1e9 * r.link().beta());
        StringBuilder s = new StringBuilder(String.format(Locale.ROOT, "auto: %s, measured on the job's links in %s "
            + "(%d words a step across %s%s):", r.chosen().label(), Formats.duration(r.seconds()), r.words(),
            r.processes() == 1 ? "1 process" : r.processes() + " processes", fit));
        List<ExchangeProbe.Timing> t = r.timings();
        for (int i = 0; i < t.size(); i++) {
            s.append(i == 0 ? " " : ", ").append(t.get(i).exchange().label()).append(' ')
                .append(Formats.duration(t.get(i).seconds())).append(t.get(i).measured() ? "" : " (modelled)");
        }
        return s.toString();
    }
}
