package org.paratrain.cli;

import static org.paratrain.cli.BadInput.MODEL;
import static org.paratrain.cli.BadInput.bad;
import static org.paratrain.cli.BadInput.train;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.paratrain.cli.BadInput.Case;

/**
 * The cases for safetensors: {@link BadFileInputTest}'s files that {@code train --init-from} must
 * refuse (made here byte by byte, not by paratrain's writer), each in one line naming the file and
 * the tensor, and {@link BadOptionInputTest}'s {@code export --format safetensors} outputs it must
 * not write. The run they start is the good one's linear regression of 2 features without
 * intercept, whose one tensor is {@code 0.weight [1, 2]}.
 */
final class BadInputSafetensors {
    private BadInputSafetensors() { }

    /** The tensor the good run needs, as its header entry. */
    private static final String WEIGHT = "\"0.weight\":{\"dtype\":\"F64\",\"shape\":[1,2],\"data_offsets\":[0,16]}";

    static void initFiles(List<Case> c) {
        c.add(bad("init-from missing", 1, "none.safetensors|no such file", init("none.safetensors")));
        c.add(bad("init-from a directory", 1, "sub|directory", init("sub")));
        c.add(bad("init-from the model file --out would replace", 2, "--out|model.json|inputs", train("--init-from",
            "@model.json", "--out", "@.")));
        c.add(bad("init-from shape", 1, "w.safetensors|0.weight|[1, 3]|[1, 2]", init("w.safetensors"))
            .file("w.safetensors", file("{\"0.weight\":{\"dtype\":\"F64\",\"shape\":[1,3],\"data_offsets\":[0,24]}}",
                f64(1, 2, 3))));
        c.add(bad("init-from missing tensor", 1, "w.safetensors|no tensor 0.weight|[1, 2]", init("w.safetensors"))
            .file("w.safetensors", file("{\"1.weight\":{\"dtype\":\"F64\",\"shape\":[1,2],\"data_offsets\":[0,16]}}",
                f64(1, 2))));
        c.add(bad("init-from extra tensor", 1, "w.safetensors|0.bias|not one of", init("w.safetensors"))
            .file("w.safetensors", file("{" + WEIGHT + ",\"0.bias\":{\"dtype\":\"F64\",\"shape\":[1],"
                + "\"data_offsets\":[16,24]}}", f64(1, 2, 3))));
        c.add(bad("init-from integer tensor", 1, "w.safetensors|0.weight|I64|F64 or F32", init("w.safetensors"))
            .file("w.safetensors", file("{" + WEIGHT.replace("F64", "I64") + "}", f64(1, 2))));
        c.add(bad("init-from unknown dtype", 1, "w.safetensors|0.weight|Q7", init("w.safetensors"))
            .file("w.safetensors", file("{" + WEIGHT.replace("F64", "Q7") + "}", f64(1, 2))));
        c.add(bad("init-from NaN", 1, "w.safetensors|0.weight|NaN|[0, 1]", init("w.safetensors"))
            .file("w.safetensors", file("{" + WEIGHT + "}", f64(1, Double.NaN))));
        c.add(bad("init-from infinity in F32", 1, "w.safetensors|0.weight|Infinity", init("w.safetensors"))
            .file("w.safetensors", file("{" + WEIGHT.replace("F64", "F32").replace("16]", "8]") + "}",
                f32(Float.POSITIVE_INFINITY, 2))));
        c.add(bad("init-from truncated", 1, "w.safetensors|0.weight|outside the data|truncated", init("w.safetensors"))
            .file("w.safetensors", file("{" + WEIGHT + "}", f64(1))));
        c.add(bad("init-from header length beyond the file", 1, "w.safetensors|header length|beyond the file",
            init("w.safetensors")).file("w.safetensors", ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN)
            .putLong(1 << 20).put("{}      ".getBytes(StandardCharsets.US_ASCII)).array()));
        c.add(bad("init-from header length negative", 1, "w.safetensors|header length 18446744073709551615",
            init("w.safetensors")).file("w.safetensors", ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN)
            .putLong(-1).array()));
        c.add(bad("init-from too short", 1, "w.safetensors|3 bytes|too short", init("w.safetensors"))
            .file("w.safetensors", new byte[3]));
        c.add(bad("init-from header not JSON", 1, "w.safetensors|not JSON", init("w.safetensors"))
            .file("w.safetensors", file("{\"0.weight\": [", f64(1, 2))));
        c.add(bad("init-from key twice", 1, "w.safetensors|not JSON|0.weight", init("w.safetensors"))
            .file("w.safetensors", file("{" + WEIGHT + "," + WEIGHT + "}", f64(1, 2))));
        c.add(bad("init-from overlapping tensors", 1, "w.safetensors|0.weight|1.weight|overlap", init("w.safetensors"))
            .file("w.safetensors", file("{" + WEIGHT + "," + WEIGHT.replace("0.weight", "1.weight")
                .replace("[0,16]", "[8,24]") + "}", f64(1, 2, 3))));
        c.add(bad("init-from offsets of the wrong length", 1, "w.safetensors|0.weight|hold 8 bytes|needs 16",
            init("w.safetensors")).file("w.safetensors", file("{" + WEIGHT.replace("[0,16]", "[0,8]") + "}", f64(1))));
        c.add(bad("init-from a gap in the data", 1, "w.safetensors|bytes [0, 8)|no tensor", init("w.safetensors"))
            .file("w.safetensors", file("{" + WEIGHT.replace("[0,16]", "[8,24]") + "}", f64(0, 1, 2))));
        c.add(bad("init-from bytes after the data", 1, "w.safetensors|8 bytes after", init("w.safetensors"))
            .file("w.safetensors", file("{" + WEIGHT + "}", f64(1, 2, 3))));
        c.add(bad("init-from metadata not strings", 1, "w.safetensors|__metadata__|n", init("w.safetensors"))
            .file("w.safetensors", file("{\"__metadata__\":{\"n\":3}," + WEIGHT + "}", f64(1, 2))));
        c.add(bad("init-from a model.json of another shape", 1, "other.json|0.weight|[1, 3]|[1, 2]",
            init("other.json")).file("other.json", MODEL.replace("\"features\": 2", "\"features\": 3")
            .replace("[1.0, 2.0]", "[1.0, 2.0, 3.0]")));
        c.add(bad("init-from a damaged model.json", 1, "other.json|params", init("other.json")).file("other.json",
            MODEL.replace("[1.0, 2.0]", "[\"NaN\", 2.0]")));
    }

    static String[] export(String... extra) {
        return BadInput.with(new String[] {"export", "--model-file", "@model.json", "--format", "safetensors",
            "--out", "@model.safetensors"}, extra);
    }

    /** export --format safetensors: the outputs it must not write, as for ONNX. */
    static void exports(List<Case> c) {
        c.add(bad("safetensors out is the model file", 2, "--out|inputs", export("--out", "@model.json")));
        c.add(bad("safetensors out is a directory", 2, "--out|directory", export("--out", "@sub")));
        c.add(bad("safetensors out is standard output", 2, "--out -|file name", export("--out", "-")));
        c.add(bad("safetensors precision unknown", 2, "--precision|bf16", export("--precision", "bf16")));
        c.add(bad("safetensors model missing", 1, "none.json|no such file", export("--model-file", "@none.json")));
    }

    private static String[] init(String file) {
        return train("--init-from", "@" + file);
    }

    /** A safetensors file: the header's length, the header (unpadded: the format does not require it), the data. */
    private static byte[] file(String header, byte[] data) {
        byte[] h = header.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(8 + h.length + data.length).order(ByteOrder.LITTLE_ENDIAN).putLong(h.length).put(h)
            .put(data).array();
    }

    private static byte[] f64(double... v) {
        ByteBuffer b = ByteBuffer.allocate(8 * v.length).order(ByteOrder.LITTLE_ENDIAN);
        for (double d : v) {
            b.putDouble(d);
        }
        return b.array();
    }

    private static byte[] f32(float... v) {
        ByteBuffer b = ByteBuffer.allocate(4 * v.length).order(ByteOrder.LITTLE_ENDIAN);
        for (float f : v) {
            b.putFloat(f);
        }
        return b.array();
    }
}
