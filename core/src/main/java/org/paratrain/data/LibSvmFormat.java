package org.paratrain.data;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.regex.Pattern;
import org.paratrain.io.Clip;

/**
 * LibSVM and SVMlight files as scikit-learn's {@code load_svmlight_file} reads them:
 * {@code label [qid:N] index:value ...} a line, absent features 0, {@code #} starting a comment
 * (the rest of the line is ignored), blank and comment-only lines skipped, {@code qid} tokens
 * accepted and ignored. Indices are one-based or zero-based: {@link ZeroBased#AUTO} takes a
 * file with no index 0 as one-based, as scikit-learn's {@code zero_based="auto"} does (both
 * kinds occur, and nothing in a file says which it is). The feature count is the largest index
 * seen, or the one the {@link Layout} fixes (an index beyond it is an error naming the line).
 *
 * <p>Strict as the paper's format: errors name file, line and what was expected; NaN and
 * infinities are refused, and so is an index repeated in a row (one value would be lost).
 * Files are read in two passes, so that the features are allocated once, at their size, and
 * only after checking that they fit.
 */
public final class LibSvmFormat {
    /** Compiled once: {@code String.split} with a pattern compiles it again for every line. */
    private static final Pattern WHITESPACE = Pattern.compile("\\s+");

    private LibSvmFormat() { }

    /** Whether indices start at 0 or 1. */
    public enum ZeroBased {
        /** Zero-based if an index 0 occurs in any of the files read together, else one-based. */
        AUTO,
        /** Zero-based: index 0 is the first feature. */
        TRUE,
        /** One-based: index 1 is the first feature, and an index 0 is an error. */
        FALSE;

        /**
         * {@return the value of this name}
         * @param s {@code auto}, {@code true} or {@code false}
         * @throws IllegalArgumentException for any other
         */
        public static ZeroBased parse(String s) {
            for (ZeroBased z : values()) {
                if (z.name().toLowerCase(Locale.ROOT).equals(s)) {
                    return z;
                }
            }
            throw new IllegalArgumentException("--zero-based must be auto, true or false, got '" + Clip.value(s) + "'");
        }
    }

    /**
     * How a file's indices are read.
     *
     * @param zeroBased whether indices start at 0
     * @param features  the feature count rows are padded to, or 0 for the largest index seen
     * @param from      what fixed that count, for the message when an index exceeds it
     *                  ({@code "--n-features 5"}); null with features 0
     */
    public record Layout(ZeroBased zeroBased, int features, String from) {
        /** One-based or zero-based as the file says, as many features as its largest index. */
        public static final Layout DEFAULT = new Layout(ZeroBased.AUTO, 0, null);

        /**
         * {@return this layout with the feature count fixed}
         * @param n    the feature count rows are padded to
         * @param what what fixed it, for the message when an index exceeds it
         */
        public Layout withFeatures(int n, String what) {
            return new Layout(zeroBased, n, what);
        }
    }

    /** What the first pass finds: samples, the smallest and the largest index and the latter's line. */
    private record Scan(int samples, long min, long max, int maxLine) { }

    /**
     * Reads a file.
     *
     * @param file   lines of {@code label [qid:N] index:value ...}
     * @param layout how indices are read and how many features there are
     * @return the samples, absent features 0
     * @throws DataFormatException naming the file and line of a repeated, negative or too large
     *     index, an index 0 in a one-based file, a non-number, or data too large for the heap
     */
    public static Dataset read(Path file, Layout layout) {
        Scan s = scan(file);
        boolean zero = zeroBased(layout.zeroBased(), s);
        long d = features(file, s, zero, layout);
        String what = file + ": " + s.samples() + " samples x " + d + " features (the largest index, at line "
            + s.maxLine() + ")";
        if (s.samples() * d > HeapBudget.MAX_ARRAY) {
            throw new DataFormatException(what + " make " + s.samples() * d + " values, more than one array "
                + "holds (" + HeapBudget.MAX_ARRAY + "); is the index a mistake?");
        }
        HeapBudget.require(8 * (s.samples() * d + s.samples()), what);
        int n = s.samples();
        double[] x = new double[(int) (n * d)];
        double[] y = new double[n];
        try (TextLines in = TextLines.open(file)) {
            int row = 0;
            String[] t;
            while ((t = tokens(in)) != null) {
                y[row] = in.number("label", t[0]);
                for (int k = first(in, t); k < t.length; k++) {
                    long j = index(in, t[k]);
                    if (j == 0 && !zero) {
                        throw in.error("feature index 0 in a one-based file (--zero-based false); expected indices "
                            + "from 1");
                    }
                    x[(int) (row * d + j - (zero ? 0 : 1))] = in.number("feature " + j, t[k].substring(
                        t[k].indexOf(':') + 1));
                }
                row++;
            }
        }
        return new Dataset(x, y, n, (int) d);
    }

    /**
     * Fixes how several files are read together, as scikit-learn's {@code load_svmlight_files}
     * does for a training and a test file: zero-based if an index 0 occurs in any of them (under
     * {@link ZeroBased#AUTO}), and as many features as the largest index of any, so that both
     * have the same features.
     *
     * @param layout the layout asked for
     * @param files  the files, each read once here
     * @return the layout, zero-basedness and feature count decided
     * @throws DataFormatException as {@link #read} does, for an index that does not fit
     */
    public static Layout jointly(Layout layout, Path... files) {
        Scan[] scans = Arrays.stream(files).map(LibSvmFormat::scan).toArray(Scan[]::new);
        long min = Arrays.stream(scans).mapToLong(Scan::min).min().orElse(Long.MAX_VALUE);
        boolean zero = zeroBased(layout.zeroBased(), new Scan(0, min, 0, 0));
        long d = 1;
        String from = layout.from();
        for (int k = 0; k < files.length; k++) {
            long dk = features(files[k], scans[k], zero, layout);
            if (dk > d) {
                d = dk;
                from = layout.features() > 0 ? layout.from() : "the largest index of " + files[k] + " (line "
                    + scans[k].maxLine() + ")";
            }
        }
        return new Layout(zero ? ZeroBased.TRUE : ZeroBased.FALSE, (int) d, from);
    }

    /** Zero-based as asked; under auto, if an index 0 occurs, or no index at all (as scikit-learn decides). */
    private static boolean zeroBased(ZeroBased z, Scan s) {
        return z == ZeroBased.AUTO ? s.min() <= 0 || s.min() == Long.MAX_VALUE : z == ZeroBased.TRUE;
    }

    /** The feature count: the layout's, after checking the largest index fits, or the largest index's. */
    private static long features(Path file, Scan s, boolean zero, Layout layout) {
        long needed = Math.max(1, s.max() < 0 ? 0 : zero ? s.max() + 1 : s.max());
        if (layout.features() > 0 && needed > layout.features()) {
            throw new DataFormatException(file + ":" + s.maxLine() + ": feature index " + s.max() + " is beyond the "
                + (layout.features() == 1 ? "1 feature" : layout.features() + " features") + " of " + layout.from()
                + (zero ? " (indices count from 0 here)" : ""));
        }
        return layout.features() > 0 ? layout.features() : needed;
    }

    /** First pass: samples and the smallest and largest index; refuses bad and repeated indices. */
    private static Scan scan(Path file) {
        try (TextLines in = TextLines.open(file)) {
            int n = 0;
            long min = Long.MAX_VALUE;
            long max = -1;
            int maxLine = 0;
            String[] t;
            while ((t = tokens(in)) != null) {
                n++;
                int from = first(in, t);
                long[] indices = new long[t.length - from];
                for (int k = from; k < t.length; k++) {
                    long j = index(in, t[k]);
                    indices[k - from] = j;
                    min = Math.min(min, j);
                    if (j > max) {
                        max = j;
                        maxLine = in.line();
                    }
                }
                refuseRepeats(in, indices);
            }
            if (n == 0) {
                throw new DataFormatException(file + ": the file holds no samples; expected one 'label index:value "
                    + "...' a line");
            }
            return new Scan(n, min, max, maxLine);
        }
    }

    /** The next line's tokens, its comment cut off; blank and comment-only lines are skipped; null at the end. */
    private static String[] tokens(TextLines in) {
        String line;
        while ((line = in.next()) != null) {
            int hash = line.indexOf('#');
            String[] t = WHITESPACE.split((hash < 0 ? line : line.substring(0, hash)).strip());
            if (!t[0].isEmpty()) {
                return t;
            }
        }
        return null;
    }

    /** The first feature token: after the label, and after a {@code qid:N} (SVMlight's query id) right after it. */
    private static int first(TextLines in, String[] t) {
        if (t.length < 2 || !t[1].startsWith("qid:")) {
            return 1;
        }
        if (!t[1].substring(4).matches("-?\\d{1,18}")) {
            throw in.error("'" + Clip.value(t[1]) + "' is not qid:N with a whole number N");
        }
        return 2;
    }

    /** A feature given twice in one row is a mistake in whatever wrote the file: one value would be lost. */
    private static void refuseRepeats(TextLines in, long[] indices) {
        long[] sorted = indices.clone();
        Arrays.sort(sorted);
        for (int k = 1; k < sorted.length; k++) {
            if (sorted[k] == sorted[k - 1]) {
                throw in.error("feature index " + sorted[k] + " appears more than once in the row");
            }
        }
    }

    private static long index(TextLines in, String token) {
        int colon = token.indexOf(':');
        String digits = token.substring(0, Math.max(0, colon));
        if (colon > 0 && digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
            if (digits.length() > 10 || Long.parseLong(digits) > Integer.MAX_VALUE) {
                throw in.error("feature index " + Clip.value(digits) + " is too large (at most "
                    + Integer.MAX_VALUE + ")");
            }
            return Long.parseLong(digits);
        }
        if (token.startsWith("qid:")) {
            throw in.error("'" + Clip.value(token) + "' comes after a feature; expected qid:N right after the label");
        }
        throw in.error("'" + Clip.value(token) + "' is not index:value with a whole-number index >= 0");
    }
}
