package org.paratrain.spark;

import java.io.Serializable;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.SparkContext;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.functions;
import org.paratrain.TrainedModel;
import org.paratrain.comm.tcp.JobKey;
import org.paratrain.comm.tcp.TcpRendezvous;
import org.paratrain.experiment.SpecCodec;
import org.paratrain.model.MultilayerPerceptron;
import org.paratrain.train.LossReduction;
import org.paratrain.train.RankTraining;
import org.paratrain.train.spec.ModelSpec;
import org.paratrain.train.spec.OptimizerSpec;
import org.paratrain.train.spec.RunSpec;
import org.paratrain.train.spec.TrainSpec;
import scala.Tuple2;

/**
 * The driver's half of a fit: the rows numbered in one order, counted and checked, the spec
 * resolved, the rows moved to the task of the rank whose blocks hold them, and one barrier
 * stage run (arranged as a shuffle-map stage, so that Spark retries it, resumed from the
 * newest checkpoint).
 */
final class SparkTraining {
    private SparkTraining() { }

    /** The estimator's params, read once on the driver. */
    record Settings(String featuresCol, String labelCol, String indexCol, String model, String layers,
                    String activation, String optimizer, double learningRate, int epochs, int batchSize, long seed,
                    int numRanks, boolean float32, String checkpointDir, int checkpointInterval, int timeoutSeconds,
                    boolean standardize, String specJson, int logEvery, long logSeconds, String classWeight,
                    double labelSmoothing, String weightCol)
        implements Serializable {
        /**
         * {@return these settings training with a spec of the library's (as the command line
         * builds it) instead of the one the params make, with features standardised or not, and
         * rank 0 printing every {@code logEvery}-th epoch's loss, or else (0) a line with the time
         * left every {@code logSeconds} seconds (negative: none)}
         */
        Settings with(String spec, boolean scale, int every, long seconds) {
            return new Settings(featuresCol, labelCol, indexCol, model, layers, activation, optimizer, learningRate,
                epochs, batchSize, seed, numRanks, float32, checkpointDir, checkpointInterval, timeoutSeconds, scale,
                spec, every, seconds, classWeight, labelSmoothing, weightCol);
        }
    }

    /** What a fit produced: the spec it ran, the data's shape and rank 0's outcome. */
    record Fitted(TrainSpec spec, int features, int classes, long rows, RankTask.Outcome outcome) {
        /** {@return the trained model, for predictions and the model file} */
        TrainedModel model() {
            return TrainedModel.of(spec, features, classes, outcome.result(), outcome.standardizer());
        }
    }

    /** Per-column facts of the rows, gathered in one pass. */
    record Stats(long rows, int minFeatures, int maxFeatures, double minLabel, double maxLabel, boolean wholeLabels,
                 boolean finite, double maxWeight) implements Serializable {
        /** The facts of no rows: what {@link #and} leaves any other unchanged by. */
        static final Stats NONE = new Stats(0, Integer.MAX_VALUE, Integer.MIN_VALUE, Double.POSITIVE_INFINITY,
            Double.NEGATIVE_INFINITY, true, true, 0.0);

        /** The facts of one row: features, then its weight when {@code weighted}, then its label. */
        static Stats of(double[] row, boolean weighted) {
            double y = row[row.length - 1];
            boolean finite = true;
            for (double v : row) {
                finite &= Double.isFinite(v);
            }
            int features = row.length - (weighted ? 2 : 1);
            return new Stats(1, features, features, y, y, y == Math.rint(y), finite,
                weighted ? row[row.length - 2] : 1.0);
        }

        Stats and(Stats o) {
            return new Stats(rows + o.rows, Math.min(minFeatures, o.minFeatures), Math.max(maxFeatures, o.maxFeatures),
                Math.min(minLabel, o.minLabel), Math.max(maxLabel, o.maxLabel), wholeLabels && o.wholeLabels,
                finite && o.finite, Math.max(maxWeight, o.maxWeight));
        }
    }

    static Fitted fit(Dataset<?> dataset, Settings s, boolean classifier) {
        try {
            return run(dataset, s, classifier);
        } catch (Exception e) {
            // A task's refusal of the data reaches the driver wrapped in Spark's job failure: say it as the task did.
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t instanceof IllegalArgumentException bad) {
                    throw new IllegalArgumentException(bad.getMessage(), e);
                }
            }
            throw e;
        }
    }

    private static Fitted run(Dataset<?> dataset, Settings s, boolean classifier) {
        SparkContext sc = dataset.sparkSession().sparkContext();
        Dataset<?> ordered = s.indexCol().isEmpty() ? dataset : dataset.orderBy(functions.col(s.indexCol()));
        boolean weighted = !s.weightCol().isEmpty();
        String weightCol = s.weightCol();
        if (weighted) {
            if (weightCol.equals(s.labelCol()) || weightCol.equals(s.featuresCol())) {
                throw new IllegalArgumentException("weightCol " + weightCol + " is the " + (weightCol.equals(s.labelCol())
                    ? "label" : "features") + " column; name a column of sample weights");
            }
            org.apache.spark.sql.types.StructField f = java.util.Arrays.stream(dataset.schema().fields())
                .filter(x -> x.name().equals(weightCol)).findFirst().orElseThrow(() -> new IllegalArgumentException(
                    "weightCol " + weightCol + ": the Dataset has no such column; its columns are "
                    + String.join(", ", dataset.columns())));
            if (!(f.dataType() instanceof org.apache.spark.sql.types.NumericType)) {
                throw new IllegalArgumentException("weight column " + weightCol + " holds " + f.dataType().simpleString()
                    + " values; sample weights are numbers");
            }
        }
        JavaRDD<double[]> rows = (weighted ? ordered.select(functions.col(s.featuresCol()),
            functions.col(s.labelCol()).cast("double"), functions.col(weightCol).cast("double"))
            : ordered.select(functions.col(s.featuresCol()), functions.col(s.labelCol()).cast("double")))
            .toJavaRDD().map(r -> row(r, weightCol));
        // The sample order: the Dataset's own (or the index column's), numbered once.
        JavaPairRDD<double[], Long> numbered = rows.zipWithIndex();
        Stats st = numbered.map(t -> Stats.of(t._1(), weighted)).fold(Stats.NONE, Stats::and);
        int features = check(st, s, classifier);
        int classes = classifier ? Math.max(2, (int) st.maxLabel() + 1) : 0;
        int ranks = ranks(sc, s.numRanks());
        if (st.rows() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("paratrain trains on at most " + Integer.MAX_VALUE + " rows, the data has "
                + st.rows());
        }
        int total = (int) st.rows();
        TrainSpec spec = (s.specJson().isEmpty() ? spec(s, classifier, classes) : given(s.specJson(), st))
            .withNodes(ranks);
        if (classifier && spec.model().classes() > 0) {
            classes = spec.model().classes();
        }
        if (spec.run().batchSize() > total) {
            throw new IllegalArgumentException("batchSize " + spec.run().batchSize() + " is larger than the " + total
                + " rows");
        }
        refuseUsedCheckpointDir(s.checkpointDir());
        int[] starts = new int[ranks + 1];
        for (int r = 0; r < ranks; r++) {
            starts[r] = RankTraining.ownedRows(spec, total, r, ranks)[0];
        }
        starts[ranks] = total;
        JavaPairRDD<Long, double[]> placed = numbered.mapPartitionsToPair(new RowChunks(starts))
            .repartitionAndSortWithinPartitions(new RankPartitioner(starts));
        JobKey key = JobKey.random("driver");
        List<RankTask.Outcome> out;
        // The ranks find each other through the driver (BarrierTaskContext.allGather waits in whole seconds).
        try (TcpRendezvous rendezvous = TcpRendezvous.open(sc.getConf().get("spark.driver.host", "127.0.0.1"), ranks,
            key)) {
            RankTask task = new RankTask(SpecCodec.encode(spec).toString(), key.secretHex(), rendezvous.address(),
                starts, features, weighted, classes, s.timeoutSeconds(), s.checkpointDir(), s.checkpointInterval(),
                s.standardize(), s.logEvery(), s.logSeconds());
            RDD<RankTask.Outcome> trained = placed.rdd().barrier().mapPartitions(task, false,
                scala.reflect.ClassTag$.MODULE$.apply(RankTask.Outcome.class));
            // A barrier result stage is not retried; a barrier shuffle-map stage is: hence the shuffle after it.
            out = JavaRDD.fromRDD(trained, scala.reflect.ClassTag$.MODULE$.apply(RankTask.Outcome.class))
                .repartition(1).collect();
        }
        if (out.size() != 1) {
            throw new IllegalStateException("expected rank 0's result alone, got " + out.size());
        }
        return new Fitted(spec, features, classes, st.rows(), out.get(0));
    }

    /**
     * A fit resumes from its directory's newest checkpoint when Spark retries its stage, so the
     * directory must start empty: another fit's checkpoints (the same settings on other rows of
     * the same shape pass the check) would be resumed as this one's.
     */
    private static void refuseUsedCheckpointDir(String dir) {
        if (dir.isEmpty()) {
            return;
        }
        java.nio.file.Path p = java.nio.file.Path.of(dir);
        if (java.nio.file.Files.isDirectory(p) && !org.paratrain.train.checkpoint.CheckpointStore.files(p).isEmpty()) {
            throw new IllegalArgumentException("checkpointDir " + dir + " already holds checkpoints; a retried stage "
                + "would resume from them, so give each fit a directory of its own (or empty this one)");
        }
    }

    /** A row as {@code [features..., weight, label]}, the weight only when {@code weightCol} is not empty. */
    private static double[] row(Row r, String weightCol) {
        Object v = r.get(0);
        if (!(v instanceof Vector vec)) {
            throw new IllegalArgumentException("features column: expected a vector (as VectorAssembler makes), got "
                + (v == null ? "null" : v.getClass().getSimpleName()));
        }
        if (r.isNullAt(1)) {
            throw new IllegalArgumentException("label column: a row has no label (null); every row needs one");
        }
        if (weightCol.isEmpty()) {
            double[] out = Arrays.copyOf(vec.toArray(), vec.size() + 1);
            out[vec.size()] = r.getDouble(1);
            return out;
        }
        if (r.isNullAt(2)) {
            throw new IllegalArgumentException("weight column " + weightCol + ": a row has no weight (null); every row "
                + "needs one");
        }
        double w = r.getDouble(2);
        if (!(w >= 0 && w < Double.POSITIVE_INFINITY)) {
            throw new IllegalArgumentException("weight column " + weightCol + ": a row weighs " + w + "; sample weights "
                + "must be finite numbers of at least 0");
        }
        double[] out = Arrays.copyOf(vec.toArray(), vec.size() + 2);
        out[vec.size()] = w;
        out[vec.size() + 1] = r.getDouble(1);
        return out;
    }

    private static int check(Stats st, Settings s, boolean classifier) {
        if (st.rows() == 0) {
            throw new IllegalArgumentException("the Dataset has no rows to train on");
        }
        if (!s.weightCol().isEmpty() && st.maxWeight() == 0) {
            throw new IllegalArgumentException("weight column " + s.weightCol() + ": every row weighs 0; nothing to "
                + "train on");
        }
        if (st.minFeatures() != st.maxFeatures()) {
            throw new IllegalArgumentException("column " + s.featuresCol() + ": vectors of " + st.minFeatures() + " and "
                + st.maxFeatures() + " values; every row needs the same number");
        }
        if (st.minFeatures() < 1) {
            throw new IllegalArgumentException("column " + s.featuresCol() + ": empty vectors");
        }
        if (!st.finite()) {
            throw new IllegalArgumentException("columns " + s.featuresCol() + " and " + s.labelCol()
                + ": a value is NaN or infinite; every feature and label must be a finite number");
        }
        if (classifier && (!st.wholeLabels() || st.minLabel() < 0)) {
            throw new IllegalArgumentException("column " + s.labelCol() + ": labels must be class indices 0, 1, ..., "
                + "K-1 (as StringIndexer makes), got values from " + st.minLabel() + " to " + st.maxLabel());
        }
        if (classifier && st.maxLabel() < 1) {
            throw new IllegalArgumentException("column " + s.labelCol() + ": every label is " + st.maxLabel()
                + "; a classifier needs at least two classes");
        }
        return st.minFeatures();
    }

    /** The ranks asked for, checked against the slots a barrier stage can have at once. */
    static int ranks(SparkContext sc, int asked) {
        int slots;
        try {
            slots = sc.maxNumConcurrentTasks(sc.resourceProfileManager().defaultResourceProfile());
        } catch (RuntimeException | LinkageError e) {
            slots = sc.defaultParallelism();
        }
        int ranks = asked == 0 ? Math.max(1, Math.min(slots, sc.defaultParallelism())) : asked;
        if (ranks > slots) {
            // Spark itself would recheck every 15 s for about ten minutes before giving up.
            throw new IllegalArgumentException("numRanks " + ranks + " needs " + ranks + " task slots at once (a barrier "
                + "stage starts every task together); the cluster has " + slots + " (executor cores / "
                + "spark.task.cpus)");
        }
        return ranks;
    }

    static TrainSpec spec(Settings s, boolean classifier, int classes) {
        ModelSpec m = switch (s.model()) {
            case "linear" -> new ModelSpec.Linear(true);
            case "logistic" -> {
                if (classes != 2) {
                    throw new IllegalArgumentException("model logistic needs labels 0 and 1, the data has " + classes
                        + " classes (use softmax or mlp)");
                }
                yield new ModelSpec.Logistic(true);
            }
            case "softmax" -> new ModelSpec.Softmax(classes, true);
            case "auto" -> classes == 2 ? new ModelSpec.Logistic(true) : new ModelSpec.Softmax(classes, true);
            case "mlp" -> {
                org.paratrain.train.spec.ModelNames.MlpLayers l = layers(s.layers());
                yield new ModelSpec.Mlp(l.widths(), activation(s.activation()),
                    classifier ? MultilayerPerceptron.Head.SOFTMAX : MultilayerPerceptron.Head.SQUARED,
                    classifier ? classes : 0, s.float32() ? MultilayerPerceptron.Precision.FLOAT32
                        : MultilayerPerceptron.Precision.FLOAT64, l.dropout());
            }
            default -> throw new IllegalArgumentException("model: unknown " + s.model());
        };
        if (s.float32() && !(m instanceof ModelSpec.Mlp)) {
            throw new IllegalArgumentException("float32 applies to the mlp model, not " + s.model());
        }
        TrainSpec spec = TrainSpec.paper().withModel(m).withLearningRate(s.learningRate())
            .withMethod(s.optimizer().equals("gd") ? OptimizerSpec.Method.GD : OptimizerSpec.Method.ADAM)
            .withRun(new RunSpec(new RunSpec.Nodes.Count(1), s.epochs(), s.batchSize(), s.seed(), LossReduction.MEAN, 0));
        org.paratrain.train.spec.LossSpec loss = org.paratrain.train.spec.LossSpec.parse(s.classWeight(),
            s.labelSmoothing());
        return loss.plain() ? spec : spec.withLoss(loss);
    }

    /** The library's spec a caller gave (as JSON), its classes checked against the labels' range. */
    private static TrainSpec given(String json, Stats st) {
        TrainSpec spec;
        try {
            spec = SpecCodec.decode(org.paratrain.experiment.RunWriter.json().readTree(json));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        int k = spec.model().classes();
        if (spec.model().classifier() && k > 0 && st.maxLabel() >= k) {
            throw new IllegalArgumentException("model " + spec.model().kind() + " takes classes 0.." + (k - 1)
                + ", the labels reach " + st.maxLabel());
        }
        return spec;
    }

    /** The hidden widths, each optionally followed by {@code dropout:RATE} ({@code 64,dropout:0.5,32}). */
    private static org.paratrain.train.spec.ModelNames.MlpLayers layers(String layers) {
        try {
            return org.paratrain.train.spec.ModelNames.mlpLayers(layers);
        } catch (org.paratrain.train.spec.SpecException e) {
            throw new IllegalArgumentException("layers: expected widths separated by commas, such as 64,32 (each may "
                + "be followed by dropout:RATE); got \"" + layers + "\"");
        }
    }

    private static MultilayerPerceptron.Activation activation(String name) {
        return MultilayerPerceptron.Activation.valueOf(name.toUpperCase(java.util.Locale.ROOT));
    }
}
