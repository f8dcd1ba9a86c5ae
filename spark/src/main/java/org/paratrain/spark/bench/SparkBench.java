package org.paratrain.spark.bench;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.apache.spark.ml.classification.LogisticRegression;
import org.apache.spark.ml.classification.MultilayerPerceptronClassifier;
import org.apache.spark.ml.linalg.VectorUDT;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.paratrain.experiment.RunWriter;
import org.paratrain.spark.ParatrainClassificationModel;
import org.paratrain.spark.ParatrainClassifier;
import org.paratrain.train.TrainingResult;

/**
 * The measuring half of {@code paratrain bench spark}, run by the command line in a JVM that has
 * Spark: on one embedded Spark ({@code local[ranks]}), the same cached rows trained by paratrain
 * on Spark, by MLlib's LogisticRegression and MultilayerPerceptronClassifier, and by paratrain's
 * local backend on the same rows; per epoch (iteration) and to the same training loss. Writes
 * its figures as JSON for the command line's tables and plots; progress goes to stderr.
 *
 * <p>Arguments: {@code JSON_OUT RANKS EPOCHS SMALL_ROWSxFEATURES LARGE_ROWSxFEATURES|none}.
 */
public final class SparkBench {
    private SparkBench() { }

    /**
     * Runs the benchmark.
     *
     * @param args the JSON file to write, ranks, epochs, the small and the large workload
     * @throws Exception if Spark fails
     */
    public static void main(String[] args) throws Exception {
        Path out = Path.of(args[0]);
        int ranks = Integer.parseInt(args[1]);
        int epochs = Integer.parseInt(args[2]);
        SparkSession spark = SparkSession.builder().master("local[" + ranks + "]").appName("paratrain bench spark")
            .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", String.valueOf(ranks))
            .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1").getOrCreate();
        spark.sparkContext().setLogLevel("ERROR");
        ObjectNode json = RunWriter.json().createObjectNode();
        json.put("ranks", ranks).put("epochs", epochs).put("spark", spark.version())
            .put("cores", Runtime.getRuntime().availableProcessors());
        ArrayNode rows = json.putArray("rows");
        for (int w = 3; w < args.length; w++) {
            if (args[w].equals("none")) {
                continue;
            }
            String[] shape = args[w].split("x");
            int n = Integer.parseInt(shape[0]);
            int f = Integer.parseInt(shape[1]);
            Workload data = new Workload(n, f, 7);
            Dataset<Row> frame = data.frame(spark, ranks).cache();
            frame.count();
            for (String model : List.of("logistic", "mlp")) {
                System.err.printf(Locale.ROOT, "  %s on %d x %d: paratrain on Spark, paratrain local, MLlib...%n", model, n, f);
                rows.add(measure(spark, frame, data, model, ranks, epochs).put("workload", w == 3 ? "small" : "large"));
            }
            frame.unpersist(true);
        }
        RunWriter.json().writeValue(out.toFile(), json);
        spark.stop();
    }

    private static ObjectNode measure(SparkSession spark, Dataset<Row> frame, Workload data, String model, int ranks,
                                      int epochs) {
        ParatrainClassifier est = new ParatrainClassifier().setModel(model).setLayers("16").setEpochs(epochs)
            .setLearningRate(model.equals("mlp") ? 0.01 : 0.05).setNumRanks(ranks);
        est.fit(frame);                                                   // warm-up: JIT, Spark's first jobs
        long t0 = System.nanoTime();
        ParatrainClassificationModel fitted = est.fit(frame);
        double fit = (System.nanoTime() - t0) / 1e9;
        TrainingResult onSpark = fitted.trainingResult();
        org.paratrain.data.Dataset local = data.arrays();
        org.paratrain.train.Training.local(local, est.toSpec(2, ranks));  // warm-up
        TrainingResult onThreads = org.paratrain.train.Training.local(local, est.toSpec(2, ranks));
        boolean same = java.util.Arrays.equals(onSpark.params(), onThreads.params());

        Mllib m = model.equals("mlp") ? mlp(frame, data.features(), 3) : logistic(frame, 3);   // warm-up
        m = model.equals("mlp") ? mlp(frame, data.features(), epochs) : logistic(frame, epochs);
        double target = Math.max(onSpark.finalLoss(), m.history[m.history.length - 1]);
        double oursToTarget = fit - onSpark.trainSeconds() + secondsTo(onSpark, target);
        int iterations = firstBelow(m.history, target);
        long t1 = System.nanoTime();
        if (model.equals("mlp")) {
            mlp(frame, data.features(), iterations);
        } else {
            logistic(frame, iterations);
        }
        double mllibToTarget = (System.nanoTime() - t1) / 1e9;
        ObjectNode o = RunWriter.json().createObjectNode();
        o.put("model", model).put("rows", data.rows()).put("features", data.features())
            .put("paratrain_spark_fit_s", fit).put("paratrain_spark_epoch_s", onSpark.trainSeconds() / epochs)
            .put("paratrain_local_epoch_s", onThreads.trainSeconds() / epochs)
            .put("paratrain_final_loss", onSpark.finalLoss()).put("same_bits_as_local", same)
            .put("mllib_fit_s", m.seconds).put("mllib_iterations", m.history.length - 1)
            .put("mllib_iteration_s", m.seconds / Math.max(1, m.history.length - 1))
            .put("mllib_final_loss", m.history[m.history.length - 1]).put("target_loss", target)
            .put("paratrain_spark_to_target_s", oursToTarget).put("mllib_to_target_s", mllibToTarget)
            .put("mllib_iterations_to_target", iterations);
        System.err.printf(Locale.ROOT, "    paratrain on Spark %.3f s (%.2f ms/epoch), local %.2f ms/epoch, MLlib %.3f s "
            + "(%.2f ms/iteration); to loss %.4f: %.3f s against %.3f s%n", fit, 1e3 * onSpark.trainSeconds() / epochs,
            1e3 * onThreads.trainSeconds() / epochs, m.seconds, 1e3 * m.seconds / Math.max(1, m.history.length - 1),
            target, oursToTarget, mllibToTarget);
        return o;
    }

    /** An MLlib fit: its wall seconds and its objective after each iteration (the first is the start). */
    private record Mllib(double seconds, double[] history) { }

    private static Mllib logistic(Dataset<Row> frame, int iterations) {
        long t0 = System.nanoTime();
        var m = new LogisticRegression().setMaxIter(iterations).setTol(0).setRegParam(0).fit(frame);
        return new Mllib((System.nanoTime() - t0) / 1e9, m.summary().objectiveHistory());
    }

    private static Mllib mlp(Dataset<Row> frame, int features, int iterations) {
        long t0 = System.nanoTime();
        var m = new MultilayerPerceptronClassifier().setLayers(new int[] {features, 16, 2}).setMaxIter(iterations)
            .setTol(0).setSeed(7).fit(frame);
        return new Mllib((System.nanoTime() - t0) / 1e9, m.summary().objectiveHistory());
    }

    /** Seconds into paratrain's loop when its loss first reached {@code target}. */
    private static double secondsTo(TrainingResult r, double target) {
        double[] loss = r.history().loss();
        for (int e = 0; e < loss.length; e++) {
            if (loss[e] <= target) {
                return r.history().seconds()[e];
            }
        }
        return r.trainSeconds();
    }

    /** The iterations MLlib needed to reach {@code target} (history[0] is before the first). */
    private static int firstBelow(double[] history, double target) {
        for (int i = 0; i < history.length; i++) {
            if (history[i] <= target) {
                return Math.max(1, i);
            }
        }
        return history.length - 1;
    }

    /**
     * Rows made from their index alone, so that Spark's executors and this JVM make the same
     * ones: Gaussian features, a label from a fixed hyperplane with noise.
     *
     * @param rows     rows
     * @param features features a row
     * @param seed     the hyperplane's and the rows' seed
     */
    public record Workload(int rows, int features, long seed) {
        double[] weights() {
            SplittableRandom r = new SplittableRandom(seed);
            double[] w = new double[features];
            for (int j = 0; j < features; j++) {
                w[j] = r.nextGaussian() / Math.sqrt(features);
            }
            return w;
        }

        static double[] row(long seed, long i, double[] w) {
            SplittableRandom r = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + i);
            double[] x = new double[w.length + 1];
            double z = 0;
            for (int j = 0; j < w.length; j++) {
                x[j] = r.nextGaussian();
                z += w[j] * x[j];
            }
            x[w.length] = z + 0.5 * r.nextGaussian() > 0 ? 1 : 0;
            return x;
        }

        /**
         * {@return the rows as a DataFrame of features and label, made on the executors}
         * @param spark      the session
         * @param partitions its partitions, in row order
         */
        public Dataset<Row> frame(SparkSession spark, int partitions) {
            double[] w = weights();
            long s = seed;
            var rdd = spark.range(0, rows, 1, partitions).toJavaRDD().map(i -> {
                double[] v = row(s, i, w);
                return RowFactory.create(Vectors.dense(java.util.Arrays.copyOf(v, w.length)), v[w.length]);
            });
            StructType schema = new StructType().add("features", new VectorUDT()).add("label", DataTypes.DoubleType);
            return spark.createDataFrame(rdd, schema);
        }

        /** {@return the same rows in this JVM, for the local backend} */
        public org.paratrain.data.Dataset arrays() {
            double[] w = weights();
            double[] x = new double[Math.multiplyExact(rows, features)];
            double[] y = new double[rows];
            for (int i = 0; i < rows; i++) {
                double[] v = row(seed, i, w);
                System.arraycopy(v, 0, x, i * features, features);
                y[i] = v[features];
            }
            return new org.paratrain.data.Dataset(x, y, rows, features);
        }
    }
}
