package org.paratrain.spark;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.ml.linalg.VectorUDT;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/** One embedded Spark for the tests: tasks as threads of this JVM, three slots. */
final class SparkSessions {
    private static SparkSession spark;

    private SparkSessions() { }

    static synchronized SparkSession local3() {
        if (spark == null) {
            spark = SparkSession.builder().master("local[3]").appName("paratrain-spark-tests")
                .config("spark.ui.enabled", "false")
                .config("spark.sql.shuffle.partitions", "3")
                .config("spark.driver.host", "127.0.0.1")
                .config("spark.driver.bindAddress", "127.0.0.1")
                .getOrCreate();
        }
        return spark;
    }

    /** A DataFrame of (features, label) rows, and a weight column "w" when the data set has weights, in the data set's order, cut into {@code partitions}. */
    static Dataset<Row> frame(org.paratrain.data.Dataset d, int partitions) {
        return frame(local3(), d, partitions);
    }

    /** As {@link #frame(org.paratrain.data.Dataset, int)}, on the given Spark. */
    static Dataset<Row> frame(SparkSession s, org.paratrain.data.Dataset d, int partitions) {
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < d.samples(); i++) {
            double[] x = java.util.Arrays.copyOfRange(d.x(), i * d.features(), (i + 1) * d.features());
            rows.add(d.weights() == null ? RowFactory.create(Vectors.dense(x), d.y()[i])
                : RowFactory.create(Vectors.dense(x), d.y()[i], d.weights()[i]));
        }
        StructType schema = new StructType().add("features", new VectorUDT()).add("label", DataTypes.DoubleType);
        if (d.weights() != null) {
            schema = schema.add("w", DataTypes.DoubleType);
        }
        return s.createDataFrame(new org.apache.spark.api.java.JavaSparkContext(s.sparkContext())
            .parallelize(rows, partitions), schema);
    }
}
