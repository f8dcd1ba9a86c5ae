package org.paratrain.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.ml.Pipeline;
import org.apache.spark.ml.PipelineModel;
import org.apache.spark.ml.PipelineStage;
import org.apache.spark.ml.feature.VectorAssembler;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.ml.regression.LinearRegression;
import org.apache.spark.ml.regression.LinearRegressionModel;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.paratrain.TrainedModel;
import org.paratrain.data.MakeRegression;
import org.paratrain.data.NumpyRandomState;
import org.paratrain.train.LossReduction;
import org.paratrain.train.Training;
import org.paratrain.train.TrainingResult;
import org.paratrain.train.spec.ModelSpec;
import org.paratrain.train.spec.OptimizerSpec;
import org.paratrain.train.spec.RunSpec;
import org.paratrain.train.spec.TrainSpec;

/**
 * The regressor (same bits as one local rank; MLlib's least-squares solution as the reference
 * for what it converges to), pipelines, Spark ML persistence with paratrain's model file
 * inside, and bad input refused in one line naming the column.
 */
class SparkModelTest {

    @Test
    void theRegressorIsTheBitsOfOneLocalRankAndReachesMllibsLeastSquares() {
        org.paratrain.data.Dataset data = new MakeRegression(500, 2, 2, 3.0, 10.0, true)
            .generate(new NumpyRandomState(42)).data();
        TrainSpec reference = TrainSpec.paper().withModel(new ModelSpec.Linear(true)).withLearningRate(0.5)
            .withMethod(OptimizerSpec.Method.GD)
            .withRun(new RunSpec(new RunSpec.Nodes.Count(1), 300, 0, 42, LossReduction.MEAN, 0));
        TrainingResult local = Training.local(data, reference);
        Dataset<Row> frame = SparkSessions.frame(data, 4);
        ParatrainRegressionModel ours = new ParatrainRegressor().setOptimizer("gd").setLearningRate(0.5).setEpochs(300)
            .setNumRanks(3).fit(frame);
        assertArrayEquals(local.params(), ours.trainingResult().params());
        LinearRegressionModel mllib = new LinearRegression().setSolver("normal").setRegParam(0).fit(frame);
        double[] w = ours.trainingResult().params();
        assertEquals(mllib.coefficients().apply(0), w[0], 1e-6);
        assertEquals(mllib.coefficients().apply(1), w[1], 1e-6);
        assertEquals(mllib.intercept(), w[2], 1e-6);
        Row r = ours.transform(frame).select("features", "prediction").first();
        Vector x = r.getAs(0);
        assertEquals(w[0] * x.apply(0) + w[1] * x.apply(1) + w[2], r.getDouble(1), 1e-9);
    }

    static Dataset<Row> table() {
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(3);
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            double a = rnd.nextGaussian();
            double b = rnd.nextGaussian();
            double c = rnd.nextGaussian();
            rows.add(RowFactory.create(a, b, c, a + b > 0.5 ? 2.0 : a - c > 0 ? 1.0 : 0.0));
        }
        StructType schema = new StructType().add("a", DataTypes.DoubleType).add("b", DataTypes.DoubleType)
            .add("c", DataTypes.DoubleType).add("label", DataTypes.DoubleType);
        return SparkSessions.local3().createDataFrame(rows, schema);
    }

    @Test
    void aPipelineFitsSavesAndLoadsWithTheModelFileInside(@TempDir Path dir) throws Exception {
        Dataset<Row> t = table();
        Pipeline p = new Pipeline().setStages(new PipelineStage[] {
            new VectorAssembler().setInputCols(new String[] {"a", "b", "c"}).setOutputCol("features"),
            new ParatrainClassifier().setModel("mlp").setLayers("16").setEpochs(40).setBatchSize(32)
                .setLearningRate(0.01).setNumRanks(2).setProbabilityCol("p")});
        PipelineModel fitted = p.fit(t);
        String path = dir.resolve("pipeline").toString();
        fitted.write().save(path);
        PipelineModel back = PipelineModel.load(path);
        List<Row> before = fitted.transform(t).select("prediction", "p").collectAsList();
        List<Row> after = back.transform(t).select("prediction", "p").collectAsList();
        assertEquals(before, after);
        ParatrainClassificationModel m = (ParatrainClassificationModel) back.stages()[1];
        assertEquals(3, m.numClasses());
        assertEquals(3, m.numFeatures());
        // The model file inside is paratrain's own: the library reads it and predicts the same.
        Path file;
        try (var s = Files.walk(dir)) {
            file = s.filter(f -> f.getFileName().toString().equals("model.json")).findFirst().orElseThrow();
        }
        TrainedModel library = TrainedModel.load(file);
        Vector p0 = after.get(0).getAs(1);
        Row first = t.first();
        assertArrayEquals(p0.toArray(), library.probabilities(new double[] {first.getDouble(0), first.getDouble(1),
            first.getDouble(2)}));
        double accuracy = fitted.transform(t).filter("prediction = label").count() / 300.0;
        assertTrue(accuracy > 0.85, "accuracy " + accuracy);
    }

    @Test
    void anUnfittedEstimatorSavesAndLoadsWithItsParams(@TempDir Path dir) throws Exception {
        ParatrainRegressor r = new ParatrainRegressor().setModel("mlp").setLayers("8,4").setEpochs(7).setNumRanks(2);
        String path = dir.resolve("regressor").toString();
        r.write().save(path);
        ParatrainRegressor back = ParatrainRegressor.load(path);
        assertEquals(r.uid(), back.uid());
        assertEquals("mlp", back.getModel());
        assertEquals(7, (Integer) back.getOrDefault(back.epochs()));
        assertEquals("8,4", back.getOrDefault(back.layers()));
    }

    @Test
    void badInputIsRefusedNamingTheColumn() {
        StructType schema = new StructType().add("features", new org.apache.spark.ml.linalg.VectorUDT())
            .add("label", DataTypes.DoubleType);
        Dataset<Row> ragged = SparkSessions.local3().createDataFrame(List.of(
            RowFactory.create(Vectors.dense(1, 2), 0.0), RowFactory.create(Vectors.dense(1, 2, 3), 1.0)), schema);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> new ParatrainClassifier().setNumRanks(1).fit(ragged));
        assertEquals("column features: vectors of 2 and 3 values; every row needs the same number", e.getMessage());
        Dataset<Row> halves = SparkSessions.local3().createDataFrame(List.of(
            RowFactory.create(Vectors.dense(1, 2), 0.5), RowFactory.create(Vectors.dense(1, 3), 1.0)), schema);
        e = assertThrows(IllegalArgumentException.class, () -> new ParatrainClassifier().setNumRanks(1).fit(halves));
        assertTrue(e.getMessage().startsWith("column label: labels must be class indices"), e.getMessage());
        Dataset<Row> three = SparkSessions.local3().createDataFrame(List.of(RowFactory.create(Vectors.dense(1, 2), 0.0),
            RowFactory.create(Vectors.dense(1, 3), 1.0), RowFactory.create(Vectors.dense(0, 3), 2.0)), schema);
        e = assertThrows(IllegalArgumentException.class,
            () -> new ParatrainClassifier().setModel("logistic").setNumRanks(1).fit(three));
        assertTrue(e.getMessage().startsWith("model logistic needs labels 0 and 1, the data has 3"), e.getMessage());
        Dataset<Row> unlabelled = SparkSessions.local3().createDataFrame(List.of(
            RowFactory.create(Vectors.dense(1, 2), 0.0), RowFactory.create(Vectors.dense(1, 3), null)), schema);
        e = assertThrows(IllegalArgumentException.class, () -> new ParatrainClassifier().setNumRanks(1).fit(unlabelled));
        assertEquals("label column: a row has no label (null); every row needs one", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new ParatrainClassifier().setLayers("16,x")
            .setModel("mlp").setNumRanks(1).fit(three));
        assertTrue(e.getMessage().startsWith("layers: expected widths"), e.getMessage());
    }
}
