package org.paratrain.export;

import com.google.protobuf.ByteString;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import onnx.Onnx.AttributeProto;
import onnx.Onnx.GraphProto;
import onnx.Onnx.NodeProto;
import onnx.Onnx.TensorProto;
import onnx.Onnx.TensorShapeProto;
import onnx.Onnx.TypeProto;
import onnx.Onnx.ValueInfoProto;

/**
 * An ONNX graph under construction, its real numbers all of one element type (float or
 * double): the one place that touches the classes protoc generates from {@code onnx.proto}, so
 * that each model kind's graph reads as the operators it is made of.
 *
 * <p>Every node gets a fresh output name, which is also its name; constants (weights, biases,
 * shapes) become initialisers, stored little-endian in {@code raw_data} as ONNX specifies.
 * Shapes given here use {@link #BATCH} for the dynamic batch dimension, written as the
 * symbolic dimension {@code N}.
 */
final class OnnxGraph {
    /** The batch dimension in a shape: any number of rows. */
    static final long BATCH = -1;

    private final GraphProto.Builder graph = GraphProto.newBuilder();
    private final TensorProto.DataType real;
    private int names;

    /**
     * @param name    the graph's name
     * @param doubles whether real numbers are doubles (else floats)
     */
    OnnxGraph(String name, boolean doubles) {
        graph.setName(name);
        real = doubles ? TensorProto.DataType.DOUBLE : TensorProto.DataType.FLOAT;
    }

    /** {@return the element type of the graph's real numbers} */
    TensorProto.DataType real() {
        return real;
    }

    /** Declares an input of the graph's real type; {@return its name} */
    String input(String name, long... dims) {
        graph.addInput(valueInfo(name, real, dims));
        return name;
    }

    /** Declares {@code name}, which a node makes, an output of the graph. */
    void output(String name, TensorProto.DataType type, long... dims) {
        graph.addOutput(valueInfo(name, type, dims));
    }

    /** Sets the graph's description. */
    void describe(String text) {
        graph.setDocString(text);
    }

    /** {@return a constant of the graph's real type: {@code values[from, from + size)} row-major as {@code dims}} */
    String constant(String hint, double[] values, int from, long... dims) {
        int n = Math.toIntExact(size(dims));
        boolean doubles = real == TensorProto.DataType.DOUBLE;
        ByteBuffer b = ByteBuffer.allocate(n * (doubles ? Double.BYTES : Float.BYTES)).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < n; i++) {
            if (doubles) {
                b.putDouble(values[from + i]);
            } else {
                b.putFloat((float) values[from + i]);
            }
        }
        return initializer(hint, real, b.array(), dims);
    }

    /** {@return a constant of the graph's real type holding one number, of shape {@code [1]}} */
    String scalar(String hint, double value) {
        return constant(hint, new double[] {value}, 0, 1);
    }

    /** {@return a one-dimensional int64 constant (a shape, or a slice's bounds)} */
    String longs(String hint, long... values) {
        ByteBuffer b = ByteBuffer.allocate(values.length * Long.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        for (long v : values) {
            b.putLong(v);
        }
        return initializer(hint, TensorProto.DataType.INT64, b.array(), values.length);
    }

    private String initializer(String hint, TensorProto.DataType type, byte[] data, long... dims) {
        String name = fresh(hint);
        TensorProto.Builder t = TensorProto.newBuilder().setName(name).setDataType(type.getNumber())
            .setRawData(ByteString.copyFrom(data));
        for (long d : dims) {
            t.addDims(d);
        }
        graph.addInitializer(t);
        return name;
    }

    /** {@return the output of a new node {@code op} over {@code inputs}} */
    String node(String op, List<String> inputs, AttributeProto... attributes) {
        String out = fresh(op.toLowerCase(java.util.Locale.ROOT));
        nodeTo(out, op, inputs, attributes);
        return out;
    }

    /** {@return the output of a new node {@code op} over {@code inputs}} */
    String node(String op, String... inputs) {
        return node(op, List.of(inputs));
    }

    /** Adds a node {@code op} whose output is {@code output} (a graph output's name). */
    void nodeTo(String output, String op, List<String> inputs, AttributeProto... attributes) {
        NodeProto.Builder n = NodeProto.newBuilder().setOpType(op).setName(output).addAllInput(inputs).addOutput(output);
        for (AttributeProto a : attributes) {
            n.addAttribute(a);
        }
        graph.addNode(n);
    }

    /** {@return an integer attribute} */
    static AttributeProto attribute(String name, long value) {
        return AttributeProto.newBuilder().setName(name).setType(AttributeProto.AttributeType.INT).setI(value).build();
    }

    /** {@return a float attribute} */
    static AttributeProto attribute(String name, float value) {
        return AttributeProto.newBuilder().setName(name).setType(AttributeProto.AttributeType.FLOAT).setF(value).build();
    }

    /** {@return an attribute that is a list of integers} */
    static AttributeProto attributes(String name, long... values) {
        AttributeProto.Builder a = AttributeProto.newBuilder().setName(name).setType(AttributeProto.AttributeType.INTS);
        for (long v : values) {
            a.addInts(v);
        }
        return a.build();
    }

    /** {@return the graph as built so far} */
    GraphProto build() {
        return graph.build();
    }

    private String fresh(String hint) {
        return hint + "_" + names++;
    }

    private static long size(long... dims) {
        long n = 1;
        for (long d : dims) {
            n *= d;
        }
        return n;
    }

    private static ValueInfoProto valueInfo(String name, TensorProto.DataType type, long... dims) {
        TensorShapeProto.Builder shape = TensorShapeProto.newBuilder();
        for (long d : dims) {
            shape.addDim(d == BATCH ? TensorShapeProto.Dimension.newBuilder().setDimParam("N")
                : TensorShapeProto.Dimension.newBuilder().setDimValue(d));
        }
        TypeProto.Tensor tensor = TypeProto.Tensor.newBuilder().setElemType(type.getNumber()).setShape(shape).build();
        return ValueInfoProto.newBuilder().setName(name).setType(TypeProto.newBuilder().setTensorType(tensor)).build();
    }
}
