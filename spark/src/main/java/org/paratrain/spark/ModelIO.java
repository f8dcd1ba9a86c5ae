package org.paratrain.spark;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.ml.param.Params;
import org.apache.spark.ml.util.DefaultParamsReader;
import org.apache.spark.ml.util.DefaultParamsWriter;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.ml.util.MLWriter;
import org.apache.spark.sql.SparkSession;
import org.paratrain.TrainedModel;

/**
 * Spark ML persistence of a fitted model: Spark's own metadata (class, uid, params) in
 * {@code PATH/metadata}, and paratrain's model file, the one {@code train --out} writes and
 * {@code TrainedModel.load} reads, as {@code PATH/data/model.json}, on any Hadoop file system.
 */
final class ModelIO {
    private ModelIO() { }

    /** Makes a model from its uid and its model file. */
    interface Maker<M> {
        M make(String uid, TrainedModel model);
    }

    static MLWriter writer(Params stage, TrainedModel model) {
        return new MLWriter() {
            @Override
            public void saveImpl(String path) {
                DefaultParamsWriter.saveMetadata(stage, path, sparkSession());
                Path file = new Path(path, "data/model.json");
                try {
                    FileSystem fs = file.getFileSystem(sparkSession().sparkContext().hadoopConfiguration());
                    try (OutputStream out = fs.create(file, true)) {
                        out.write(model.toJson("paratrain-spark"));
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
                }
            }
        };
    }

    static <M extends Params> MLReader<M> reader(Class<M> type, Maker<M> maker) {
        return new MLReader<M>() {
            @Override
            public M load(String path) {
                SparkSession spark = sparkSession();
                DefaultParamsReader.Metadata meta = DefaultParamsReader.loadMetadata(path, spark, type.getName());
                Path file = new Path(path, "data/model.json");
                byte[] bytes;
                try {
                    FileSystem fs = file.getFileSystem(spark.sparkContext().hadoopConfiguration());
                    try (InputStream in = fs.open(file)) {
                        bytes = in.readAllBytes();
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
                }
                M m = maker.make(meta.uid(), TrainedModel.fromJson(bytes, file.toString()));
                meta.getAndSetParams(m, scala.Option.empty());
                return m;
            }
        };
    }
}
