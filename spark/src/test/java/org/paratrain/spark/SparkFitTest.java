package org.paratrain.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.apache.spark.ml.classification.LogisticRegression;
import org.apache.spark.ml.classification.LogisticRegressionModel;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.paratrain.model.MultilayerPerceptron;
import org.paratrain.train.LossReduction;
import org.paratrain.train.Training;
import org.paratrain.train.TrainingResult;
import org.paratrain.train.spec.ModelSpec;
import org.paratrain.train.spec.OptimizerSpec;
import org.paratrain.train.spec.RunSpec;
import org.paratrain.train.spec.TrainSpec;

/**
 * Fitting on Spark ({@code local[3]}: tasks as threads) gives the bits of {@link Training#local}
 * on the same rows in the same order, at 1, 2 and 3 tasks, for a logistic regression and an
 * MLP, full batch and mini-batch; and as accurate a model as MLlib's own LogisticRegression.
 */
class SparkFitTest {

    /** 437 rows of 3 features, two classes, from a fixed seed. */
    static org.paratrain.data.Dataset data() {
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(11);
        int n = 437;
        double[] x = new double[3 * n];
        double[] y = new double[n];
        for (int i = 0; i < x.length; i++) {
            x[i] = rnd.nextGaussian();
        }
        for (int i = 0; i < n; i++) {
            double z = 1.5 * x[3 * i] - x[3 * i + 1] + 0.5 * x[3 * i + 2] + 0.3 * rnd.nextGaussian();
            y[i] = z > 0.2 ? 1 : 0;
        }
        return new org.paratrain.data.Dataset(x, y, n, 3);
    }

    /** The library's spec for what the estimator below is set to: written out independently. */
    static TrainSpec reference(String model, int batch) {
        ModelSpec m = model.startsWith("mlp")
            ? new ModelSpec.Mlp(List.of(8), MultilayerPerceptron.Activation.TANH, MultilayerPerceptron.Head.SOFTMAX, 2,
                MultilayerPerceptron.Precision.FLOAT64, List.of(model.equals("mlp-dropout") ? 0.25 : 0.0))
            : new ModelSpec.Logistic(true);
        return TrainSpec.paper().withModel(m).withLearningRate(0.02).withMethod(OptimizerSpec.Method.ADAM)
            .withRun(new RunSpec(new RunSpec.Nodes.Count(1), 12, batch, 9, LossReduction.MEAN, 0));
    }

    static ParatrainClassifier estimator(String model, int batch, int ranks) {
        // A full-batch task holds only its own rows: dropout's masks must follow the rows, not the task.
        return new ParatrainClassifier().setModel(model.startsWith("mlp") ? "mlp" : model)
            .setLayers(model.equals("mlp-dropout") ? "8,dropout:0.25" : "8").setActivation("tanh").setLearningRate(0.02)
            .setEpochs(12).setBatchSize(batch).setSeed(9).setNumRanks(ranks);
    }

    @ParameterizedTest(name = "{0}, batch {1}, {2} tasks")
    @CsvSource({"logistic,0,1", "logistic,0,2", "logistic,0,3", "logistic,32,3", "mlp,0,2", "mlp,16,1", "mlp,16,2",
        "mlp,16,3", "mlp-dropout,0,3", "mlp-dropout,16,2"})
    void aFitOnSparkIsTheBitsOfOneLocalRank(String model, int batch, int ranks) {
        org.paratrain.data.Dataset data = data();
        TrainingResult local = Training.local(data, reference(model, batch));
        // Five partitions in, three tasks training: the rows move to their blocks' ranks.
        ParatrainClassificationModel fitted = estimator(model, batch, ranks).fit(SparkSessions.frame(data, 5));
        TrainingResult spark = fitted.trainingResult();
        assertEquals(ranks, spark.nodes());
        assertArrayEquals(local.params(), spark.params(), "parameters differ from one local rank");
        assertEquals(Double.doubleToLongBits(local.finalLoss()), Double.doubleToLongBits(spark.finalLoss()));
        assertEquals(local.trainAccuracy(), spark.trainAccuracy());
        assertArrayEquals(local.history().loss(), spark.history().loss());
    }

    /**
     * Class weights (given and balanced, counted over every task's rows) and label smoothing: the
     * bits of one local rank with the same loss, at 1 to 3 tasks; a weight that is not a number is
     * refused when set, naming the param.
     */
    @Test
    void classWeightsAndLabelSmoothingOnSparkAreTheBitsOfOneLocalRank() {
        org.paratrain.data.Dataset data = data();
        for (String weights : new String[] {"1,3", "balanced"}) {
            org.paratrain.train.spec.LossSpec loss = weights.equals("balanced")
                ? new org.paratrain.train.spec.LossSpec(List.of(), true, 0.1)
                : new org.paratrain.train.spec.LossSpec(List.of(1.0, 3.0), false, 0.1);
            TrainingResult local = Training.local(data, reference("mlp", 16).withLoss(loss));
            TrainingResult plain = Training.local(data, reference("mlp", 16));
            assertTrue(!java.util.Arrays.equals(local.params(), plain.params()), "the loss changes training");
            for (int ranks = 1; ranks <= 3; ranks++) {
                ParatrainClassificationModel fitted = estimator("mlp", 16, ranks).setClassWeight(weights)
                    .setLabelSmoothing(0.1).fit(SparkSessions.frame(data, 4));
                assertArrayEquals(local.params(), fitted.trainingResult().params(), weights + ", " + ranks + " tasks");
            }
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> new ParatrainClassifier().setClassWeight("1,x"));
        assertTrue(e.getMessage().contains("classWeight"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new ParatrainClassifier().setLabelSmoothing(1.0));
    }

    @Test
    void aWeightColumnOnSparkIsTheBitsOfOneLocalRankOnWeightedData() {
        org.paratrain.data.Dataset plainData = data();
        double[] w = new double[plainData.samples()];
        for (int i = 0; i < w.length; i++) {
            w[i] = (i % 5) * 0.5;                            // zero weights included
        }
        org.paratrain.data.Dataset data = plainData.withWeights(w);
        TrainingResult local = Training.local(data, reference("mlp", 16));
        TrainingResult plain = Training.local(plainData, reference("mlp", 16));
        assertTrue(!java.util.Arrays.equals(local.params(), plain.params()), "the weights change training");
        for (int ranks = 1; ranks <= 3; ranks++) {
            ParatrainClassificationModel fitted = estimator("mlp", 16, ranks).setWeightCol("w")
                .fit(SparkSessions.frame(data, 4));
            assertArrayEquals(local.params(), fitted.trainingResult().params(), ranks + " tasks");
        }
        // Without setWeightCol the column is ignored: the unweighted fit.
        ParatrainClassificationModel ignored = estimator("mlp", 16, 2).fit(SparkSessions.frame(data, 4));
        assertArrayEquals(plain.params(), ignored.trainingResult().params());
        Dataset<Row> negative = SparkSessions.frame(data, 4)
            .withColumn("w", org.apache.spark.sql.functions.when(org.apache.spark.sql.functions.col("w").gt(1),
                -1.0).otherwise(org.apache.spark.sql.functions.col("w")));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> estimator("mlp", 16, 2).setWeightCol("w").fit(negative));
        assertTrue(e.getMessage().startsWith("weight column w: a row weighs -1.0"), e.getMessage());
        Dataset<Row> zero = SparkSessions.frame(data, 4)
            .withColumn("w", org.apache.spark.sql.functions.lit(0.0));
        e = assertThrows(IllegalArgumentException.class, () -> estimator("mlp", 16, 2).setWeightCol("w").fit(zero));
        assertEquals("weight column w: every row weighs 0; nothing to train on", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> estimator("mlp", 16, 2).setWeightCol("label")
            .fit(SparkSessions.frame(data, 4)));
        assertEquals("weightCol label is the label column; name a column of sample weights", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> estimator("mlp", 16, 2).setWeightCol("nope")
            .fit(SparkSessions.frame(data, 4)));
        assertEquals("weightCol nope: the Dataset has no such column; its columns are features, label, w",
            e.getMessage());
        Dataset<Row> strings = SparkSessions.frame(data, 4).withColumn("w", org.apache.spark.sql.functions.lit("x"));
        e = assertThrows(IllegalArgumentException.class, () -> estimator("mlp", 16, 2).setWeightCol("w").fit(strings));
        assertEquals("weight column w holds string values; sample weights are numbers", e.getMessage());
    }

    @Test
    void standardisingOverTheTasksIsTheBitsOfOneFitOnAllRows() {
        org.paratrain.data.Dataset raw = data();
        double[] x = raw.x().clone();
        for (int i = 0; i < x.length; i++) {
            x[i] = x[i] * (1 + 10 * (i % 3)) + 50 * (i % 3);    // features on other scales and offsets
        }
        org.paratrain.data.Dataset data = new org.paratrain.data.Dataset(x, raw.y(), raw.samples(), 3);
        org.paratrain.data.Standardizer whole = org.paratrain.data.Standardizer.fit(data);
        TrainingResult local = Training.local(whole.apply(data), reference("logistic", 32));
        ParatrainClassificationModel fitted = estimator("logistic", 32, 3).setStandardize(true)
            .fit(SparkSessions.frame(data, 4));
        assertArrayEquals(local.params(), fitted.trainingResult().params());
        // The model scales raw rows itself: its predictions are the local model's on scaled rows.
        org.paratrain.TrainedModel m = fitted.trainedModel();
        org.paratrain.TrainedModel unscaled = org.paratrain.TrainedModel.of(reference("logistic", 32), 3, 2, local);
        org.paratrain.data.Dataset scaled = whole.apply(data);
        for (int i = 0; i < 40; i++) {
            double[] row = java.util.Arrays.copyOfRange(x, 3 * i, 3 * i + 3);
            double[] scaledRow = java.util.Arrays.copyOfRange(scaled.x(), 3 * i, 3 * i + 3);
            assertEquals(unscaled.predict(scaledRow), m.predict(row), "row " + i);
        }
    }

    @Test
    void anIndexColumnFixesTheOrderOfShuffledRows() {
        org.paratrain.data.Dataset data = data();
        TrainingResult local = Training.local(data, reference("logistic", 32));
        Dataset<Row> shuffled = SparkSessions.frame(data, 4)
            .withColumn("id", org.apache.spark.sql.functions.monotonically_increasing_id())
            .orderBy(org.apache.spark.sql.functions.rand(3));
        ParatrainClassificationModel fitted = estimator("logistic", 32, 2).setIndexCol("id").fit(shuffled);
        assertArrayEquals(local.params(), fitted.trainingResult().params());
    }

    @Test
    void itIsAsAccurateAsMllibsLogisticRegressionOnTheSameRows() {
        Dataset<Row> frame = SparkSessions.frame(data(), 3);
        ParatrainClassificationModel ours = new ParatrainClassifier().setEpochs(300).setLearningRate(0.05)
            .setNumRanks(3).fit(frame);
        LogisticRegressionModel mllib = new LogisticRegression().setMaxIter(100).setRegParam(0).fit(frame);
        double a = accuracy(ours.transform(frame));
        double b = accuracy(mllib.transform(frame));
        assertTrue(Math.abs(a - b) <= 0.01, "paratrain " + a + ", MLlib " + b);
        assertTrue(a > 0.9, "accuracy " + a);
        // The columns MLlib's classifiers add, with probabilities that sum to 1.
        Row first = ours.transform(frame).select("prediction", "probability", "rawPrediction").first();
        org.apache.spark.ml.linalg.Vector p = first.getAs(1);
        assertEquals(2, p.size());
        assertEquals(1.0, p.apply(0) + p.apply(1), 1e-12);
        assertEquals(p.argmax(), first.getDouble(0));
    }

    static double accuracy(Dataset<Row> predicted) {
        return predicted.filter("prediction = label").count() / (double) predicted.count();
    }

    @Test
    void moreRanksThanSlotsIsOneClearErrorAtOnce() {
        long t0 = System.nanoTime();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> estimator("logistic", 0, 5).fit(SparkSessions.frame(data(), 2)));
        assertTrue(e.getMessage().contains("numRanks 5 needs 5 task slots") && e.getMessage().contains("has 3"),
            e.getMessage());
        assertTrue(System.nanoTime() - t0 < 30e9, "the refusal took " + (System.nanoTime() - t0) / 1e9 + " s");
    }
}
