package org.paratrain.spark;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.Serializable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.spark.BarrierTaskContext;
import org.paratrain.collective.Allreduces;
import org.paratrain.collective.Reduction;
import org.paratrain.comm.tcp.JobKey;
import org.paratrain.comm.tcp.TcpRendezvous;
import org.paratrain.comm.tcp.TcpCommunicator;
import org.paratrain.comm.tcp.TcpEndpoint;
import org.paratrain.data.Dataset;
import org.paratrain.data.Standardizer;
import org.paratrain.experiment.CheckpointRecords;
import org.paratrain.experiment.Provenance;
import org.paratrain.experiment.RunWriter;
import org.paratrain.experiment.SpecCodec;
import org.paratrain.train.RankTraining;
import org.paratrain.train.TrainingControl;
import org.paratrain.train.TrainingResult;
import org.paratrain.train.TrainingState;
import org.paratrain.train.checkpoint.CheckpointStore;
import org.paratrain.train.checkpoint.CheckpointWriter;
import org.paratrain.train.spec.TrainSpec;
import scala.Tuple2;
import scala.jdk.javaapi.CollectionConverters;

/**
 * One rank, run by one task of the barrier stage: it takes its rows (numbered, sorted, all of its
 * blocks), opens a port on its executor's host, learns every task's port through the
 * driver's {@link TcpRendezvous}, joins the mesh with a key tied to this stage attempt,
 * resumes from the newest checkpoint if there is one, and trains. Rank 0's task returns the
 * outcome; the others return nothing.
 */
final class RankTask extends scala.runtime.AbstractFunction1<scala.collection.Iterator<Tuple2<Long, double[]>>,
    scala.collection.Iterator<RankTask.Outcome>> implements Serializable {
    private static final long serialVersionUID = 1L;

    private final String spec;
    private final String secret;
    private final String rendezvous;
    private final int[] starts;
    private final int features;
    private final boolean weighted;
    private final int classes;
    private final int timeoutSeconds;
    private final String checkpointDir;
    private final int checkpointInterval;
    private final boolean standardize;
    private final int logEvery;
    private final long logSeconds;
    /** When rank 0 last printed a line, or began ({@link System#nanoTime}): set on the executor. */
    private transient long lastLine;

    RankTask(String spec, String secret, String rendezvous, int[] starts, int features, boolean weighted, int classes,
             int timeoutSeconds, String checkpointDir, int checkpointInterval, boolean standardize, int logEvery,
             long logSeconds) {
        this.spec = spec;
        this.secret = secret;
        this.rendezvous = rendezvous;
        this.starts = starts.clone();
        this.features = features;
        this.weighted = weighted;
        this.classes = classes;
        this.timeoutSeconds = timeoutSeconds;
        this.checkpointDir = checkpointDir;
        this.checkpointInterval = checkpointInterval;
        this.standardize = standardize;
        this.logEvery = logEvery;
        this.logSeconds = logSeconds;
    }

    /**
     * Rank 0's result, as it crosses back to the driver; {@link #result} rebuilds the library's.
     *
     * @serial exclude
     */
    record Outcome(double[] params, double finalLoss, int epochs, int nodes, String algorithm, int blockSize,
                   double trainSeconds, double computeSeconds, double commSeconds, double[] loss, double[] seconds,
                   double[] compute, double[] comm, double trainAccuracy, int stageAttempt, int resumedAtEpoch,
                   double[] mean, double[] scale, int[] blocksPerRank, int splitMoves, double[] rankCompute,
                   double[] rankExchange, long guessMisses) implements Serializable {

        static Outcome of(TrainingResult r, int stageAttempt, int resumedAtEpoch, Standardizer standardizer) {
            TrainingResult.History h = r.history();
            TrainingResult.Split split = r.split();
            TrainingResult.RankTimes times = r.rankTimes();
            return new Outcome(r.params(), r.finalLoss(), r.epochs(), r.nodes(), r.algorithm(), r.blockSize(),
                r.trainSeconds(), r.computeSeconds(), r.commSeconds(), h.loss(), h.seconds(), h.compute(), h.comm(),
                r.trainAccuracy(), stageAttempt, resumedAtEpoch, standardizer == null ? null : standardizer.mean(),
                standardizer == null ? null : standardizer.scale(), split == null ? null : split.blocksPerRank(),
                split == null ? 0 : split.moves(), times == null ? null : times.compute(),
                times == null ? null : times.exchange(), r.guessMisses());
        }

        /** {@return the scaling the rows were trained with, or null for none} */
        Standardizer standardizer() {
            return mean == null ? null : new Standardizer(mean, scale);
        }

        TrainingResult result() {
            return new TrainingResult(params, finalLoss, epochs, nodes, "spark", algorithm, blockSize, trainSeconds,
                computeSeconds, commSeconds, new TrainingResult.History(loss, seconds, compute, comm), trainAccuracy,
                blocksPerRank == null ? null : new TrainingResult.Split(blocksPerRank, splitMoves),
                rankCompute == null ? null : new TrainingResult.RankTimes(rankCompute, rankExchange), guessMisses);
        }
    }

    @Override
    public scala.collection.Iterator<Outcome> apply(scala.collection.Iterator<Tuple2<Long, double[]>> rows) {
        Outcome o = run(CollectionConverters.asJava(rows));
        return CollectionConverters.asScala(o == null ? List.<Outcome>of().iterator() : List.of(o).iterator());
    }

    private Outcome run(java.util.Iterator<Tuple2<Long, double[]>> rows) {
        lastLine = System.nanoTime();
        BarrierTaskContext ctx = BarrierTaskContext.get();
        int rank = ctx.partitionId();
        TrainSpec s = decode(spec);
        Dataset data = rows(rank, rows);
        String attempt = "stage " + ctx.stageId() + " attempt " + ctx.stageAttemptNumber();
        TcpCommunicator comm;
        try (TcpEndpoint endpoint = TcpEndpoint.listen(host(ctx.getTaskInfos()[rank].address()))) {
            JobKey key = JobKey.fromHex(secret, attempt);
            Duration timeout = Duration.ofSeconds(timeoutSeconds);
            List<String> addresses = TcpRendezvous.exchange(rendezvous, rank, starts.length - 1, endpoint.address(), key,
                timeout);
            comm = endpoint.connect(rank, addresses, key, timeout);
        }
        try {
            // The scaling of the whole data, fitted in turn over the ranks' rows: Standardizer.fit's bits.
            Standardizer scaling = standardize ? RankTraining.standardizer(comm, data) : null;
            if (scaling != null) {
                data = scaling.apply(data);
            }
            ObjectNode meta = CheckpointRecords.meta(SpecCodec.encode(s), fingerprint(),
                Provenance.capture(List.of("paratrain-spark")).toJson());
            TrainingState resume = checkpointDir.isEmpty() ? null : resume(comm, meta);
            TrainingResult r;
            if (checkpointDir.isEmpty()) {
                r = RankTraining.train(comm, data, starts[starts.length - 1], classes, s, control(resume, null));
            } else {
                try (CheckpointWriter w = new CheckpointWriter(new CheckpointStore(Path.of(checkpointDir), 2), meta,
                    f -> { })) {
                    r = RankTraining.train(comm, data, starts[starts.length - 1], classes, s,
                        control(resume, new TrainingControl.Checkpoints(checkpointInterval, 0, w)));
                }
            }
            comm.close();
            return r == null ? null : Outcome.of(r, ctx.stageAttemptNumber(), resume == null ? 0 : resume.epoch(),
                scaling);
        } catch (RuntimeException | Error e) {
            comm.abortFor(e);
            throw e;
        }
    }

    private static TrainSpec decode(String json) {
        try {
            return SpecCodec.decode(RunWriter.json().readTree(json));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private TrainingControl control(TrainingState resume, TrainingControl.Checkpoints checkpoints) {
        return new TrainingControl(resume, checkpoints, logEvery > 0 || logSeconds >= 0 ? this::log : null,
            Duration.ofSeconds(timeoutSeconds));
    }

    /**
     * Rank 0's epoch line, on its executor's standard error (the command line passes it on from a
     * local master): every {@code logEvery}-th epoch and the last, or else one every
     * {@code logSeconds} seconds with the time left, as the command line's other backends print
     * where their output is no terminal (a short run prints none).
     */
    private void log(int epoch, TrainingResult.History h) {
        int epochs = h.loss().length;
        String line = String.format(java.util.Locale.ROOT, "%sepoch %d/%d  loss %.6g  %.2f s", PROGRESS, epoch, epochs,
            h.loss()[epoch - 1], h.seconds()[epoch - 1]);
        if (logEvery > 0) {
            if (epoch % logEvery == 0 || epoch == epochs) {
                System.err.println(line);
            }
            return;
        }
        long now = System.nanoTime();
        if (epoch < epochs && now - lastLine >= logSeconds * 1_000_000_000L) {
            lastLine = now;
            System.err.printf(java.util.Locale.ROOT, "%s, about %.0f s left%n", line,
                h.seconds()[epoch - 1] / epoch * (epochs - epoch));
        }
    }

    /** What starts an epoch line, so that a reader of the executor's output can tell it from Spark's. */
    static final String PROGRESS = "paratrain: ";

    /** This rank's rows in sample order, from their chunks ({@link RowChunks}), checked to be exactly its blocks. */
    private Dataset rows(int rank, java.util.Iterator<Tuple2<Long, double[]>> chunks) {
        int n = starts[rank + 1] - starts[rank];
        double[] x = new double[Math.multiplyExact(n, features)];
        double[] y = new double[n];
        int i = 0;
        double[] w = weighted ? new double[n] : null;
        int width = features + (weighted ? 2 : 1);
        while (chunks.hasNext()) {
            Tuple2<Long, double[]> t = chunks.next();
            int count = t._2().length / width;
            if (i + count > n || t._1() != starts[rank] + i) {
                throw new IllegalStateException("rank " + rank + " expected sample " + (starts[rank] + i) + ", got "
                    + t._1() + ": the rows were not placed by block");
            }
            for (int k = 0; k < count; k++, i++) {
                System.arraycopy(t._2(), k * width, x, i * features, features);
                y[i] = t._2()[k * width + width - 1];
                if (w != null) {
                    w[i] = t._2()[k * width + features];
                }
            }
        }
        if (i != n) {
            throw new IllegalStateException("rank " + rank + " got " + i + " of its " + n + " rows");
        }
        return new Dataset(x, y, n, features, w);
    }

    /**
     * The state to resume from: rank 0 picks the newest intact checkpoint (checked against this
     * run), every other rank reads that same file, named by its epoch and step.
     */
    private TrainingState resume(TcpCommunicator comm, ObjectNode meta) {
        Path dir = Path.of(checkpointDir);
        TrainingState state = null;
        long[] at = new long[2];
        if (comm.rank() == 0 && Files.isDirectory(dir) && !CheckpointStore.files(dir).isEmpty()) {
            state = CheckpointRecords.load(dir, meta, w -> System.err.println("paratrain: warning: " + w));
            at[0] = state.epoch() + 1L;
            at[1] = state.step();
        }
        Allreduces.create("star").allreduce(comm, at, 0, 2, Reduction.WORD_SUM);    // zeros elsewhere: rank 0's words
        if (at[0] == 0 || comm.rank() == 0) {
            return state;
        }
        Path file = dir.resolve(CheckpointStore.fileName((int) (at[0] - 1), (int) at[1]));
        return CheckpointRecords.load(file, null, w -> System.err.println("paratrain: warning: " + w));
    }

    private ObjectNode fingerprint() {
        ObjectNode f = RunWriter.json().createObjectNode();
        f.put("source", "spark");
        f.put("samples", starts[starts.length - 1]);
        f.put("features", features);
        if (weighted) {
            f.put("weighted", true);
        }
        return f;
    }

    private static String host(String address) {
        int colon = address.lastIndexOf(':');
        return colon < 0 ? address : address.substring(0, colon);
    }
}
