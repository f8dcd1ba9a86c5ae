package org.paratrain.data;

import java.io.BufferedReader;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.paratrain.io.Clip;

/**
 * A text file read line by line as every text reader of paratrain needs it: UTF-8, a
 * byte-order mark at the start dropped (spreadsheet programs write one), bytes that are not
 * UTF-8 reported with their line instead of decoded to something else, and every failure to
 * open or read as one {@link DataFormatException} naming the file.
 *
 * <p>Malformed bytes are decoded to U+FFFD and found per line, rather than making the
 * decoder throw: a decoder reads ahead by kilobytes, so its exception does not say which
 * line held the bad byte.
 */
final class TextLines implements Closeable {
    private static final char BOM = '\uFEFF';
    private static final char REPLACED = '\uFFFD';
    private final Path file;
    private final BufferedReader in;
    private int line;

    private TextLines(Path file, BufferedReader in) {
        this.file = file;
        this.in = in;
    }

    /** Opens {@code file}; a missing file, a directory or a file that may not be read is a one-line error. */
    static TextLines open(Path file) {
        if (Files.isDirectory(file)) {
            throw new DataFormatException(file + ": is a directory, expected a file");
        }
        try {
            return new TextLines(file, new BufferedReader(
                new InputStreamReader(Files.newInputStream(file), StandardCharsets.UTF_8), 1 << 16));
        } catch (IOException e) {
            throw failure(file, e);
        }
    }

    /** The next line without its terminator, or null at the end of the file. */
    String next() {
        String s;
        try {
            s = in.readLine();
        } catch (IOException e) {
            throw failure(file, e);
        }
        if (s == null) {
            return null;
        }
        line++;
        if (line == 1 && !s.isEmpty() && s.charAt(0) == BOM) {
            s = s.substring(1);
        }
        int bad = s.indexOf(REPLACED);
        if (bad >= 0) {
            boolean utf16 = line == 1 && s.startsWith("" + REPLACED + REPLACED);
            throw error(utf16 ? "starts with a UTF-16 byte-order mark; expected UTF-8 text (save it as UTF-8)"
                : "byte " + (bad + 1) + " of the line is not UTF-8 text; expected UTF-8 (is this a binary file?)");
        }
        return s;
    }

    /** The number of the line last returned by {@link #next}, 1-based. */
    int line() {
        return line;
    }

    /** An error about the line last read: {@code file:line: what}. */
    DataFormatException error(String what) {
        return new DataFormatException(file + ":" + line + ": " + what);
    }

    @Override
    public void close() {
        try {
            in.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The error for an {@link IOException} on {@code file}, in words a user can act on. */
    static DataFormatException failure(Path file, IOException e) {
        if (e instanceof NoSuchFileException) {
            return new DataFormatException(file + ": no such file");
        }
        if (e instanceof AccessDeniedException) {
            return new DataFormatException(file + ": permission denied");
        }
        if (Files.isDirectory(file)) {
            return new DataFormatException(file + ": is a directory, expected a file");
        }
        return new DataFormatException(file + ": cannot read: " + Clip.message(e.getMessage()));
    }

    /**
     * The number {@code token} of the line last read; {@code what} names it in the error
     * ("value 3", "label") when it is not a finite number.
     */
    double number(String what, String token) {
        double v;
        try {
            v = parse(token);
        } catch (NumberFormatException e) {
            String t = token.startsWith("-") || token.startsWith("+") ? token.substring(1) : token;
            if (java.util.List.of("nan", "inf", "infinity").contains(t.toLowerCase(java.util.Locale.ROOT))) {
                throw error(what + " is " + Clip.value(token) + ", expected a finite number");
            }
            throw error(what + " is '" + Clip.value(token) + "', expected a number" + (token.contains(",")
                ? " (values are separated by spaces or tabs here; is this a CSV file?)" : ""));
        }
        if (!Double.isFinite(v)) {
            throw error(what + " is " + Clip.value(token) + ", expected a finite number");
        }
        return v;
    }

    /**
     * A number as the text formats write it: decimal, optionally with an exponent. Java's own
     * parser also takes hexadecimal ({@code 0x1p3}) and a type suffix ({@code 2f}, {@code 2d}),
     * which no other tool reads, so a file accepted here would be refused elsewhere.
     *
     * @throws NumberFormatException if {@code token} is not such a number
     */
    static double parse(String token) {
        if (token.isEmpty()) {
            throw new NumberFormatException("empty");
        }
        char last = token.charAt(token.length() - 1);
        if (last == 'd' || last == 'D' || last == 'f' || last == 'F' || token.indexOf('x') >= 0
            || token.indexOf('X') >= 0) {
            throw new NumberFormatException(token);
        }
        return Double.parseDouble(token);
    }
}
