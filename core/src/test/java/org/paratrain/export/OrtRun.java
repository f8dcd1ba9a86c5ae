package org.paratrain.export;

import ai.onnxruntime.NodeInfo;
import ai.onnxruntime.OnnxJavaType;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OnnxValue;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import ai.onnxruntime.TensorInfo;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.util.HashMap;
import java.util.Map;

/**
 * An exported model run by ONNX Runtime, the consumer's own reader: rows in, each output read
 * back as doubles (or longs for {@code label}), with the types and shapes ONNX Runtime reports.
 *
 * @param outputs    each output's values, flat, widened to doubles
 * @param labels     the {@code label} output, or null
 * @param types      each output's element type as ONNX Runtime reports it
 * @param shapes     each output's shape as ONNX Runtime reports it
 * @param inputType  the input's element type
 * @param metadata   the model's {@code metadata_props}
 */
record OrtRun(Map<String, double[]> outputs, long[] labels, Map<String, OnnxJavaType> types,
              Map<String, long[]> shapes, OnnxJavaType inputType, Map<String, String> metadata) {

    /** Runs {@code model} on {@code n} rows of {@code features} values, given as doubles or as floats as it wants. */
    static OrtRun of(byte[] model, double[] rows, int n, int features) throws OrtException {
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        try (OrtSession.SessionOptions options = new OrtSession.SessionOptions();
             OrtSession session = env.createSession(model, options)) {
            NodeInfo in = session.getInputInfo().get("features");
            OnnxJavaType type = ((TensorInfo) in.getInfo()).type;
            long[] shape = {n, features};
            OnnxTensor input;
            if (type == OnnxJavaType.DOUBLE) {
                input = OnnxTensor.createTensor(env, DoubleBuffer.wrap(rows), shape);
            } else {
                float[] f = new float[rows.length];
                for (int i = 0; i < f.length; i++) {
                    f[i] = (float) rows[i];
                }
                input = OnnxTensor.createTensor(env, FloatBuffer.wrap(f), shape);
            }
            Map<String, double[]> outputs = new HashMap<>();
            Map<String, OnnxJavaType> types = new HashMap<>();
            Map<String, long[]> shapes = new HashMap<>();
            long[] labels = null;
            try (input; OrtSession.Result r = session.run(Map.of("features", input))) {
                for (Map.Entry<String, OnnxValue> e : r) {
                    OnnxTensor t = (OnnxTensor) e.getValue();
                    types.put(e.getKey(), t.getInfo().type);
                    shapes.put(e.getKey(), t.getInfo().getShape());
                    switch (t.getInfo().type) {
                        case DOUBLE -> {
                            DoubleBuffer b = t.getDoubleBuffer();
                            double[] v = new double[b.remaining()];
                            b.get(v);
                            outputs.put(e.getKey(), v);
                        }
                        case FLOAT -> {
                            FloatBuffer b = t.getFloatBuffer();
                            double[] v = new double[b.remaining()];
                            for (int i = 0; i < v.length; i++) {
                                v[i] = b.get(i);
                            }
                            outputs.put(e.getKey(), v);
                        }
                        case INT64 -> {
                            java.nio.LongBuffer b = t.getLongBuffer();
                            labels = new long[b.remaining()];
                            b.get(labels);
                        }
                        default -> throw new AssertionError(e.getKey() + " has type " + t.getInfo().type);
                    }
                }
            }
            return new OrtRun(outputs, labels, types, shapes, type, session.getMetadata().getCustomMetadata());
        }
    }
}
