package org.paratrain.cli;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.zip.GZIPOutputStream;
import org.paratrain.cli.BadInput.Case;
import static org.paratrain.cli.BadInput.BIG;
import static org.paratrain.cli.BadInput.CSV;
import static org.paratrain.cli.BadInput.MODEL;
import static org.paratrain.cli.BadInput.X;
import static org.paratrain.cli.BadInput.Y;
import static org.paratrain.cli.BadInput.bad;
import static org.paratrain.cli.BadInput.evaluate;
import static org.paratrain.cli.BadInput.train;
import static org.paratrain.cli.BadInput.rows;
import static org.paratrain.cli.BadInput.tail;

/** The bad files of {@link BadFileInputTest}: the paper's format, CSV and LibSVM, IDX, model files. */
final class BadInputFiles {
    private BadInputFiles() { }


    /** The paper's X.in and y.in, broken in the ways files break. */
    static void paperFiles(List<Case> c) {
        c.add(bad("not a number", 1, "X.in:3", train()).file("X.in", "1 2\n3 4\nabc 5\n" + tail(3)));
        c.add(bad("ragged row", 1, "X.in:2", train()).file("X.in", "1 2\n3\n" + tail(2)));
        c.add(bad("NaN", 1, "X.in:2", train()).file("X.in", "1 2\nNaN 4\n" + tail(2)));
        c.add(bad("inf", 1, "X.in:2", train()).file("X.in", "1 2\n3 -inf\n" + tail(2)));
        c.add(bad("overflowing number", 1, "X.in:1", train()).file("X.in", "1e999 2\n" + tail(1)));
        c.add(bad("blank line inside", 1, "X.in:2", train()).file("X.in", "1 2\n\n3 4\n" + tail(2)));
        c.add(bad("empty file", 1, "X.in", train()).file("X.in", ""));
        c.add(bad("only blank lines", 1, "X.in", train()).file("X.in", "\n \n\t\n"));
        c.add(bad("invalid UTF-8", 1, "X.in:2", train()).file("X.in", concat("1 2\n".getBytes(StandardCharsets.UTF_8),
            new byte[] {(byte) 0xff, (byte) 0xc3, '\n'})));
        c.add(bad("UTF-16", 1, "X.in:1|UTF-16", train()).file("X.in", concat(new byte[] {(byte) 0xff, (byte) 0xfe},
            "1 2\n".getBytes(StandardCharsets.UTF_16LE))));
        c.add(bad("binary file", 1, "X.in:1", train()).file("X.in", new byte[] {0, 1, 2, (byte) 0x80, 10}));
        c.add(bad("directory as a file", 1, "sub|directory", "train", "--x", "@sub", "--y", "@y.in"));
        c.add(bad("missing file", 1, "nope.in|no such file", "train", "--x", "@nope.in", "--y", "@y.in"));
        c.add(bad("missing test file", 1, "nope.in|no such file", train("--test-data", "@X.in", "--test-labels",
            "@nope.in")));
        c.add(bad("fewer targets", 1, "y.in", train()).file("y.in", "1\n2\n"));
        c.add(bad("two targets a line", 1, "y.in:1", train()).file("y.in", "1 2\n" + Y));
        c.add(bad("value of 5 MB", 1, "X.in:1", train()).file("X.in", BIG + "x 2\n" + tail(1)));
        c.add(bad("float suffix", 1, "X.in:1", train()).file("X.in", "2f 1\n" + tail(1)));
        c.add(bad("hexadecimal", 1, "X.in:1", train()).file("X.in", "0x1p3 1\n" + tail(1)));
        c.add(bad("commas in the paper format", 1, "X.in:1|CSV", train()).file("X.in", "1,2\n" + tail(1)));
        c.add(bad("test data of other features", 1, "X3.in|features", train("--test-data", "@X3.in",
            "--test-labels", "@y.in")).file("X3.in", rows(i -> "1 2 3")));
        c.add(bad("stray label makes a million classes", 1, "labels.in|--classes", train("--model", "softmax", "--y",
            "@labels.in")).file("labels.in", "0\n1\n1000000\n" + rows(i -> "0").substring(6)));
        c.add(bad("predict on a ragged file", 1, "X.in:2", "predict", "--model-file", "@model.json", "--x", "@X.in",
            "--out", "@p.txt").file("X.in", "1 2\n3\n"));
        c.add(bad("NUL inside a number", 1, "X.in:2", train()).file("X.in", "1 2\n3\u00004\n" + tail(2)));
        c.add(bad("labels of one class", 1, "labels.in|two classes", train("--model", "logistic", "--y",
            "@labels.in")).file("labels.in", rows(i -> "1")));
        c.add(bad("label not a class", 1, "labels.in", train("--model", "logistic", "--y", "@labels.in"))
            .file("labels.in", "0\n1\n3\n" + rows(i -> "0").substring(6)));
    }

    /** CSV and LibSVM files. */
    static void tableFiles(List<Case> c) {
        String[] csv = {"train", "--format", "csv", "--x", "@d.csv", "--epochs", "3", "--lr", "0.01"};
        String[] svm = {"train", "--format", "libsvm", "--x", "@d.svm", "--epochs", "3", "--lr", "0.01"};
        c.add(bad("csv ragged", 1, "d.csv:3", csv).file("d.csv", "a,b,y\n1,2,0\n3,4\n"));
        c.add(bad("csv cell of 5 MB", 1, "d.csv:2", csv).file("d.csv", "a,b,y\n1," + BIG + "z,0\n"));
        c.add(bad("csv header of one column", 1, "d.csv:1", csv).file("d.csv", "a;b;y\n1;2;0\n"));
        c.add(bad("csv header only", 1, "d.csv", csv).file("d.csv", "a,b,y\n"));
        c.add(bad("csv header missing", 1, "d.csv:1|header", csv).file("d.csv", "1,2,0\n3,4,1\n"));
        c.add(bad("csv empty", 1, "d.csv", csv).file("d.csv", ""));
        c.add(bad("csv unknown label column", 1, "d.csv|zzz", BadInput.concat(csv, "--label", "zzz")));
        c.add(bad("csv NaN", 1, "d.csv:2", csv).file("d.csv", "a,b,y\nnan,2,0\n"));
        c.add(bad("csv empty cell", 1, "d.csv:2", csv).file("d.csv", "a,b,y\n,2,0\n"));
        c.add(bad("csv invalid UTF-8", 1, "d.csv:2", csv).file("d.csv", concat("a,b,y\n".getBytes(
            StandardCharsets.UTF_8), new byte[] {'1', ',', (byte) 0xe9, ',', '0', '\n'})));
        c.add(bad("csv --no-header with a label name", 1, "d.csv|--no-header|index", BadInput.concat(csv,
            "--no-header", "--label", "y")).file("d.csv", "1,2,0\n3,4,1\n"));
        c.add(bad("csv NUL inside a number", 1, "d.csv:2", csv).file("d.csv", "a,b,y\n1\u00002,3,0\n3,4,1\n"));
        c.add(bad("csv labels of one class", 1, "d.csv|two classes", BadInput.concat(csv, "--model", "logistic"))
            .file("d.csv", "a,b,y\n1,2,1\n3,4,1\n5,6,1\n"));
        String[] weighted = BadInput.concat(csv, "--sample-weight", "w");
        c.add(bad("csv sample weight column unknown", 1, "d.csv|sample weight column 'w'", weighted));
        c.add(bad("csv sample weight negative", 1, "d.csv:3|'-1'|at least 0", weighted).file("d.csv",
            "a,w,y\n1,2,0\n3,-1,1\n"));
        c.add(bad("csv sample weight not a number", 1, "d.csv:2|'x'", weighted).file("d.csv", "a,w,y\n1,x,0\n"));
        c.add(bad("csv sample weights all zero", 1, "d.csv|is 0", weighted).file("d.csv", "a,w,y\n1,0,0\n2,0,1\n"));
        c.add(bad("csv sample weight is the label", 1, "d.csv|label column", BadInput.concat(csv,
            "--sample-weight", "y")));
        c.add(bad("csv sample weight also a feature", 1, "d.csv|sample weights", BadInput.concat(csv,
            "--sample-weight", "b", "--features", "a,b")));
        c.add(bad("sample weight with libsvm", 2, "--sample-weight|libsvm", BadInput.concat(svm,
            "--sample-weight", "1")));
        c.add(bad("sample weight with the paper's format", 2, "--sample-weight|paper", BadInput.train(
            "--sample-weight", "1")));
        c.add(bad("libsvm repeated index", 1, "d.svm:2|index 3", svm).file("d.svm", "1 1:2\n0 3:1 2:4 3:5\n"));
        c.add(bad("libsvm index 0 when one-based", 1, "d.svm:1|one-based", BadInput.concat(svm, "--zero-based",
            "false")).file("d.svm", "1 0:2\n"));
        c.add(bad("libsvm negative index", 1, "d.svm:2|index", svm).file("d.svm", "1 1:2\n0 -1:1\n"));
        c.add(bad("libsvm index beyond --n-features", 1, "d.svm:1|--n-features 1", BadInput.concat(svm,
            "--n-features", "1")));
        c.add(bad("libsvm qid not a number", 1, "d.svm:2|qid", svm).file("d.svm", "1 qid:1 1:2\n0 qid:b 1:1\n"));
        c.add(bad("libsvm qid after a feature", 1, "d.svm:1|qid", svm).file("d.svm", "1 1:2 qid:1\n"));
        c.add(bad("libsvm only comments", 1, "d.svm|no samples", svm).file("d.svm", "# one\n\n# two\n"));
        c.add(bad("libsvm evaluate beyond the model", 1, "d.svm:2|model.json", "evaluate", "--model-file",
            "@model.json", "--x", "@d.svm").file("d.svm", "1 1:2\n0 3:1\n"));
        c.add(bad("libsvm test file beyond --n-features", 1, "t.svm:1|--n-features 2", BadInput.concat(svm,
            "--n-features", "2", "--test-data", "@t.svm")).file("t.svm", "1 5:1\n"));
        c.add(bad("libsvm index past int", 1, "d.svm:2|too large", svm).file("d.svm", "1 1:2\n0 99999999999:1\n"));
        c.add(bad("libsvm n x d overflows", 1, "d.svm", svm).file("d.svm", "1 2147483647:2\n0 1:1\n"));
        c.add(bad("libsvm beyond the heap", 1, "d.svm|PARATRAIN_JAVA_OPTS=-Xmx", svm).file("d.svm",
            "1 1000000000:2\n"));
        c.add(bad("libsvm label NaN", 1, "d.svm:1", svm).file("d.svm", "NaN 1:2\n"));
        c.add(bad("libsvm not index:value", 1, "d.svm:1", svm).file("d.svm", "1 abc\n"));
        c.add(bad("libsvm empty", 1, "d.svm", svm).file("d.svm", "\n\n"));
    }

    /** IDX images and labels with headers that lie. */
    static void idxFiles(List<Case> c) {
        String[] idx = {"train", "--format", "idx", "--x", "@img", "--y", "@lab", "--model", "softmax", "--classes",
            "10", "--epochs", "2", "--lr", "0.01"};
        c.add(bad("idx dimension 0", 1, "img", idx).file("img", idx(new int[] {4, 0, 2}, new byte[0])));
        c.add(bad("idx negative dimensions", 1, "img", idx).file("img", idx(new int[] {4, -1, -2}, new byte[8])));
        c.add(bad("idx dimensions overflow", 1, "img", idx).file("img", idx(new int[] {65536, 65536, 65536, 65536},
            new byte[0])));
        c.add(bad("idx trailing bytes", 1, "img|bytes after", idx).file("img", idx(new int[] {4, 2, 2},
            new byte[20])));
        c.add(bad("idx truncated", 1, "img|ends before", idx).file("img", idx(new int[] {4, 2, 2}, new byte[10])));
        c.add(bad("idx truncated gzip", 1, "img", idx).file("img", Arrays.copyOf(gzip(idx(new int[] {4, 2, 2},
            new byte[16])), 20)));
        c.add(bad("idx header too short", 1, "img", idx).file("img", new byte[] {0, 0}));
        c.add(bad("idx wrong magic", 1, "img|magic", idx).file("img", "not an idx file"));
        c.add(bad("idx count mismatch", 1, "img|lab", idx).file("lab", idx(new int[] {3}, new byte[3])));
        c.add(bad("idx labels of 2 dimensions", 1, "lab", idx).file("lab", idx(new int[] {4, 1}, new byte[4])));
    }

    /** model.json damaged or edited by hand. */
    static void modelFiles(List<Case> c) {
        c.add(bad("model param NaN", 1, "model.json|params", evaluate()).file("model.json",
            MODEL.replace("[1.0, 2.0]", "[\"NaN\", 2.0]")));
        c.add(bad("model param abc", 1, "model.json|params", evaluate()).file("model.json",
            MODEL.replace("[1.0, 2.0]", "[\"abc\", 2.0]")));
        c.add(bad("model kind unknown", 1, "model.json|forest", evaluate()).file("model.json",
            MODEL.replace("\"linear\"", "\"forest\"")));
        c.add(bad("model field missing", 1, "model.json|features", evaluate()).file("model.json",
            MODEL.replace("\"features\": 2,", "")));
        c.add(bad("model malformed JSON", 1, "model.json:", evaluate()).file("model.json", MODEL.substring(0, 60)));
        c.add(bad("model parameter count", 1, "model.json", evaluate()).file("model.json",
            MODEL.replace("[1.0, 2.0]", "[1.0, 2.0, 3.0]")));
        c.add(bad("model empty", 1, "model.json", evaluate()).file("model.json", ""));
        c.add(bad("model not a model", 1, "model.json", evaluate()).file("model.json", "[1, 2, 3]"));
        // A cnn file: 1x2x1 images, conv:1:1 (2 parameters) and a head of 2 classes over 2 values (6).
        String cnn = MODEL.replace("\"linear\"", "\"cnn\"").replace("\"classes\": 0", "\"classes\": 2, \"layers\": "
            + "\"conv:1:1\", \"image_shape\": \"1x2x1\"").replace("[1.0, 2.0]", "[1, 2, 3, 4, 5, 6, 7, 8]");
        c.add(bad("cnn model image shape not the features", 1, "model.json|image_shape|2 features",
            evaluate("--y", "@labels.in")).file("model.json", cnn.replace("1x2x1", "2x2x1")));
        c.add(bad("cnn model layers too large", 1, "model.json|layers|conv:1:3", evaluate("--y", "@labels.in"))
            .file("model.json", cnn.replace("conv:1:1", "conv:1:3")));
        c.add(bad("cnn model layers damaged", 1, "model.json|layers", evaluate("--y", "@labels.in"))
            .file("model.json", cnn.replace("conv:1:1", "conv:x")));
        c.add(bad("cnn model of too many parameters", 1, "model.json|layers", evaluate("--y", "@labels.in"))
            .file("model.json", cnn.replace("conv:1:1", "dense:65536,dense:65536")));
        c.add(bad("model is a directory", 1, "sub|directory", "evaluate", "--model-file", "@sub", "--x", "@X.in",
            "--y", "@y.in"));
        c.add(bad("evaluate wrong features", 1, "X3.in|features", evaluate("--x", "@X3.in")).file("X3.in",
            rows(i -> "1 2 3")));
        c.add(bad("evaluate labels out of range", 1, "labels.in", evaluate("--y", "@labels.in")).file("model.json",
            MODEL.replace("\"linear\"", "\"logistic\"").replace("\"classes\": 0", "\"classes\": 2"))
            .file("labels.in", "0\n1\n7\n" + rows(i -> "0").substring(6)));
        c.add(bad("plan machine file malformed", 1, "m.json", "plan", "--samples", "10", "--features", "1",
            "--machine", "@m.json", "--out", "@plan").file("m.json", "{\"alpha_seconds\": "));
    }

    static byte[] idx(int[] dims, byte[] values) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeInt(0x00000800 | dims.length);
            for (int d : dims) {
                out.writeInt(d);
            }
            out.write(values);
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static byte[] gzip(byte[] data) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (GZIPOutputStream out = new GZIPOutputStream(bytes)) {
                out.write(data);
            }
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] r = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }
}
