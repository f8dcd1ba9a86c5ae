package org.paratrain.data;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.paratrain.io.Clip;

/**
 * Which columns of a CSV file are the features, and in which order: those named (the
 * model's, or {@code --features}), or every column but the label and those dropped. An
 * unnamed first column is pandas' index ({@code df.to_csv()} writes one unless told
 * {@code index=False}); it numbers the rows, and on data sorted by class it would give the
 * label away, so it is dropped, with a note.
 */
final class CsvColumns {
    private CsvColumns() { }

    /**
     * {@return the 0-based columns of the features, in order}
     * @param file   the file, for messages
     * @param names  the header's names (0-based indices without a header)
     * @param label  the label's column, or -1
     * @param weight the sample weights' column, or -1
     * @param layout which columns to keep or drop
     * @param notes  receives what a user should hear of
     * @throws DataFormatException naming the columns asked for that the file lacks
     */
    static int[] features(Path file, String[] names, int label, int weight, CsvFormat.Layout layout,
                          List<String> notes) {
        List<Integer> chosen = layout.keep() != null ? kept(file, names, label, weight, layout, notes)
            : remaining(file, names, label, weight, layout, notes);
        if (chosen.isEmpty()) {
            throw new DataFormatException(file + ": no feature columns left (the header: "
                + Clip.message(String.join(",", names)) + ")");
        }
        return chosen.stream().mapToInt(Integer::intValue).toArray();
    }

    private static List<Integer> kept(Path file, String[] names, int label, int weight, CsvFormat.Layout layout,
                                      List<String> notes) {
        List<Integer> chosen = new ArrayList<>();
        List<String> missing = new ArrayList<>();
        for (String want : layout.keep()) {
            int c = find(file, names, want, layout.header());
            if (c < 0) {
                missing.add("'" + Clip.value(want) + "'");
            } else if (c == label) {
                throw new DataFormatException(file + ": column '" + Clip.value(want) + "' is the label column; a "
                    + "feature cannot be the label too (--label names another)");
            } else if (c == weight) {
                throw new DataFormatException(file + ": column '" + Clip.value(want) + "' holds the sample weights "
                    + "(--sample-weight); a feature cannot be the weights too");
            } else {
                chosen.add(c);
            }
        }
        if (!missing.isEmpty()) {
            throw new DataFormatException(file + ": no column " + Clip.message(String.join(", ", missing))
                + " of the " + layout.keep().size() + " features to read (the model's, or --features); the header has "
                + Clip.message(String.join(",", names)));
        }
        List<String> ignored = new ArrayList<>();
        for (int c = 0; c < names.length; c++) {
            if (c != label && c != weight && !chosen.contains(c)) {
                ignored.add(c == 0 && layout.header() && index(names[c]) ? "the unnamed first (pandas' index)"
                    : names[c].isBlank() ? "(unnamed column " + (c + 1) + ")" : names[c]);
            }
        }
        if (!ignored.isEmpty()) {
            notes.add(file + ": ignored " + ignored.size() + (ignored.size() == 1 ? " column that is" : " columns that "
                + "are") + " not among the features: " + Clip.message(String.join(", ", ignored)));
        }
        return chosen;
    }

    private static List<Integer> remaining(Path file, String[] names, int label, int weight, CsvFormat.Layout layout,
                                           List<String> notes) {
        boolean[] out = new boolean[names.length];
        if (weight >= 0) {
            out[weight] = true;
        }
        for (String d : layout.drop()) {
            int c = find(file, names, d, layout.header());
            if (c < 0) {
                throw new DataFormatException(file + ": no column '" + Clip.value(d) + "' to drop; the header has "
                    + Clip.message(String.join(",", names)));
            }
            if (c == label) {
                throw new DataFormatException(file + ": column '" + Clip.value(d) + "' is the label column; it is "
                    + "not a feature to drop");
            }
            out[c] = true;
        }
        if (layout.header() && label != 0 && weight != 0 && !out[0] && index(names[0])) {
            out[0] = true;
            notes.add(file + ": dropped the first column, unnamed in the header: pandas' index (df.to_csv() writes "
                + "it unless index=False); --features chooses the columns");
        }
        List<Integer> chosen = new ArrayList<>();
        for (int c = 0; c < names.length; c++) {
            if (c != label && !out[c]) {
                chosen.add(c);
            }
        }
        return chosen;
    }

    /** An index column's header as pandas writes it: empty, or "Unnamed: 0" once read back and written again. */
    static boolean index(String name) {
        return name.isBlank() || name.strip().equals("Unnamed: 0");
    }

    /** The column named {@code want} (or, without a header or failing a name, of that 0-based index); -1 if none. */
    private static int find(Path file, String[] names, String want, boolean header) {
        int found = -1;
        if (header) {
            for (int c = 0; c < names.length; c++) {
                if (names[c].equals(want)) {
                    if (found >= 0) {
                        throw new DataFormatException(file + ":1: the header names two columns '" + Clip.value(want)
                            + "'; features must have names of their own");
                    }
                    found = c;
                }
            }
            if (found >= 0) {
                return found;
            }
        }
        try {
            int c = Integer.parseInt(want.strip());
            return !header && c >= 0 && c < names.length ? c : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
