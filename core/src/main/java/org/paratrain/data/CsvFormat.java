package org.paratrain.data;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;
import org.paratrain.io.Clip;

/**
 * CSV as pandas, R, spreadsheets and Python's csv module write it, parsed by Apache Commons
 * CSV (RFC 4180 quoting: quoted fields, embedded delimiters, doubled quotes and line breaks,
 * a quoted header), with a delimiter of choice and an optional header. Strict as the other
 * readers: every error names the file and the line, and for a value also its column.
 *
 * <p>Labels are kept as text here, since whether "3" is a class index, a class name or a
 * target depends on the model; {@link CsvTable} turns them into numbers.
 */
public final class CsvFormat {
    /** Missing-value markers of pandas, R and spreadsheets: refused by name rather than read as numbers. */
    private static final List<String> MISSING = List.of("", "na", "n/a", "nan", "null", "none", "?");

    private CsvFormat() { }

    /**
     * How a CSV file is laid out.
     *
     * @param label     the label column: a header name, or a 0-based index; null for the last
     * @param delimiter the field separator
     * @param header    whether the first record names the columns
     * @param labelled  whether a column holds labels (false: every column is a feature)
     * @param keep      the feature columns to read, by header name (or 0-based index without a header), in
     *                  this order; other columns are ignored. Null: every column but the label and those dropped
     * @param drop      columns to leave out, by name or index, when {@code keep} is null; empty for none
     * @param weight    the column of the sample weights, by name or index; null when the samples weigh 1
     */
    public record Layout(String label, char delimiter, boolean header, boolean labelled, List<String> keep,
                         List<String> drop, String weight) {
        /** Copies the lists. */
        public Layout {
            keep = keep == null ? null : List.copyOf(keep);
            drop = drop == null ? List.of() : List.copyOf(drop);
        }

        /**
         * Samples that weigh 1.
         *
         * @param label     the label column, or null for the last
         * @param delimiter the field separator
         * @param header    whether the first record names the columns
         * @param labelled  whether a column holds labels
         * @param keep      the feature columns to read, or null for every column but the label and those dropped
         * @param drop      columns to leave out when {@code keep} is null
         */
        public Layout(String label, char delimiter, boolean header, boolean labelled, List<String> keep,
                      List<String> drop) {
            this(label, delimiter, header, labelled, keep, drop, null);
        }

        /**
         * Every column a feature but the label.
         *
         * @param label     the label column, or null for the last
         * @param delimiter the field separator
         * @param header    whether the first record names the columns
         * @param labelled  whether a column holds labels
         */
        public Layout(String label, char delimiter, boolean header, boolean labelled) {
            this(label, delimiter, header, labelled, null, List.of());
        }

        /** Commas, a header line, the label last. */
        static Layout standard() {
            return new Layout(null, ',', true, true);
        }

        /** {@return the same layout without a label column, for files of features only} */
        public Layout unlabelled() {
            return new Layout(null, delimiter, header, false, keep, drop, null);
        }

        /**
         * {@return this layout reading these columns only, in this order}
         * @param names the feature columns, by header name
         */
        public Layout keeping(List<String> names) {
            return new Layout(label, delimiter, header, labelled, names, List.of(), weight);
        }

        /**
         * {@return this layout leaving these columns out}
         * @param names columns by name or 0-based index
         */
        public Layout dropping(List<String> names) {
            return new Layout(label, delimiter, header, labelled, keep, names, weight);
        }

        /**
         * {@return this layout with another label column}
         * @param column the label column, by name or 0-based index
         */
        public Layout withLabel(String column) {
            return new Layout(column, delimiter, header, labelled, keep, drop, weight);
        }

        /**
         * {@return this layout reading the sample weights from a column}
         * @param column the weights' column, by name or 0-based index; null for none
         */
        public Layout withWeight(String column) {
            return new Layout(label, delimiter, header, labelled, keep, drop, column);
        }
    }

    /**
     * Reads a CSV file; the labels stay text until the caller says what they are.
     *
     * @param file   the file; a UTF-8 byte-order mark is skipped
     * @param layout delimiter, header, and which column holds the labels
     * @return the features as numbers and the labels as written
     * @throws DataFormatException naming the file, line and column of a missing value, a
     *     non-number, a ragged row, an open quote or a header of numbers only
     */
    public static CsvTable read(Path file, Layout layout) {
        if (Files.isDirectory(file)) {
            throw new DataFormatException(file + ": is a directory, expected a file");
        }
        CSVFormat format = CSVFormat.DEFAULT.builder().setDelimiter(layout.delimiter())
            .setIgnoreSurroundingSpaces(true).setIgnoreEmptyLines(true).get();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(Files.newInputStream(file),
                StandardCharsets.UTF_8), 1 << 16);
             CSVParser parser = CSVParser.parse(skipBom(in), format)) {
            return rows(file, layout, parser);
        } catch (IOException e) {
            throw TextLines.failure(file, e);
        } catch (UncheckedIOException | IllegalStateException e) {
            String why = e.getCause() != null ? e.getCause().getMessage() : e.getMessage();
            throw new DataFormatException(file + ": not valid CSV: " + Clip.message(why));
        }
    }

    /** A spreadsheet's UTF-8 byte-order mark is not part of the first column's name. */
    private static BufferedReader skipBom(BufferedReader in) throws IOException {
        in.mark(1);
        if (in.read() != '\uFEFF') {
            in.reset();
        }
        return in;
    }

    private static CsvTable rows(Path file, Layout layout, CSVParser parser) {
        Iterator<CSVRecord> it = parser.iterator();
        if (!it.hasNext()) {
            throw new DataFormatException(file + ": the file is empty; expected "
                + (layout.header() ? "a header line naming the columns" : "one sample a line"));
        }
        CSVRecord first = it.next();
        String[] names = layout.header() ? header(file, first, parser.getCurrentLineNumber())
            : indexNames(first.size());
        if (layout.labelled() && names.length < 2) {
            throw new DataFormatException(file + ":1: found one column; expected the label and at least one feature, "
                + "separated by '" + layout.delimiter() + "'" + (layout.delimiter() == ',' ? "" : " (--delimiter)"));
        }
        int label = layout.labelled() ? labelColumn(file, names, layout) : -1;
        int weight = layout.weight() == null ? -1
            : column(file, names, layout.header(), layout.weight(), "sample weight", "--sample-weight");
        if (weight >= 0 && weight == label) {
            throw new DataFormatException(file + ": column '" + Clip.value(names[weight]) + "' is the label column; "
                + "the sample weights (--sample-weight) need a column of their own");
        }
        List<String> notes = new ArrayList<>();
        int[] columns = CsvColumns.features(file, names, label, weight, layout, notes);
        CsvTable.Builder rows = new CsvTable.Builder(file, names, label, weight, layout.header(), columns, notes);
        if (!layout.header()) {
            rows.add(fields(file, first, parser.getCurrentLineNumber()), (int) parser.getCurrentLineNumber());
        }
        while (it.hasNext()) {
            CSVRecord r = it.next();
            int line = (int) parser.getCurrentLineNumber();
            rows.add(fields(file, r, line), line);
        }
        return rows.build();
    }

    /** The column names; a header of numbers only is a first sample, and the file has no header. */
    private static String[] header(Path file, CSVRecord first, long line) {
        String[] names = fields(file, first, line);
        boolean numbers = true;
        for (String n : names) {
            numbers &= ClassNames.isNumber(n);
        }
        if (numbers) {
            throw new DataFormatException(file + ":1: the header line holds only numbers ('"
                + Clip.value(String.join(",", names)) + "'); expected the names of the columns, or --no-header if "
                + "the file has none");
        }
        return names;
    }

    private static String[] fields(Path file, CSVRecord r, long line) {
        String[] f = r.values();
        for (int c = 0; c < f.length; c++) {
            if (f[c].indexOf('\uFFFD') >= 0) {
                throw new DataFormatException(file + ":" + line + ": column " + (c + 1) + " is not UTF-8 text; "
                    + "expected UTF-8 (is this a binary file?)");
            }
        }
        return f;
    }

    private static String[] indexNames(int columns) {
        String[] names = new String[columns];
        for (int c = 0; c < columns; c++) {
            names[c] = Integer.toString(c);
        }
        return names;
    }

    private static int labelColumn(Path file, String[] names, Layout layout) {
        String label = layout.label();
        if (label == null) {
            return names.length - 1;
        }
        return column(file, names, layout.header(), label, "label", "--label");
    }

    /** The column {@code label} names, by header name or 0-based index, for the role {@code what}. */
    private static int column(Path file, String[] names, boolean header, String label, String what, String option) {
        List<Integer> byName = new ArrayList<>();
        for (int c = 0; c < names.length; c++) {
            if (header && names[c].equals(label)) {
                byName.add(c);
            }
        }
        if (byName.size() > 1) {
            throw new DataFormatException(file + ":1: the header names " + byName.size() + " columns '"
                + Clip.value(label) + "'; give the " + what + " column by its 0-based index");
        }
        if (byName.size() == 1) {
            return byName.get(0);
        }
        try {
            int c = Integer.parseInt(label.strip());
            if (c >= 0 && c < names.length) {
                return c;
            }
        } catch (NumberFormatException e) {
            // Not an index either: reported below.
        }
        if (!header) {
            throw new DataFormatException(file + ": " + what + " column '" + Clip.value(label) + "' is not a column "
                + "index (0 to " + (names.length - 1) + "): with --no-header the columns have no names, so " + option
                + " takes an index");
        }
        throw new DataFormatException(file + ": " + what + " column '" + Clip.value(label) + "' is neither a column "
            + "of the header " + Clip.value(String.join(",", names)) + " nor an index below " + names.length);
    }

    /** Whether a field is a missing value: empty, or NA, NaN, null and their kin. */
    static boolean missing(String field) {
        return MISSING.contains(field.strip().toLowerCase(Locale.ROOT));
    }
}
