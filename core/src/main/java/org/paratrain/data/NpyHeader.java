package org.paratrain.data;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.paratrain.io.Clip;

/**
 * The header of a NumPy {@code .npy} array, versions 1.0, 2.0 and 3.0 as
 * {@code numpy.lib.format} writes them: the magic {@code \x93NUMPY}, a major and a minor
 * version byte, the length of the header text (2 bytes little-endian in 1.0, 4 in 2.0 and
 * 3.0), then the text: a Python dict literal such as
 * {@code {'descr': '<f8', 'fortran_order': False, 'shape': (3, 2), }}, padded with spaces to
 * a multiple of 64 bytes and ended by a newline (latin-1 in 1.0 and 2.0, UTF-8 in 3.0).
 *
 * <p>The literal is parsed here, not evaluated: only strings, True/False, whole numbers (with
 * the {@code L} Python 2 wrote after them), tuples, lists and dicts are understood, which is
 * all numpy writes, and numpy's own rule is kept that the dict has exactly those three keys.
 *
 * @param dtype   the element type
 * @param fortran whether the elements are in column-major (Fortran) order
 * @param shape   the array's dimensions, each at least 0
 * @param bytes   the length of the header, magic included: where the elements start
 */
record NpyHeader(Dtype dtype, boolean fortran, long[] shape, long bytes) {
    private static final byte[] MAGIC = {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y'};
    /** numpy refuses headers over 10,000 characters by default; this leaves room for any honest one. */
    private static final int LONGEST = 1 << 20;
    private static final Pattern DESCR = Pattern.compile("([<>|=]?)([a-zA-Z])(\\d*)");

    /** What the elements are. */
    enum Kind { FLOAT, SIGNED, UNSIGNED, BOOL }

    /**
     * An element type that can be read as numbers.
     *
     * @param kind  float, signed or unsigned integer, or bool
     * @param size  bytes an element
     * @param order the byte order of elements wider than a byte
     * @param descr numpy's name for it, such as {@code >f4}, for messages
     */
    record Dtype(Kind kind, int size, ByteOrder order, String descr) { }

    /**
     * Reads the header from the start of {@code in}, leaving it at the first element.
     *
     * @param in    the array's bytes
     * @param where the file (and array) for messages, e.g. {@code X.npy}
     * @return the header
     * @throws DataFormatException naming {@code where}, if this is not a .npy header of numbers
     */
    static NpyHeader read(InputStream in, String where) throws IOException {
        byte[] start = bytes(in, 8, where);
        for (int i = 0; i < MAGIC.length; i++) {
            if (start[i] != MAGIC[i]) {
                throw new DataFormatException(where + ": not a NumPy .npy array (it does not start with \\x93NUMPY); "
                    + "expected a file written by numpy.save");
            }
        }
        int major = start[6] & 0xff;
        if (major < 1 || major > 3) {
            throw new DataFormatException(where + ": .npy format version " + major + "." + (start[7] & 0xff)
                + "; expected 1.0, 2.0 or 3.0");
        }
        byte[] len = bytes(in, major == 1 ? 2 : 4, where);
        long length = 0;
        for (int i = len.length - 1; i >= 0; i--) {
            length = length << 8 | (len[i] & 0xff);
        }
        if (length > LONGEST) {
            throw new DataFormatException(where + ": announces a header of " + length + " bytes; expected at most "
                + LONGEST + " (is the file damaged?)");
        }
        String text = new String(bytes(in, (int) length, where), major == 3 ? StandardCharsets.UTF_8
            : StandardCharsets.ISO_8859_1);
        return parse(text, where, 8 + len.length + length);
    }

    private static byte[] bytes(InputStream in, int n, String where) throws IOException {
        byte[] b = in.readNBytes(n);
        if (b.length < n) {
            throw new DataFormatException(where + ": ends inside its .npy header (" + b.length + " of " + n
                + " bytes read); is the file cut short?");
        }
        return b;
    }

    private static NpyHeader parse(String text, String where, long bytes) {
        Object value;
        try {
            Literal p = new Literal(text);
            value = p.value();
            p.end();
        } catch (IllegalArgumentException e) {
            throw new DataFormatException(where + ": the .npy header is not a Python dict literal (" + e.getMessage()
                + "): " + Clip.value(text.strip()));
        }
        if (!(value instanceof Map<?, ?> d) || !d.keySet().equals(Set.of("descr", "fortran_order", "shape"))) {
            throw new DataFormatException(where + ": the .npy header " + Clip.value(text.strip()) + " is not a dict "
                + "of exactly 'descr', 'fortran_order' and 'shape'");
        }
        if (!(d.get("fortran_order") instanceof Boolean fortran)) {
            throw new DataFormatException(where + ": the .npy header's fortran_order is "
                + Clip.value(String.valueOf(d.get("fortran_order"))) + ", expected True or False");
        }
        if (!(d.get("shape") instanceof List<?> dims) || !dims.stream().allMatch(v -> v instanceof Long l && l >= 0)) {
            throw new DataFormatException(where + ": the .npy header's shape is " + Clip.value(String.valueOf(
                d.get("shape"))) + ", expected a tuple of whole numbers");
        }
        long[] shape = dims.stream().mapToLong(v -> (Long) v).toArray();
        return new NpyHeader(dtype(d.get("descr"), where), fortran, shape, bytes);
    }

    /** The element type of a descr string; what cannot be read as numbers is refused by what it is. */
    private static Dtype dtype(Object descr, String where) {
        if (!(descr instanceof String s)) {
            throw new DataFormatException(where + ": a structured array (dtype " + Clip.value(String.valueOf(descr))
                + "); expected an array of one number type, such as float64");
        }
        Matcher m = DESCR.matcher(s);
        String refusal = m.matches() ? refusal(m.group(2).charAt(0)) : null;
        if (refusal != null) {
            throw new DataFormatException(where + ": holds " + refusal + " (dtype '" + Clip.value(s) + "'); expected "
                + "numbers: floats, integers or bools");
        }
        int size = m.matches() && !m.group(3).isEmpty() && m.group(3).length() < 3 ? Integer.parseInt(m.group(3)) : 0;
        Kind kind = !m.matches() ? null : switch (m.group(2)) {
            case "f" -> size == 2 || size == 4 || size == 8 ? Kind.FLOAT : null;
            case "i" -> size == 1 || size == 2 || size == 4 || size == 8 ? Kind.SIGNED : null;
            case "u" -> size == 1 || size == 2 || size == 4 || size == 8 ? Kind.UNSIGNED : null;
            case "b" -> size == 1 ? Kind.BOOL : null;
            default -> null;
        };
        String order = kind == null ? "" : m.group(1);
        if (kind == null || order.equals("=") || size > 1 && !order.equals("<") && !order.equals(">")) {
            throw new DataFormatException(where + ": dtype '" + Clip.value(s) + "' is not one read here; expected "
                + "float16/32/64, int or uint of 1, 2, 4 or 8 bytes, or bool, in either byte order ('<' or '>')");
        }
        return new Dtype(kind, size, order.equals(">") ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN, s);
    }

    /** What a dtype letter that is not a number holds, or null for the number letters. */
    private static String refusal(char letter) {
        return switch (letter) {
            case 'O' -> "Python objects";
            case 'U', 'S', 'a' -> "strings";
            case 'c' -> "complex numbers";
            case 'M', 'm' -> "dates or times";
            case 'V' -> "raw bytes";
            default -> null;
        };
    }

    /** {@return the shape as numpy prints it, e.g. {@code (3, 2)} or {@code (5,)}} */
    String shapeText() {
        StringBuilder sb = new StringBuilder("(");
        for (int i = 0; i < shape.length; i++) {
            sb.append(i == 0 ? "" : ", ").append(shape[i]);
        }
        return sb.append(shape.length == 1 ? ",)" : ")").toString();
    }

    /** A recursive-descent parser of the Python literals a .npy header holds. */
    private static final class Literal {
        private final String s;
        private int at;

        Literal(String s) {
            this.s = s;
        }

        Object value() {
            char c = peek();
            at++;
            return switch (c) {
                case '{' -> dict();
                case '(' -> items(')');
                case '[' -> items(']');
                case '\'', '"' -> string(c);
                default -> {
                    at--;
                    yield word();
                }
            };
        }

        private Map<Object, Object> dict() {
            Map<Object, Object> m = new LinkedHashMap<>();
            while (peek() != '}') {
                Object key = value();
                expect(':');
                m.put(key, value());
                if (peek() != '}') {
                    expect(',');
                }
            }
            at++;
            return m;
        }

        private List<Object> items(char close) {
            List<Object> l = new ArrayList<>();
            while (peek() != close) {
                l.add(value());
                if (peek() != close) {
                    expect(',');
                }
            }
            at++;
            return l;
        }

        private String string(char quote) {
            int end = s.indexOf(quote, at);
            if (end < 0) {
                throw new IllegalArgumentException("a string is not closed");
            }
            String v = s.substring(at, end);
            at = end + 1;
            return v;
        }

        private Object word() {
            int from = at;
            while (at < s.length() && (Character.isLetterOrDigit(s.charAt(at)) || s.charAt(at) == '-')) {
                at++;
            }
            String w = s.substring(from, at);
            if (w.equals("True") || w.equals("False")) {
                return w.equals("True");
            }
            if (w.equals("None")) {
                return "None";
            }
            String digits = w.endsWith("L") ? w.substring(0, w.length() - 1) : w;
            if (!digits.isEmpty() && digits.matches("-?\\d+")) {
                try {
                    return Long.parseLong(digits);
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException(Clip.value(w) + " is too large a number");
                }
            }
            throw new IllegalArgumentException(w.isEmpty() ? "unexpected '" + s.charAt(at) + "'"
                : "unexpected '" + Clip.value(w) + "'");
        }

        private void expect(char c) {
            if (peek() != c) {
                throw new IllegalArgumentException("expected '" + c + "'");
            }
            at++;
        }

        /** The next character that is not blank; the end of the text is an error. */
        private char peek() {
            while (at < s.length() && Character.isWhitespace(s.charAt(at))) {
                at++;
            }
            if (at == s.length()) {
                throw new IllegalArgumentException("it ends early");
            }
            return s.charAt(at);
        }

        void end() {
            while (at < s.length() && Character.isWhitespace(s.charAt(at))) {
                at++;
            }
            if (at < s.length()) {
                throw new IllegalArgumentException("text after the dict");
            }
        }
    }
}
