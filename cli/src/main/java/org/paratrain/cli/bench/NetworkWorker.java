package org.paratrain.cli.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import org.paratrain.comm.Communicator;
import org.paratrain.comm.JobLaunch;
import org.paratrain.data.Dataset;
import org.paratrain.experiment.RunWriter;
import org.paratrain.io.AtomicFiles;
import org.paratrain.train.Backend;
import org.paratrain.train.Training;
import org.paratrain.train.TrainingControl;
import org.paratrain.train.TrainingResult;
import org.paratrain.train.spec.TrainSpec;

/**
 * One measurement of {@code bench network} on paratrain's side. Started outside MPI (in the
 * first emulated host), it launches itself as an MPI job of two processes across the hosts
 * (their hostfile and agent, TCP only); on the ranks, it trains the network for at least 40
 * steps to warm up, then {@code rounds} timed times, and rank 0 writes the best run's samples
 * per second, its share of time spent exchanging, a hash of the parameters' bits, and the
 * cost model's prediction of a step's exchange (fitted to the bare allreduce timed on the same
 * ranks and link) to the job's result file. Each timed run trains {@code steps} steps after
 * {@value #UNTIMED} untimed ones, as DDP's side times its steps after 3 warm-up steps in its process.
 */
public final class NetworkWorker {
    /** The run's first steps, trained and not timed: as many as DDP's warm-up steps ({@code ddp_bench.py}). */
    static final int UNTIMED = 3;

    private NetworkWorker() { }

    /**
     * Launches the job, or on a rank of it, runs it.
     *
     * @param a one argument: the job file {@code bench network} wrote
     */
    public static void main(String[] a) {
        JsonNode job;
        try {
            job = RunWriter.json().readTree(Path.of(a[0]).toFile());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the job file " + a[0] + ": " + e.getMessage(), e);
        }
        int k = job.path("ranks_per_process").asInt(1);
        if (!Backend.insideMpiJob()) {
            JobLaunch launch = new JobLaunch(2, Path.of(job.path("hostfile").asText()), List.of("--mca",
                "plm_rsh_agent", job.path("agent").asText(), "--mca", "btl", "tcp,self"),
                org.paratrain.cli.BackendOptions.javaOptions(), JobLaunch.DEFAULT_TIMEOUT_SECONDS, k);
            Backend.runMpiJobOrFail(launch, NetworkWorker.class.getName(), List.of(a[0]));
            return;
        }
        Backend.watchMpiLauncher();            // a rank outlives no killed launcher
        try {
            Communicator comm = Backend.mpiWorld();
            Backend.mpiRanksPerProcess(k);
            int batch = job.path("batch").asInt();
            int steps = job.path("steps").asInt();
            // The run's first UNTIMED steps train but are not timed, as DDP's warm-up steps in its process: the
            // first step observes and agrees the sum's grid, and the next may fail a guess as the grid settles.
            int n0 = batch * (steps + UNTIMED);
            Dataset all = BenchMlpCommand.images(Math.max(512, n0));
            Dataset data = new Dataset(java.util.Arrays.copyOf(all.x(), n0 * 784), java.util.Arrays.copyOf(all.y(), n0),
                n0, 784);
            // One block size at every layout, so that every layout sums the same blocks: the same bits.
            TrainSpec spec = BenchDlCommand.spec(job.path("model").asText(), job.path("precision").asText(), 2 * k,
                batch).withBlockSize(job.path("block_size").asInt());
            spec = spec.withExchange(org.paratrain.train.spec.ExchangeSpec.parse(job.path("allreduce").asText("ring"),
                org.paratrain.train.spec.ExchangeSpec.Sum.parse(job.path("sum").asText("fixed:1"))));
            spec = spec.withRun(spec.run().withBucketSize(job.path("bucket_size").asInt(0)));
            org.paratrain.train.cost.ExchangeProbe.Result pick = null;
            if (spec.exchange().isAuto()) {
                // As train does on MPI: the ranks time every allreduce on the link, and take the fastest.
                pick = org.paratrain.cli.LinkAuto.probe(spec, 784, 10, data.samples());
                spec = spec.withExchange(pick.chosen());
            }
            // Warm-up, at least 40 steps in all: the JIT compiles a step's loops only after some.
            for (int w = 0; w < Math.max(1, (40 + steps - 1) / (steps + UNTIMED)); w++) {
                Training.mpi(data, spec, TrainingControl.none());
            }
            // The link's cost model: the bare allreduce timed at four sizes on these ranks, fitted.
            String algorithm = spec.exchange().label();
            // Every allreduce has a formula (MPI's own: the cheaper of its short- and long-vector algorithms').
            boolean costed = org.paratrain.collective.Allreduces.names().contains(algorithm);
            // Sizes about the gradient's: a shaped link lets a short message through at the veth's speed
            // (the token bucket's burst) and a long one at the rate, which no one line fits at every size.
            // The network once: its parameter count, layers and their shares price the exchange.
            org.paratrain.model.Model network = spec.model().newModel(784, 10);
            long n = network.parameterCount() + 1L;
            // The words the step's sum sends (n / 2 and 3 more for half words): a shaped link passes a
            // message's first bytes at the veth's speed (the token bucket's burst), so a fit at twice
            // the size the step sends put the MLP's half words 1-2 ms (15-25%) over what a step took.
            long w = spec.exchange().sum().fixed() ? new org.paratrain.train.cost.SumCost(spec.exchange().sum(),
                org.paratrain.train.cost.ConversionRates.Conversion.FREE).words(n, 1) : n;
            // Around it, not far beyond: at 4 w (6.5 MB a call for the MLP in one word) TCP on the shaped link ran
            // at 0.73 Gbit/s against the 0.92 a step's messages meet, and priced those steps 20-52% over.
            long[] sizes = {1_000, Math.max(1_001, w / 2), w, 2 * w};
            // A run with buckets sums its early ones on a thread beside the computing one, which on these
            // hosts holds their one core: timed so too, for the buckets' part of the timeline.
            org.paratrain.train.cost.Buckets plan = comm.callsFromAnotherThread() ? plan(spec, network, k) : null;
            TrainingResult best = null;
            LinkModel.LinkCalibration atBest = null;
            TrainingControl timed = TrainingControl.none().withUntimedSteps(UNTIMED);
            for (int r = 0; r < job.path("rounds").asInt(1); r++) {
                TrainingResult t = Training.mpi(data, spec, timed);
                // Calibrated after each round, and the best round's kept: the VM's pace moves by tens of percent
                // over seconds (the unshaped link's call at the MLP's step size took 0.53 ms in one calibration
                // and 1.06 in the next, a minute later, while the two rows trained alike), and the row is its
                // fastest round, so a calibration of its own.
                LinkModel.LinkCalibration c = costed ? LinkModel.LinkCalibration.time(comm, algorithm, sizes, plan != null,
                    spec.exchange().sum()) : null;
                if (t != null && (best == null || t.trainSeconds() < best.trainSeconds())) {
                    best = t;
                    atBest = c;
                }
            }
            if (comm.rank() == 0) {
                // The exchange itself, without waits for a slower rank or the optimizer's update: step by step
                // the least over the ranks (the rank that arrives last waits for no one; where that rank
                // changes from step to step, as when two ranks share a host's core, totals per rank cannot
                // tell), the update timed apart.
                TrainingResult.RankTimes times = best.rankTimes();
                double exchange = times.waitFreePerStep();
                double update = java.util.Arrays.stream(times.update()).max().orElseThrow() / steps;
                ObjectNode out = RunWriter.json().createObjectNode()
                    .put("allreduce", algorithm)
                    .put("samples_per_s", (double) batch * steps / best.trainSeconds())
                    .put("exchange_share", best.commSeconds() / best.trainSeconds())
                    .put("exchange_ms_per_step", 1e3 * exchange)
                    .put("exchange_median_ms_per_step", 1e3 * times.waitFreeMedian())
                    .put("update_ms_per_step", 1e3 * update)
                    .put("wait_ms_per_step", 1e3 * Math.max(0.0, best.commSeconds() / steps - exchange - update))
                    .put("guess_misses_per_step", (double) best.guessMisses() / steps)
                    .put("timed_steps", times.waitFreeSteps())
                    .put("train_seconds", best.trainSeconds()).put("params_hash", hash(best.params()));
                // Each rank's computation and exchange (waits included) a step: overlap's cost shows in the first.
                var computePerRank = out.putArray("compute_ms_per_step_per_rank");
                var exchangePerRank = out.putArray("exchange_ms_per_step_per_rank");
                for (int q = 0; q < times.compute().length; q++) {
                    computePerRank.add(1e3 * times.compute()[q] / steps);
                    exchangePerRank.add(1e3 * times.exchange()[q] / steps);
                }
                if (!Double.isNaN(times.stagedShare())) {
                    out.put("staged_chunk_share", times.stagedShare());     // the last block's, mean over ranks and steps
                }
                if (pick != null) {
                    out.put("probe_seconds", pick.seconds());
                    // What the pick was made from: each candidate's typical call (master-worker's priced).
                    var figures = out.putObject("probe_ms");
                    for (org.paratrain.train.cost.ExchangeProbe.Timing t : pick.timings()) {
                        figures.put(t.exchange().label(), 1e3 * t.seconds());
                    }
                }
                out.put("buckets", plan == null ? 1 : plan.early() + 1);
                if (costed) {
                    // Two models of one form: the typical step's, fitted to the median calls and priced at the
                    // conversions' median rounds, and the average step's, fitted to the mean calls and priced at
                    // the mean rounds (the calls and rounds the OS or the link slowed, as some steps are).
                    org.paratrain.cli.experiment.AllreduceTiming.Calls calls = atBest.calls();
                    org.paratrain.collective.Allreduce.Machine m = LinkModel.fit(algorithm, sizes, calls.median());
                    org.paratrain.collective.Allreduce.Machine mMean = LinkModel.fit(algorithm, sizes, calls.mean());
                    org.paratrain.collective.Allreduce.Machine busy = m;
                    if (atBest.beside() != null) {
                        busy = LinkModel.fit(algorithm, sizes, atBest.beside());
                        out.put("beside_work_alpha_seconds", busy.alpha()).put("beside_work_beta_seconds_per_byte",
                            busy.beta());
                    }
                    // The link's pace beside a computing thread (the early buckets') is the loops' median in both.
                    org.paratrain.experiment.ConversionTiming.StepConversion conversion = atBest.conversion();
                    LinkModel.Prediction typical = LinkModel.predict(spec, network, plan, k, batch, steps, best,
                        new org.paratrain.train.cost.SumCost(spec.exchange().sum(), conversion.median()), m, busy);
                    LinkModel.Prediction average = LinkModel.predict(spec, network, plan, k, batch, steps, best,
                        new org.paratrain.train.cost.SumCost(spec.exchange().sum(), conversion.mean()), mMean, busy);
                    // The mean step holds the run's failed guesses at their rate; a typical step fails none.
                    out.put("predicted_exchange_ms_per_step", 1e3 * average.total())
                        .put("predicted_exchange_median_ms_per_step", 1e3 * typical.steady())
                        .put("predicted_overlap", plan != null)
                        .put("predicted_retry_ms_per_step", 1e3 * average.retries())
                        // What the model charged the sum's arithmetic: with buckets the deposits are on the
                        // backward's timeline, and only the read-back follows the blocks.
                        .put("predicted_conversion_ms_per_step", 1e3 * average.conversion())
                        .put("predicted_conversion_median_ms_per_step", 1e3 * typical.conversion())
                        .put("alpha_seconds", m.alpha())
                        .put("beta_seconds_per_byte", m.beta()).put("gamma_seconds_per_byte", m.gamma())
                        .put("mean_alpha_seconds", mMean.alpha()).put("mean_beta_seconds_per_byte", mMean.beta())
                        .put("seconds_per_sample_parameter", best.computeSeconds() / ((double) batch * steps
                            * best.params().length / (2 * k)));
                    // What the fits were made from: the link's call at each size, the median and the mean.
                    out.set("link_call_ms", LinkModel.calls(sizes, calls));
                }
                AtomicFiles.writeBytes(Path.of(job.path("result").asText()), o -> RunWriter.json().writeValue(o, out));
            }
        } catch (RuntimeException e) {
            Backend.abortMpiJob(e);
        } finally {
            Backend.finalizeMpi();
        }
    }

    /**
     * {@return the buckets the run sent during backward, as the trainer plans them, or null for a
     * run that sent the gradient whole} Buckets go for a fixed sum by an allreduce (a
     * {@code SumExchange}) of a model that tells its layers, and {@code auto} sends them only
     * beside a spare core ({@code OverlapBuckets.overlapPays}).
     */
    private static org.paratrain.train.cost.Buckets plan(TrainSpec spec, org.paratrain.model.Model model, int k) {
        int bucket = spec.run().bucketSize();
        if (bucket == org.paratrain.train.spec.RunSpec.BUCKET_AUTO) {
            bucket = Runtime.getRuntime().availableProcessors() > k ? org.paratrain.train.spec.RunSpec.DEFAULT_BUCKET : 0;
        }
        boolean sums = spec.exchange().scheme() == org.paratrain.train.spec.ExchangeSpec.Scheme.ALLREDUCE
            && spec.exchange().sum().fixed();
        return bucket > 0 && sums
            ? org.paratrain.train.cost.Buckets.plan(model.parameterCount(), model.backwardRanges(), bucket) : null;
    }

    /** {@return the first 12 hex digits of the SHA-256 of the values' bits} */
    static String hash(double[] values) {
        try {
            java.security.MessageDigest d = java.security.MessageDigest.getInstance("SHA-256");
            java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(8 * values.length);
            for (double v : values) {
                b.putLong(Double.doubleToRawLongBits(v));
            }
            return java.util.HexFormat.of().formatHex(d.digest(b.array())).substring(0, 12);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
